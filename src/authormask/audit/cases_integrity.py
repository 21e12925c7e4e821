"""Audit cases of what the statement names: a forged prepared vocabulary is refused or named
(issue 30 C).

A prepared vocabulary (:mod:`authormask.embeddings.prepared`) is unsigned: whoever can write the
cache folder can replace its vectors and recompute its checksums. The guarantee ``eps * d`` is
stated in the metric of the vectors the statement names, so a release that used other vectors
than it names can lose far more than it states (a reviewer's forgery scaled the vectors so a word
came back unchanged 400 of 400 times at epsilon 0.5, against 87 with the genuine ones).

* ``forged-cache``: the 1-d line ``left=-0.2, zero=0, one=1, right=1.2``
  (:func:`~authormask.audit.cases_earth_movers.line_embeddings`) written as a vector file and
  prepared in a private temporary cache; the entry's vectors are then multiplied by
  :data:`FORGE_SCALE` with its checksums recomputed and its header's identity kept (the
  reviewer's forgery). ``emp-text`` is run end to end on what :func:`load_embeddings` then
  returns, and the stated epsilon is ``eps * d`` in the vectors its identity *names*. Used and
  named, the forgery loses ``eps * d * FORGE_SCALE`` (attained by the output ``right``): the audit
  fails. Rebuilt (the loader hashes what it holds) or refused, the genuine line is audited.
* ``forged-cache-named``: the same forgery with the header's identity naming the forged vectors
  (a forgery that agrees with itself, which no unsigned cache can detect for a user's own file):
  the statement must then name the forged vectors, whose ``eps * d`` covers the loss.

The table of every mechanism's cases is :data:`authormask.audit.cases.AUDITORS`.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.audit.case_spec import Context
from authormask.audit.cases_earth_movers import (
    EMP_EPSILON_LINE,
    _word_labels,
    emp_text_sampler,
    line_embeddings,
)
from authormask.audit.core import AuditCase
from authormask.embeddings._base import Embeddings
from authormask.exceptions import EmbeddingsError

__all__ = ["FORGE_SCALE", "INTEGRITY_CASES", "forged_cache_case"]

#: how much the forgery stretches the vectors (the loss of a forged release used under the
#: genuine name is FORGE_SCALE times its stated bound)
FORGE_SCALE = 2.0
#: the cases this module builds (``emp-text``)
INTEGRITY_CASES = ("forged-cache", "forged-cache-named")


def _sha16(a: NDArray[Any]) -> str:
    return hashlib.sha256(np.ascontiguousarray(a, dtype=np.float32).data.cast("B")).hexdigest()[:16]


def _forge(entry: Path, *, rename: bool) -> NDArray[np.float32]:
    """Multiply the entry's vectors by :data:`FORGE_SCALE`, recompute its checksums and keep
    (or, with ``rename``, update) the identity its header names; the forged vectors."""
    from authormask.embeddings.prepared import read_entry, write_entry

    found = read_entry(entry, {})
    if found is None:
        raise EmbeddingsError(f"audit: no prepared vocabulary to forge at {entry}")
    computed = {"format", "arrays", "payload_bytes"}
    header = {k: v for k, v in found.header.items() if k not in computed}
    arrays: dict[str, NDArray[Any]] = {k: np.array(v) for k, v in found.arrays.items()}
    forged = (arrays["vectors"] * np.float32(FORGE_SCALE)).astype(np.float32)
    arrays["vectors"] = forged
    if rename:
        header["identity"] = {**header["identity"], "vectors_sha256": _sha16(forged)}
    if not write_entry(entry, header, arrays):
        raise EmbeddingsError(f"audit: cannot write the forged entry {entry}")
    return forged


def _loaded_after_forgery(rename: bool) -> tuple[Embeddings, NDArray[np.float32], str]:
    """``(embeddings used, vectors the statement names, what the loader did)`` after a forgery
    of the line's prepared entry; the embeddings are copied into memory (the temporary cache is
    removed)."""
    from authormask.embeddings import load_embeddings

    line = line_embeddings()
    with tempfile.TemporaryDirectory(prefix="authormask-audit-") as tmp:
        path = Path(tmp) / "line.txt"
        path.write_text(
            "".join(
                f"{w} {float(x)!r}\n" for w, x in zip(line.words, line.vectors[:, 0], strict=True)
            ),
            encoding="utf-8",
        )
        cache = Path(tmp) / "cache"
        genuine = load_embeddings(path, cache_dir=cache, filter=None)
        (entry,) = cache.glob("*.vocab")
        forged = _forge(entry, rename=rename)
        try:
            loaded = load_embeddings(path, cache_dir=cache, filter=None)
        except EmbeddingsError:  # refused: what runs is what a build from the file gives
            loaded, outcome = load_embeddings(path, cache_dir=None, filter=None), "refused"
        else:
            outcome = "loaded"
        used = Embeddings(
            name=loaded.name,
            source=loaded.source,
            words=loaded.words,
            vectors=np.array(loaded.vectors, dtype=np.float32),
        )
    named_hash = loaded.identity.vectors_sha256
    candidates = {_sha16(genuine.vectors): genuine.vectors, _sha16(forged): forged}
    # vectors named by no candidate: the statement claims the file's, so those are stated
    named = candidates.get(named_hash, genuine.vectors)
    if outcome == "loaded":
        used_hash = _sha16(used.vectors)
        outcome = "the forged entry was used" if used_hash == _sha16(forged) else "rebuilt"
        outcome += ", named " + ("truthfully" if used_hash == named_hash else "FALSELY")
    return used, np.asarray(named, dtype=np.float32), outcome


def forged_cache_case(name: str, case: str) -> Callable[[Context], AuditCase]:
    """``emp-text`` (registered as ``name``) end to end on the embeddings loaded after a forgery of
    their prepared entry (``forged-cache``: the header names the genuine vectors;
    ``forged-cache-named``: it names the forged ones); stated ``eps * d(zero, one)`` in the vectors
    the identity names.

    Parameters
    ----------
    name
        The name ``emp-text`` is registered under.
    case
        ``"forged-cache"`` or ``"forged-cache-named"`` (:data:`INTEGRITY_CASES`).

    Returns
    -------
    Callable[[Context], AuditCase]
        The case's builder.

    Raises
    ------
    ValueError
        If ``case`` is not one of :data:`INTEGRITY_CASES`.
    """
    if case not in INTEGRITY_CASES:
        raise ValueError(f"case must be one of {', '.join(INTEGRITY_CASES)}, got {case!r}")

    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism

        used, named, outcome = _loaded_after_forgery(rename=case == "forged-cache-named")
        mech: Any = core_mechanism(
            name,
            epsilon=EMP_EPSILON_LINE,
            embeddings=used,
            vocab_size=None,
            stopwords="none",
            oov_map_to="zero",
        )
        zero, one = used.index_of("zero"), used.index_of("one")
        d = float(np.linalg.norm(named[zero].astype(np.float64) - named[one]))
        return AuditCase(
            mechanism=name,
            case=case,
            description=(
                f"{name} end to end on the 1-d line after its prepared entry was forged "
                f"(vectors x{FORGE_SCALE:g}, header naming the "
                f"{'forged' if case == 'forged-cache-named' else 'genuine'} vectors): "
                f"{outcome}; zero vs one, eps*d = {EMP_EPSILON_LINE:g}*{d:g} in the named vectors"
            ),
            epsilon_stated=EMP_EPSILON_LINE * d,
            neighbours=("zero", "one"),
            sampler=emp_text_sampler(mech),
            labels=_word_labels(used),
        )

    return build
