"""``authormask distance``: the Earth Mover's distance between two documents and, at a given
epsilon, how much more likely an output is from one than from the other (thin wrapper over
:func:`authormask.accounting.word_movers_distance` and
:func:`authormask.accounting.privacy_multiplier`).

Unknown words (no vector) are read by the rule a release uses (``--oov``):

* ``map`` (the default, as every in-place text mechanism's): a release feeds a content word
  drawn by Zipf's law in an unknown word's place (:mod:`authormask.mechanisms.unknown`), so an
  unknown word stays in the bag and is at distance 0 from another unknown word and at most
  ``max_u d(u, v)`` from a vocabulary word ``v``, ``u`` over the words the release can draw
  (the vocabulary without the function words): the ground distance of the Earth Mover's
  distance here, which makes ``epsilon*N*E`` the bound the statement gives;
* ``map`` with ``--oov-map-to WORD``: the fixed word, at ``d(WORD, v)``;
* ``drop`` (``emp-bag``'s default): removed from the bag.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from authormask.cli.options import (
    cache_option,
    embeddings_option,
    epsilon_option,
    load_embeddings_from_options,
    text_or_json_options,
    vocab_option,
)

__all__ = ["multiplier_text", "register"]

#: an unknown word in a bag (never a vocabulary word: it holds a NUL, which cleaned text never
#: does)
UNKNOWN = "\x00unknown"


def multiplier_text(multiplier: float, document_epsilon: float) -> str:
    """The multiplier ``exp(epsilon*N*E)`` as a number, or, past the float range (it is then
    ``inf``), as ``exp(1234) ~ 10^535.9``."""
    if math.isfinite(multiplier):
        return f"{multiplier:.4g}"
    return f"exp({document_epsilon:.4g}) ~ 10^{document_epsilon / math.log(10):.1f}"


@click.command()
@click.argument("a", type=str)
@click.argument("b", type=str)
@epsilon_option(
    help="Also report the privacy multiplier exp(epsilon*N*E) between the two documents."
)
@click.option(
    "--length",
    "-N",
    type=click.IntRange(min=1),
    default=None,
    help="N for the multiplier (with --epsilon): both bags are truncated to N words "
    "(default: the shorter bag).",
)
@click.option(
    "--oov",
    type=click.Choice(["map", "drop"]),
    default="map",
    show_default=True,
    help="Unknown words (no vector), as the release treats them: map (every in-place text "
    "mechanism's default: a word drawn by Zipf's law is fed in their place, so two unknown "
    "words are at distance 0 and an unknown word at most max_u d(u, v) from a word v) or drop "
    "(removed: emp-bag's default).",
)
@click.option(
    "--oov-map-to",
    "oov_map_to",
    default=None,
    metavar="WORD",
    help="With --oov map: the release's fixed word for unknown words (its --oov-map-to), at "
    "distance d(WORD, v) from a word v.",
)
@embeddings_option
@vocab_option
@text_or_json_options(help="How to print the result.")
@cache_option
def distance(
    a: str,
    b: str,
    epsilon: float | None,
    length: int | None,
    oov: str,
    oov_map_to: str | None,
    embeddings: str,
    vocab_size: int,
    fmt: str,
    as_json: bool,
    cache_dir: Path | None,
) -> None:
    """Earth Mover's distance between the prepared bags of documents A and B, and how
    distinguishable their obfuscated outputs may be at a given epsilon."""
    from authormask.accounting import privacy_multiplier
    from authormask.cli.io import read_inputs
    from authormask.text import TextPreparer, fixed_length_bag

    if length is not None and epsilon is None:
        raise click.UsageError("--length applies only with --epsilon (it sets N for the bound)")
    if oov_map_to is not None and oov != "map":
        raise click.UsageError("--oov-map-to applies only with --oov map")
    doc_a, doc_b = read_inputs((a,))[0], read_inputs((b,))[0]
    emb = load_embeddings_from_options(embeddings, vocab_size, cache_dir)
    try:
        prep = TextPreparer(emb, oov=oov, oov_map_to=oov_map_to)
    except ValueError as exc:  # an --oov-map-to outside the vocabulary
        raise click.UsageError(f"--oov-map-to: {exc}") from None
    pa, pb = prep.prepare(doc_a.text), prep.prepare(doc_b.text)
    bag_a, bag_b = _bag(pa, drawn=oov_map_to is None), _bag(pb, drawn=oov_map_to is None)
    ground = _Ground(emb, prep.stopwords)
    full = ground.emd(bag_a, bag_b)
    result: dict[str, Any] = {
        "a": doc_a.name,
        "b": doc_b.name,
        "embeddings": emb.identity.to_dict(),
        "words_a": full.size_a,
        "words_b": full.size_b,
        "oov": oov if oov_map_to is None else f"map to {oov_map_to}",
        "unknown_a": len(pa.mapped),
        "unknown_b": len(pb.mapped),
        "emd": full.distance,
        "method": full.method,
    }
    if epsilon is not None:
        n = length if length is not None else min(full.size_a, full.size_b)
        ba = fixed_length_bag(bag_a, length=n)
        bb = fixed_length_bag(bag_b, length=n)
        fixed = ground.emd(ba.words, bb.words)
        doc_eps = epsilon * n * fixed.distance
        mult = privacy_multiplier(epsilon=epsilon, length=n, distance=fixed.distance)
        result.update(
            {
                "epsilon": epsilon,
                "length": n,
                "emd_at_length": fixed.distance,
                "document_epsilon": doc_eps,
                "multiplier": mult if math.isfinite(mult) else None,
                "log10_multiplier": doc_eps / math.log(10),
            }
        )
    if as_json or fmt == "json":
        click.echo(json.dumps(result, indent=2))
        return
    click.echo(f"Earth Mover's distance E(A, B) = {full.distance:.4f}")
    click.echo(f"  A: {doc_a.name} ({full.size_a} words), B: {doc_b.name} ({full.size_b} words)")
    click.echo(f"  solved by {full.method}; embeddings {emb.identity.describe()}")
    if pa.mapped or pb.mapped:
        rule = (
            f"each read as {oov_map_to!r}, the release's fixed word"
            if oov_map_to is not None
            else "as a release draws them: two unknown words at distance 0, an unknown word at "
            "most max_u d(u, v) from a word v"
        )
        click.echo(
            f"  unknown words (no vector): {len(pa.mapped)} in A, {len(pb.mapped)} in B, {rule}"
        )
    if epsilon is not None:
        n = result["length"]
        click.echo(
            f"At epsilon={epsilon:g} per word and N={n} (first {n} words of each): "
            f"E = {result['emd_at_length']:.4f}, "
            f"epsilon*N*E = {result['document_epsilon']:.4f}"
        )
        click.echo(
            f"  any output is at most {multiplier_text(mult, doc_eps)} times "
            "more likely from one document than the other"
        )


def _bag(document: Any, *, drawn: bool) -> tuple[str, ...]:
    """A prepared document's content words, each unknown word as :data:`UNKNOWN` where a
    release draws a word in its place (``drawn``; else the preparer's fixed word is there)."""
    words = list(document.content_words)
    if drawn:
        for i in document.mapped:
            words[i] = UNKNOWN
    return tuple(words)


class _Ground:
    """The ground distance of the bags (module notes): Euclidean between word vectors, 0
    between two unknown words, ``max_u d(u, v)`` between an unknown word and a word ``v``."""

    def __init__(self, embeddings: Any, excluded: frozenset[str]) -> None:
        self.embeddings = embeddings
        self.excluded = excluded
        self._farthest: dict[str, float] = {}

    def farthest(self, words: list[str]) -> None:
        """``max_u d(u, v)`` for each word ``v`` of ``words`` not yet known, ``u`` over the
        words a release draws (:class:`~authormask.mechanisms.unknown.UnknownWords`: prior
        above 0), in float64 (relative rounding about 1e-15), a block of words at a time."""
        import numpy as np

        from authormask.mechanisms.unknown import UnknownWords

        todo = [w for w in dict.fromkeys(words) if w not in self._farthest]
        if not todo:
            return
        cdf = UnknownWords(self.embeddings, excluded=self.excluded, fixed=None).cdf
        support = np.flatnonzero(np.diff(np.concatenate([[0.0], cdf])) > 0)
        targets = self.embeddings.lookup(todo).astype(np.float64)
        t2 = (targets**2).sum(axis=1)
        best = np.zeros(len(todo))
        for start in range(0, len(support), 4096):
            block = self.embeddings.vectors[support[start : start + 4096]].astype(np.float64)
            for first in range(0, len(todo), 1024):
                part = slice(first, first + 1024)
                d2 = (
                    (block**2).sum(axis=1)[:, None]
                    + t2[None, part]
                    - 2.0 * (block @ targets[part].T)
                )
                best[part] = np.maximum(best[part], d2.max(axis=0))
        for word, value in zip(todo, best, strict=True):
            self._farthest[word] = float(np.sqrt(max(float(value), 0.0)))

    def emd(self, a: Sequence[str], b: Sequence[str]) -> Any:
        """E(a, b) under this ground distance (exact: a linear assignment for bags of one
        size, a transport otherwise, as :func:`~authormask.accounting.word_movers_distance`)."""
        from authormask.accounting import word_movers_distance

        if UNKNOWN not in a and UNKNOWN not in b:
            return word_movers_distance(list(a), list(b), self.embeddings)
        import numpy as np
        from scipy.spatial.distance import cdist

        from authormask.accounting.emd import EMDResult

        ua = np.array([w == UNKNOWN for w in a])
        ub = np.array([w == UNKNOWN for w in b])
        self.farthest([w for w in (*a, *b) if w != UNKNOWN])
        far_a = np.array([0.0 if w == UNKNOWN else self._farthest[w] for w in a])
        far_b = np.array([0.0 if w == UNKNOWN else self._farthest[w] for w in b])
        cost = np.zeros((len(a), len(b)))  # two unknown words: 0
        ka, kb = np.flatnonzero(~ua), np.flatnonzero(~ub)
        if ka.size and kb.size:
            va = self.embeddings.lookup([a[int(i)] for i in ka]).astype(np.float64)
            vb = self.embeddings.lookup([b[int(j)] for j in kb]).astype(np.float64)
            cost[np.ix_(ka, kb)] = cdist(va, vb, metric="euclidean")
        cost[np.ix_(np.flatnonzero(ua), kb)] = far_b[kb][None, :]
        cost[np.ix_(ka, np.flatnonzero(ub))] = far_a[ka][:, None]
        if len(a) == len(b):
            from scipy.optimize import linear_sum_assignment

            rows, cols = linear_sum_assignment(cost)
            return EMDResult(float(cost[rows, cols].sum() / len(a)), len(a), len(b), "assignment")
        from authormask.accounting.emd import pot

        ot = pot()
        wa = np.full(len(a), 1.0 / len(a))
        wb = np.full(len(b), 1.0 / len(b))
        return EMDResult(float(ot.emd2(wa, wb, cost)), len(a), len(b), "transport")


def register(cli: click.Group) -> None:
    cli.add_command(distance)
