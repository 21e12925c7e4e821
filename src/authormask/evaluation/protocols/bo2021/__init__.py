"""The text-release evaluation of Bo et al. (2021, Table 1 and Figure 2).

Every mechanism rewrites the same test documents; three measures compare each release with its
original:

* **semantic similarity**: cosine of MiniLM document vectors (all-MiniLM-L6-v2 stands in for the
  Universal Sentence Encoder; higher is better);
* **authorship accuracy**: a character n-gram fastText classifier in the spirit of Sari et al.
  (2017), trained on the *original* training documents of the same authors, predicts the author
  of each released test document (lower is better; chance is 1 / authors);
* **stylometric change**: L2 distance between stylometric feature vectors
  (:mod:`authormask.evaluation.measures.utilities.stylometry`; higher means more change).

Documents are rewritten sentence by sentence (the models' unit) and reassembled, so authorship
and stylometry are measured on whole documents, as the paper does.

Every mechanism is a registry mechanism (``random-r``, ``ae-dp``, ``syntf``, ``erae``,
``emp-text``) built by :func:`authormask.core.create_mechanism` and run by
:func:`authormask.core.release`. The seed of each (mechanism, epsilon) derives from the base
seed, the mechanism's fixed code
(:func:`authormask.evaluation.protocols._common.mechanism_code`) and epsilon,
never from the order in which mechanisms are listed.

The protocol in modules: :mod:`.config` (what to run, its defaults and ``--quick``'s),
:mod:`.results` (rows and the result: plain data), :mod:`.runner`
(:func:`run_release_evaluation`) and :mod:`.protocol` (:data:`PROTOCOL`, the protocol as every
protocol is run); its reports, which read the result, are
:mod:`authormask.evaluation.reports.bo2021`.
"""

from authormask.evaluation.protocols.bo2021.config import (
    BO2021_ATTACKERS,
    DEFAULT_ATTACKERS,
    FASTTEXT_CHAR,
    ORIGINAL,
    RELEASE_MECHANISMS,
    ReleaseConfig,
    label_of,
    release_mechanisms,
    release_seed,
    release_settings,
)
from authormask.evaluation.protocols.bo2021.protocol import PROTOCOL, Bo2021, ReleaseInputs
from authormask.evaluation.protocols.bo2021.results import ReleaseResult, ReleaseRow
from authormask.evaluation.protocols.bo2021.runner import run_release_evaluation, select_documents

__all__ = [
    "BO2021_ATTACKERS",
    "DEFAULT_ATTACKERS",
    "FASTTEXT_CHAR",
    "ORIGINAL",
    "PROTOCOL",
    "RELEASE_MECHANISMS",
    "Bo2021",
    "ReleaseConfig",
    "ReleaseInputs",
    "ReleaseResult",
    "ReleaseRow",
    "label_of",
    "release_mechanisms",
    "release_seed",
    "release_settings",
    "run_release_evaluation",
    "select_documents",
]
