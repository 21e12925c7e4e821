"""The PAN cross-domain authorship attribution protocol (Kestemont et al. 2018, 2019), with
obfuscation.

Every problem of a PAN 2018/2019 collection is its own attribution task and is scored on its
own; problems are never pooled. Every mechanism must release a text (its spec's
:attr:`~authormask.core.specs.MechanismSpec.release`, "text" or "generated"): one that releases
a bag of words (``emp-bag``) is refused up front, since the attackers and every utility read
the released text (``--protocol fernandes2019`` runs it). For each problem, mechanism, epsilon
and repetition, the problem's known and unknown texts are released together through
:func:`authormask.core.release` (one release, so a mechanism that fixes something from its
inputs fixes it once for the problem). Then each attacker

* is trained on the known texts in the mechanism's *noise-off* form (its own preparation with
  the noise switched off, :mod:`authormask.evaluation.releases`), or, for
  ``adaptive-<name>``, on the known texts as released at this epsilon; so an attacker is always
  trained on texts in the form of the texts it is tested on;
* answers for every released unknown text a candidate or ``<UNK>`` (an attacker that never
  rejects is closed-set, as PAN 2018's problems were);
* is scored by PAN's macro-F1 (:func:`authormask.evaluation.metrics.pan_macro_f1`).

The default attackers (:data:`PAN_ATTACKERS`) are the strongest measured on fan fiction
(``pan19-en``): the typed character 3-gram SVM and logistic regression (Sapkota et al. 2015) and
PAN 2019's own baseline; and five that read what a release keeps: ``class-seq`` (n-grams of
the sequence content word / function word / punctuation: the skeleton a mechanism keeping the
writer's leaves), ``released-words`` (only the words the mechanism drew from the writer's,
never the text written or rendered around them: for ``emp-write`` what its statement says is
released), ``released-vocabulary`` (the same words, each once: which words, not how often),
``stylometry`` (function-word rates, word and sentence lengths, punctuation) and ``ppm``
(character compression, Teahan & Harper 2003). Each runs both plain and ``adaptive-``, and
every table's headline is the strongest of all those asked for (plain or adaptive, whichever
scores higher at that row).

Utility (``utilities``, default all four of :data:`PAN_UTILITIES`): each released unknown text
is compared with its **original** unknown text as read from the collection, so the noise-off
row shows what the mechanism's preparation alone changes (unknown words mapped, contractions
split, a canonical skeleton), and a mechanism is never credited for what its preparation
removes.

* ``similarity``: the MiniLM cosine
  (:class:`~authormask.evaluation.measures.utilities.similarity.SentenceSimilarity`) of the
  release and its original;
* ``content-recall``: the share of the original's content words (lower-cased word tokens not
  in the stopword list) that the release keeps, counted as a multiset
  (:mod:`~authormask.evaluation.measures.utilities.content`), so it applies to generated text
  as well;
* ``retrieval``: the share of releases whose MiniLM-nearest original among *every* original
  unknown text of the problem is their own
  (:mod:`~authormask.evaluation.measures.utilities.retrieval`);
* ``fluency``: the unigram-normalised perplexity of the release divided by that of its
  original (``exp(SLOR(original) - SLOR(release))``) under a public word-level LSTM language
  model trained on text no mechanism reads
  (:mod:`~authormask.evaluation.measures.utilities.fluency`), summarised by the geometric mean
  of the ratios (1 = as fluent as the original).

Each is read beside its *floor*, measured once per problem without any release
(:class:`PanFloor`): the mean similarity and content recall of two different sampled originals
(unrelated stories of one problem share topic, genre and register, so their similarity is far
from 0), and retrieval's uniform guess, 1 / the problem's unknown texts. MiniLM reads about 60
chunks of 100 words a second on one core in bfloat16, so every utility reads the releases of a
fixed sample of ``similarity_texts`` unknown texts per problem (default 50; ``None``: all),
drawn once per problem from the base seed and the problem's name, the same texts at every
mechanism, epsilon and repetition (differences between rows are paired).
Each mean comes with a 95% interval (mean +- 1.96 standard errors over the sampled texts;
fluency's on the log scale). The report folder also holds samples.md, the start of the first
sampled unknown texts of the first problem as read and as each row released them.

The row ``epsilon = None`` ("none") is the noise-off release of both known and unknown texts
(for a mechanism with no sampler to switch off, erae, ae-dp and syntf, its release at
:data:`~authormask.evaluation.releases.NOISE_OFF_EPSILON`). A mechanism that needs a trained
model (erae, ae-dp) gets it from the run's inputs (``erae_model``, ``aedp_model``, as bo2021
takes them); its identity is part of the cache key of every release and cell made with it and
is named in the provenance.
Releases and scores are cached (:class:`~authormask.evaluation.cache.ResultsCache`), so an
interrupted run resumes. Seeds derive from the base seed, the problem's name, the mechanism's
fixed code, the repetition, epsilon and the role (texts or attacker), never from the order of
the configuration.

The protocol in modules: :mod:`.config` (what to run, its defaults and ``--quick``'s),
:mod:`.results` (cells and the result: plain data, which :mod:`authormask.evaluation.reports`
reads), :mod:`.runner` (:func:`run_pan`) and :mod:`.protocol` (:data:`PROTOCOL`, the protocol as
every protocol is run).
"""

from authormask.evaluation.protocols.pan.config import (
    PAN_ATTACKERS,
    PAN_UTILITIES,
    SIMILARITY_TEXTS,
    PanConfig,
)
from authormask.evaluation.protocols.pan.protocol import PROTOCOL, Pan, PanInputs
from authormask.evaluation.protocols.pan.results import (
    PanCell,
    PanExcerpt,
    PanFloor,
    PanResult,
    PanUtilityCell,
    pooled_mean,
)
from authormask.evaluation.protocols.pan.runner import check_pan, run_pan

__all__ = [
    "PAN_ATTACKERS",
    "PAN_UTILITIES",
    "PROTOCOL",
    "SIMILARITY_TEXTS",
    "Pan",
    "PanCell",
    "PanConfig",
    "PanExcerpt",
    "PanFloor",
    "PanInputs",
    "PanResult",
    "PanUtilityCell",
    "check_pan",
    "pooled_mean",
    "run_pan",
]
