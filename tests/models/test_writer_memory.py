"""The writer's caches are bounded (issue 50: memory flat in input length). A long text met
ever more contexts and kept every gap law and trigram probability it computed (about 55 MB
after a million characters); now the laws are kept in two generations of at most half their
bound, each law computed from what its pair of classes shares (no cache of trigram
probabilities), and what is kept changes the time a text takes, never its text."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from authormask.models import writer as writer_module
from authormask.models.writer import load_writer
from authormask.text.stopwords import default_stopwords


@pytest.fixture(scope="module")
def writer(glove_20k, tmp_path_factory: pytest.TempPathFactory):
    return load_writer(
        glove_20k, frozenset(default_stopwords()), cache_dir=tmp_path_factory.mktemp("w")
    )


def _fresh(writer):
    """A copy of the writer with empty caches of its own."""
    mine = copy.copy(writer)
    mine._gap_laws, mine._gap_laws_old, mine._pairs = {}, {}, {}
    return mine


def test_a_long_text_keeps_at_most_the_bounds_and_writes_what_unbounded_caches_write(
    writer, glove_20k, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 3,000 real words in an order of the vocabulary: many contexts
    words = [w for w in glove_20k.words[200:4000] if w.isalpha()][:3000]
    unbounded = _fresh(writer)
    monkeypatch.setattr(writer_module, "GAP_LAWS", 10**9)
    expected = unbounded.write(words, np.random.default_rng(3))
    many_laws = len(unbounded._gap_laws)
    assert many_laws > 400  # the text met many contexts

    monkeypatch.setattr(writer_module, "GAP_LAWS", 200)
    bounded = _fresh(writer)
    held_laws: list[int] = []
    law = bounded._gap_law

    def watched(*args: str):
        out = law(*args)
        held_laws.append(len(bounded._gap_laws) + len(bounded._gap_laws_old))
        return out

    bounded._gap_law = watched
    assert bounded.write(words, np.random.default_rng(3)) == expected
    assert 100 <= max(held_laws) <= 200
    assert not hasattr(bounded, "_log_p")  # no cache of trigram probabilities beside the laws


def _scalar_law(mine, before: str, prev: str, nxt: str):
    """A gap law as the writer computed it before its pairs shared anything: each candidate's
    score the sum from 0.0, in order, of ``math.log`` of the scalar ``p3`` of its trigrams."""
    import math

    cands = tuple(mine._list_candidates(prev, nxt))
    scores = np.empty(len(cands), dtype=np.float64)
    for j, gap in enumerate(cands):
        a, b = before, prev
        lp = 0.0
        for x in (*gap, nxt):
            lp += math.log(mine.lm.p3(a, b, x))
            a, b = b, x
        scores[j] = lp
    p = np.exp(scores - scores.max())
    return cands, p / p.sum()


def test_every_gap_law_is_bit_for_bit_the_scalar_sums(writer, glove_20k) -> None:
    """A law is computed from its pair's shared trigrams (issue 50: the cache of every trigram
    probability was a third of a long text's growth): each law's candidates and probabilities
    are those of the scalar sums, bit for bit, for the contexts a text meets, a text's start,
    its end, and tokens outside the training text before, between and after."""
    words = [w for w in glove_20k.words[300:1500] if w.isalpha()][:600]
    mine = _fresh(writer)
    mine.write(words, np.random.default_rng(8))
    contexts = list({**mine._gap_laws_old, **mine._gap_laws})
    classes = sorted({c for _, prev, nxt in contexts for c in (prev, nxt) if c.startswith("C")})
    start, end = writer_module._START, writer_module._END
    contexts += [(start, start, c) for c in classes[:8]] + [(c, c, end) for c in classes[:8]]
    contexts += [("never-a-token", classes[0], classes[1]), (".", "never-a-token", classes[2])]
    contexts += [(classes[3], classes[4], "never-a-token")]
    assert len(contexts) > 300
    fresh = _fresh(writer)
    for before, prev, nxt in contexts:
        cands, p = fresh._compute_law(before, prev, nxt)
        want_cands, want_p = _scalar_law(fresh, before, prev, nxt)
        assert cands == want_cands
        assert np.array_equal(p, want_p), (before, prev, nxt)


def test_a_long_text_reads_the_counts_without_a_dict_of_them(writer, glove_20k) -> None:
    """The gap laws read the Kneser-Ney counts as arrays (:meth:`_Lookup.get_many`): a long
    text no longer turns the count tables into dicts of Python integers (issue 50: about 22 MB
    more for any text past a few thousand reads); they hold their two arrays and nothing
    else, whatever was read."""
    words = [w for w in glove_20k.words[200:4000] if w.isalpha()][:3000]
    mine = _fresh(writer)
    mine.lm = writer_module._KneserNey(writer.tables.trigrams, writer_module.DISCOUNT)
    mine.write(words, np.random.default_rng(4))
    lookups = [v for v in vars(mine.lm).values() if isinstance(v, writer_module._Lookup)]
    assert len(lookups) == 7
    for lookup in lookups:
        for _ in range(5000):
            lookup.get(0)
        held = [getattr(lookup, name) for name in type(lookup).__slots__]
        assert len(held) == 2 and all(isinstance(x, np.ndarray) for x in held)


def test_the_laws_of_one_pair_of_classes_share_their_candidates(writer, glove_20k) -> None:
    """A gap law's candidates depend on the classes around the gap alone, not on the token
    before them: one tuple per pair, held by every law of that pair (before, each law held a
    list of its own: about a third of the laws' memory after a million characters)."""
    words = [w for w in glove_20k.words[200:2000] if w.isalpha()][:1500]
    mine = _fresh(writer)
    mine.write(words, np.random.default_rng(5))
    laws = {**mine._gap_laws_old, **mine._gap_laws}
    pairs = {(prev, nxt) for _, prev, nxt in laws}
    assert len(pairs) < len(laws)  # several laws per pair: the case this is for
    assert len({id(cands) for cands, _ in laws.values()}) == len(pairs)
    for (_, prev, nxt), (cands, _) in laws.items():
        assert cands == tuple(mine._list_candidates(prev, nxt))


def _reference_kneser_ney(c3, d):
    """Interpolated Kneser-Ney over counts keyed by the tokens themselves, written from the
    module notes' formulas (the form the writer had before its counts were numbered)."""
    from collections import Counter

    ctx2, types2, cont2 = Counter(), Counter(), Counter()
    for (a, b, x), n in c3.items():
        ctx2[(a, b)] += n
        types2[(a, b)] += 1
        cont2[(b, x)] += 1
    ctx1, types1, cont1 = Counter(), Counter(), Counter()
    for (b, x), n in cont2.items():
        ctx1[b] += n
        types1[b] += 1
        cont1[x] += 1
    total1, size = sum(cont1.values()), len(cont1) + 1

    def p1(x):
        return (cont1.get(x, 0) + 0.5) / (total1 + 0.5 * size)

    def p2(b, x):
        n = ctx1.get(b, 0)
        if n == 0:
            return p1(x)
        return max(cont2.get((b, x), 0) - d, 0.0) / n + d * types1[b] / n * p1(x)

    def p3(a, b, x):
        n = ctx2.get((a, b), 0)
        if n == 0:
            return p2(b, x)
        return max(c3.get((a, b, x), 0) - d, 0.0) / n + d * types2[(a, b)] / n * p2(b, x)

    return p3


def _probed(c3, tokens, rng):
    """Seen trigrams, random ones, and ones with a token outside the table in each place."""
    seen = list(c3)
    triples = [seen[i] for i in rng.choice(len(seen), 3000, replace=False)]
    triples += [tuple(tokens[i] for i in rng.integers(len(tokens), size=3)) for _ in range(3000)]
    triples += [(a, b, "never-a-token") for a, b, _ in triples[:200]]
    triples += [("never-a-token", b, x) for _, b, x in triples[:200]]
    triples += [(a, "never-a-token", x) for a, _, x in triples[:200]]
    return triples


def test_the_numbered_counts_give_every_probability_the_token_keyed_counts_give(
    glove_20k, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer's trigram counts are numbered arrays (issue 50: building them as dictionaries
    of strings took a third of a one-sentence release's start-up); every probability, of seen
    and unseen trigrams and tokens, is bit for bit the one of counts keyed by the tokens, for
    the writer trained (its counts numbered from the training's own) and for the writer read
    from its prepared file (numbered as the file stores them), one key at a time and many at
    once."""
    from collections import Counter

    captured: list[Counter] = []
    numbered = writer_module._Trigrams.from_counter

    def keep(c3):
        captured.append(Counter(c3))
        return numbered(c3)

    monkeypatch.setattr(writer_module, "_WRITERS", {})
    monkeypatch.setattr(writer_module._Trigrams, "from_counter", staticmethod(keep))
    words = frozenset(default_stopwords())
    trained = load_writer(glove_20k, words, cache_dir=tmp_path)
    (c3,) = captured  # the training's own counts, keyed by the tokens
    monkeypatch.setattr(writer_module, "_WRITERS", {})
    read = load_writer(glove_20k, words, cache_dir=tmp_path)
    assert read is not trained and len(captured) == 1  # read from the file, not trained
    assert len(c3) > 10_000
    assert dict(trained.tables.trigrams.items()) == dict(c3)
    assert dict(read.tables.trigrams.items()) == dict(c3)
    reference = _reference_kneser_ney(c3, writer_module.DISCOUNT)
    tokens = sorted({t for trigram in c3 for t in trigram})
    triples = _probed(c3, tokens, np.random.default_rng(0))
    assert sum(t in c3 for t in triples) >= 3000 and sum(t not in c3 for t in triples) >= 3000
    for a, b, x in triples:
        expected = reference(a, b, x)
        assert trained.lm.p3(a, b, x) == expected
        assert read.lm.p3(a, b, x) == expected
    # the same probabilities for arrays of token numbers (what the gap laws read)
    for lm in (trained.lm, read.lm):
        a, b, x = (lm.numbers(column) for column in zip(*triples, strict=True))
        assert (a < 0).sum() >= 200 and (b < 0).sum() >= 200 and (x < 0).sum() >= 200
        want3 = np.array([reference(*t) for t in triples])
        assert np.array_equal(lm.p3_many(a, b, x), want3)
        assert np.array_equal(lm.p2_many(b, x), [lm.p2(t[1], t[2]) for t in triples])
        assert np.array_equal(lm.p1_many(x), [lm.p1(t[2]) for t in triples])
        for before, prev in sorted({(t[0], t[1]) for t in triples[:40]} | {triples[-1][:2]}):
            lower = lm.p2_many(np.full(len(x), lm.numbers([prev])[0]), x)
            after = lm.p3_after(before, prev, x, lower)
            assert np.array_equal(after, [lm.p3(before, prev, t[2]) for t in triples])


def test_a_training_text_of_too_many_tokens_to_number_is_refused() -> None:
    many = writer_module._Trigrams(
        tuple(str(i) for i in range(writer_module._MAX_TOKENS + 1)),
        np.zeros((1, 3), dtype=np.int32),
        np.ones(1, dtype=np.int64),
    )
    with pytest.raises(ValueError, match="distinct tokens"):
        writer_module._KneserNey(many, writer_module.DISCOUNT)


def test_a_count_table_reads_each_key_as_its_arrays_hold_it() -> None:
    """A Kneser-Ney count table is read by bisection of its arrays, one key at a time and many
    at once, to the largest keys and past them (helper-28: a table once kept a dict beside its
    arrays, a fifth more memory on a long text; it holds its arrays only)."""
    keys = np.array([3, 7, 2**40, 2**62 + 5], dtype=np.int64)
    values = np.array([1, 2, 3, 4], dtype=np.int64)
    lookup = writer_module._Lookup(keys, values)
    probes = [3, 7, 2**40, 2**62 + 5, 0, 8, 2**63 - 1, -1]
    expected = [1, 2, 3, 4, 0, 0, 0, 0]
    assert [lookup.get(k) for k in probes] == expected
    assert lookup.get_many(np.array(probes, dtype=np.int64)).tolist() == expected
    assert lookup[7] == 2 and lookup.get(8, -5) == -5
    held = [getattr(lookup, name) for name in type(lookup).__slots__]
    assert len(held) == 2 and not any(isinstance(x, dict) for x in held)
    with pytest.raises(KeyError):
        lookup[8]
    empty = writer_module._Lookup(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    assert empty.get(3) == 0 and empty.get_many(np.array([3, -1])).tolist() == [0, 0]


def test_what_a_pair_shares_cannot_be_written(writer) -> None:
    """The arrays every law of a pair reads (in every thread, for every text) are read-only: an
    edit in place would make later texts' gaps depend on earlier ones (helper-31)."""
    mine = _fresh(writer)
    start, end = writer_module._START, writer_module._END
    pair = mine._shared(start, end)
    arrays = [pair.first_ids, pair.first_of, pair.first_lower, pair.order, pair.later]
    for array in arrays:
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0
    law = mine._compute_law(start, start, end)[1]
    law[...] = 0  # a law is the caller's own
    assert mine._compute_law(start, start, end)[1].sum() == pytest.approx(1.0)
