"""emp-write: content words perturbed in order, the rest written by a public language model."""

from __future__ import annotations

import inspect
import itertools
import json

import numpy as np
import pytest
from scipy import stats

from authormask.audit.case_spec import core_mechanism, core_noise_off
from authormask.audit.cases_earth_movers import emp_write_sampler, line_embeddings
from authormask.core import release
from authormask.embeddings import Embeddings
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms import written
from authormask.mechanisms.decoding import SequenceDecoder
from authormask.mechanisms.earth_movers import EarthMoversMechanism
from authormask.models.writer import MARKS, render_tokens
from authormask.text.canonical import SENTENCE_END
from authormask.text.stopwords import default_stopwords
from authormask.text.tokens import CLITICS

P_FLOOR = 1e-6  # statistical tests fail only below this p-value (fixed seeds: never flaky)

STORY = (
    "\u201cWell\u2026\u201d she said, looking at the DRAGON. \u201cI don\u2019t know!!!\u201d\n\n"
    "He\u2019d never seen one \u2014 not in all his years at the castle?! The end..."
)
# the same content words in the same order; other function words, marks, casing and layout
SAME_CONTENT = (
    "well: she SAID; looking to a dragon -- i do not KNOW. he had never seen one, not over all "
    "her years in a castle; an end"
)


@pytest.fixture(scope="module")
def mech(glove_20k: Embeddings):
    return core_mechanism(
        "emp-write", epsilon=8.0, content="words", embeddings=glove_20k, vocab_size=None
    )


def test_the_skeleton_is_not_released(mech, same_noise) -> None:
    """Two texts with the same content words in the same order have the same release: function
    words, marks, sentence boundaries, casing and layout reach nothing."""
    a = mech.prepare(STORY)
    b = mech.prepare(SAME_CONTENT)
    assert a.words == b.words and len(a.words) >= 8
    ra = release([STORY], mech, random_state=7).documents[0]
    rb = release([SAME_CONTENT], mech, random_state=7).documents[0]
    assert ra.text == rb.text and ra.words == rb.words
    # another content word changes the release (with one seed both may decode to one word:
    # at seed 7 over the word-like/2 vocabulary, dragon and horse both came out as "drag")
    changed = []
    for seed in (7, 8, 9):
        mine = release([STORY], mech, random_state=seed).documents[0]
        other = release([STORY.replace("DRAGON", "horse")], mech, random_state=seed).documents[0]
        changed.append(other.words != mine.words or other.text != mine.text)
    assert any(changed)


def test_noise_off_releases_the_content_words_in_order(glove_20k: Embeddings) -> None:
    off = core_noise_off("emp-write", content="words", embeddings=glove_20k, vocab_size=None)
    doc = release([STORY], off, random_state=1).documents[0]
    stop = default_stopwords()
    expected = [
        w
        for w in ("well", "said", "looking", "dragon", "know", "never", "seen", "one", "years")
        if w not in stop
    ]
    assert [w for w in doc.words if w in expected] == expected
    # the text is the words in order with the writer's tokens between them
    lowered = doc.text.lower()
    at = 0
    for w in doc.words:
        at = lowered.index(w, at) + len(w)
    assert doc.text[-1] in SENTENCE_END
    assert off.statement(seeded=True).epsilon is None


def test_nearest_decoder_draws_the_papers_noise(glove_20k: Embeddings) -> None:
    """With the paper's decoder, each content word is released exactly as Theorem 2's kernel
    releases it from the same generator: the noise is the paper's, drawn in word order."""
    m = core_mechanism(
        "emp-write",
        epsilon=9.0,
        content="words",
        embeddings=glove_20k,
        vocab_size=None,
        decoder="nearest",
    )
    unit = m.prepare(STORY)
    out = m.perturb([unit], [np.random.default_rng(3)])[0]
    kernel = EarthMoversMechanism(glove_20k, epsilon=9.0)
    rows = kernel.perturb_indices(
        [glove_20k.index_of(w) for w in unit.words], random_state=np.random.default_rng(3)
    )
    assert out.words == tuple(glove_20k.words[int(i)] for i in rows)


def test_end_to_end_law_on_the_line() -> None:
    """On the 1-d line {left=-0.2, zero=0, one=1, right=1.2} with the nearest decoder, one is
    released as right when its 1-d Laplace noise passes 1.1: P = exp(-0.1 eps) / 2 (the
    analytic law of Theorem 2 in one dimension)."""
    eps = 2.0
    m = core_mechanism(
        "emp-write",
        epsilon=eps,
        content="words",
        embeddings=line_embeddings(),
        vocab_size=None,
        stopwords="none",
        decoder="nearest",
    )
    n = 20_000
    rows = emp_write_sampler(m)("one", n, np.random.default_rng(11))
    right = int(np.sum(rows == 3))
    p = 0.5 * np.exp(-0.1 * eps)
    assert stats.binomtest(right, n, p).pvalue > P_FLOOR
    assert stats.binomtest(right, n, 0.5 * p).pvalue < P_FLOOR  # the test has power


def test_context_decoder_is_exact_viterbi() -> None:
    """The context decoder returns the maximum of log P_LM - eps * sum ||z - Vec(w)|| over every
    path through the candidates (brute force on a small vocabulary)."""
    rng = np.random.default_rng(5)
    words = tuple(f"w{i}" for i in range(30))
    emb = Embeddings("toy", "test", words, rng.normal(size=(30, 3)).astype(np.float32))
    classes = rng.integers(0, 3, size=30).astype(np.int16)
    transitions = np.log(rng.dirichlet(np.ones(3), size=4))
    within = np.log(rng.dirichlet(np.ones(30)))
    dec = SequenceDecoder(
        emb,
        epsilon=2.0,
        classes=classes,
        transitions=transitions,
        within=within,
        prior_name="random",
        candidates=4,
    )
    for trial in range(5):
        z = rng.normal(size=(4, 3))
        got = dec.decode_sequences([z])[0]
        cand = np.sort(dec.index.k_nearest(z, 4), axis=1)
        w64 = emb.vectors.astype(np.float64)

        def objective(path: tuple[int, ...], z: np.ndarray = z, w64: np.ndarray = w64) -> float:
            total, prev = 0.0, 3
            for i, r in enumerate(path):
                total += transitions[prev, classes[r]] + within[r]
                total -= 2.0 * float(np.linalg.norm(z[i] - w64[r]))
                prev = int(classes[r])
            return total

        best = max(objective(p) for p in itertools.product(*cand))
        assert objective(tuple(int(r) for r in got)) == pytest.approx(best, abs=1e-9), trial


def test_decoders_receive_the_noisy_vectors_only() -> None:
    """Post-processing by construction: the decoder's one method takes the noisy vectors (and
    a progress callback), and the writer the released words and a generator."""
    params = list(inspect.signature(SequenceDecoder.decode_sequences).parameters)
    assert params == ["self", "sequences", "progress"]
    from authormask.models.writer import SkeletonWriter

    assert list(inspect.signature(SkeletonWriter.write).parameters) == ["self", "words", "rng"]


def test_statement_is_public_and_names_the_writer(mech) -> None:
    a = release(["The dragon slept."], mech, random_state=1).statement.to_dict()
    b = release([STORY, STORY + STORY], mech, random_state=2).statement.to_dict()
    assert a == b
    text = json.dumps(a)
    assert "russian_literature" in text and a["model"]["tokens_sha256"]
    assert "number K of content words" in a["released_unchanged"]
    assert "dragon" not in text


def test_writer_writes_only_public_tokens(mech, glove_20k: Embeddings) -> None:
    doc = release([STORY * 3], mech, random_state=4).documents[0]
    tokens = mech.writer.write(doc.words, np.random.default_rng(0))
    stop = mech.preparer.function_words
    content = [t for t in tokens if t not in MARKS and t not in stop]
    assert content == list(doc.words)  # the released words, in order, and no other
    assert all(t in MARKS or t in stop for t in tokens if t not in doc.words)
    assert '"' not in doc.text and tokens[-1] in SENTENCE_END


def test_render_tokens() -> None:
    assert render_tokens(["i", "said", ",", "no", "?", "he", "did", "n't"]) == (
        "I said, no? He didn't"
    )
    assert render_tokens(["more", "."], first=False) == " More."


def test_documents_without_content_words_are_empty(mech) -> None:
    """K = 0 is released as an empty text, whatever else the document holds (refusing only a
    document with no word at all would release more than K)."""
    out = release(["and the of it", "... !!!", "unknownwordxyz!"], mech, random_state=1)
    assert [d.text for d in out.documents] == ["", "", ""]


def test_contractions_are_function_words(mech) -> None:
    assert mech.prepare("I can't, won't, ain't and shan't go. Cannot.").words == ("go", "cannot")


def test_a_unit_never_depends_on_its_batch(mech, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long document's units draw their noise and their writer's seed in order, unit by
    unit: the same seed gives the same release whatever was released before it (failed when
    every unit's noise was drawn before any unit was written)."""
    from authormask.core.stream import BATCH_UNITS

    monkeypatch.setattr(written, "UNIT_WORDS", 3)
    doc = "the dragon and the cat, a horse; sheep and goats run fast"
    before_short = "one two three"
    # units enough that the first unit of doc closes a batch and the others open the next (the
    # queue also holds one end marker per document)
    before_long = " ".join(["river stone mountain"] * (BATCH_UNITS - 2))
    a = release([before_short, doc], mech, random_state=7).documents[1]
    b = release([before_long, doc], mech, random_state=7).documents[1]
    assert (a.text, a.words) == (b.text, b.words)


def test_embeddings_far_from_the_writers_text(glove_20k: Embeddings) -> None:
    """Embeddings that share no word with the writer's training text still release (the writer
    falls back to no gap): a toy vocabulary."""
    rng = np.random.default_rng(0)
    words = (*(f"qq{i}" for i in range(30)), "the")
    emb = Embeddings("toy", "test", words, rng.normal(size=(31, 4)).astype(np.float32))
    m = core_mechanism("emp-write", epsilon=5.0, content="words", embeddings=emb, vocab_size=None)
    doc = release(["qq1 qq2 the qq3"], m, random_state=1).documents[0]
    assert len(doc.words) == 3 and doc.text[-1] in SENTENCE_END


def test_units_are_cut_by_content_words(mech, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(written, "UNIT_WORDS", 3)
    units = list(mech.prepare_parts(["the dragon and the cat, ", "a horse; sheep and goats"]))
    assert [u.words for u in units] == [("dragon", "cat", "horse"), ("sheep", "goats")]
    assert [u.first for u in units] == [True, False]


@pytest.mark.parametrize("weight", [0, -1.0, float("inf"), float("nan"), True])
def test_prior_weight_must_be_positive_and_finite(glove_20k: Embeddings, weight: float) -> None:
    with pytest.raises(InvalidParameterError, match="prior_weight"):
        core_mechanism(
            "emp-write", epsilon=8.0, embeddings=glove_20k, vocab_size=None, prior_weight=weight
        )


def test_the_pages_change_estimate_reads_the_released_words(glove_20k: Embeddings) -> None:
    """The writer's words are not changes: at a huge epsilon no word changes, at a tiny one
    nearly all do (position by position in the released content words)."""
    from authormask.evaluation.calibration import in_place_change_rate, probe_words

    probe = probe_words(glove_20k, 200)
    for eps, low, high in ((1e6, 0.0, 0.0), (0.5, 0.9, 1.0)):
        m = core_mechanism(
            "emp-write", epsilon=eps, content="words", embeddings=glove_20k, vocab_size=None
        )
        assert low <= in_place_change_rate(m, probe) <= high


# --- content="nouns": only the nouns of a public lexicon are released ----------------------------

NOUN_STORY = "The old dragon slept in the castle while the knight quietly sharpened his sword."
# the same nouns in the same order; every other word (verbs, adjectives, adverbs) different
SAME_NOUNS = "A young dragon roared near some castle; then one knight angrily polished a sword!"


@pytest.fixture(scope="module")
def nouns_mech(glove_20k: Embeddings):
    return core_mechanism(
        "emp-write", epsilon=8.0, content="nouns", embeddings=glove_20k, vocab_size=None
    )


def test_only_the_nouns_are_released(nouns_mech, same_noise) -> None:
    """Under content="nouns" two texts with the same nouns in the same order have the same
    release: verbs, adjectives and adverbs reach nothing, like function words."""
    a = nouns_mech.prepare(NOUN_STORY)
    assert a.words == ("dragon", "castle", "knight", "sword")
    assert nouns_mech.prepare(SAME_NOUNS).words == a.words
    ra = release([NOUN_STORY], nouns_mech, random_state=3).documents[0]
    rb = release([SAME_NOUNS], nouns_mech, random_state=3).documents[0]
    assert ra.text == rb.text and ra.words == rb.words
    nouns = nouns_mech.released[0]
    assert all(w in nouns for w in ra.words)  # the decoder never sends a word outside them


def test_noun_release_noise_off_keeps_the_nouns_and_writes_the_rest(glove_20k: Embeddings) -> None:
    off = core_noise_off("emp-write", content="nouns", embeddings=glove_20k, vocab_size=None)
    doc = release([NOUN_STORY], off, random_state=1).documents[0]
    assert doc.words == ("dragon", "castle", "knight", "sword")
    written_words = [w.strip(".,;:?!-").lower() for w in doc.text.split()]
    assert [w for w in written_words if w in doc.words] == list(doc.words)
    assert "slept" not in written_words and "quietly" not in written_words


def test_the_noun_writer_writes_only_words_of_the_vocabulary(
    nouns_mech, glove_20k: Embeddings
) -> None:
    """Under content="nouns" the writer writes verbs, adjectives and names of its own, but never
    a word the vocabulary lacks: the training text's names ("ivanovna", "arkadyevitch") are not
    written into a release (they were, from gaps copied whole)."""
    writer = nouns_mech.writer
    nouns = sorted(nouns_mech.released[0])
    rng = np.random.default_rng(11)
    stop = nouns_mech.preparer.function_words | writer.function_words
    written_tokens = []
    for _ in range(300):
        words = [nouns[int(i)] for i in rng.integers(len(nouns), size=12)]
        written_tokens.extend(writer.write(words, rng))
    foreign = {t for t in written_tokens if t not in MARKS and t not in stop and t not in glove_20k}
    assert not foreign, sorted(foreign)[:20]
    assert len(written_tokens) > 300 * 24  # gaps are written, not only the nouns


@pytest.mark.parametrize("which", ["nouns", "words"])
def test_a_written_text_never_begins_with_a_mark(which: str, nouns_mech, mech) -> None:
    """The first gap of a text is drawn from the gaps seen after a document start or a cut in
    the training text, and a cut (a word without a vector, often a name) is often followed by a
    mark or a clitic: such gaps made releases begin ", Of balthazar, ..." or "'s ...". A text's
    first token is a word."""
    writer = (nouns_mech if which == "nouns" else mech).writer
    pool = sorted(nouns_mech.released[0]) if which == "nouns" else writer.embeddings.words[:5000]
    words = [
        w for w in pool if w in writer.embeddings and w.isalpha() and w not in writer.function_words
    ]
    rng = np.random.default_rng(5)
    first, gapped = [], 0
    for _ in range(5000):
        picked = [words[int(i)] for i in rng.integers(len(words), size=3)]
        first.append(writer.write(picked, rng)[0])
        gapped += first[-1] != picked[0]
    bad = {t for t in first if t in MARKS or t in CLITICS}
    assert not bad, sorted(bad)
    assert gapped > 1000  # the first gap is still drawn, not always empty


def test_noun_statement_names_the_lexicon(nouns_mech, mech) -> None:
    s = nouns_mech.statement(seeded=False).to_dict()
    text = json.dumps(s)
    assert nouns_mech.released[1] in text and "noun lexicon" in text
    assert "verbs" in s["policies"]["writer"] and "outside the noun lexicon" in text
    assert "by word, not by use" in text and "verbs" in s["released_unchanged"]
    assert "noun" not in json.dumps(mech.statement(seeded=False).to_dict()["parameters"])


def test_the_nearest_decoder_under_nouns_sends_the_nearest_noun(glove_20k: Embeddings) -> None:
    """Under content="nouns" the nearest decoder releases the lexicon noun nearest to the noisy
    vector (not the nearest word of any kind): checked by brute force in float64."""
    m = core_mechanism(
        "emp-write",
        epsilon=3.0,
        content="nouns",
        decoder="nearest",
        embeddings=glove_20k,
        vocab_size=None,
    )
    nouns = m.released[0]
    unit = m.prepare(NOUN_STORY)
    rows = [glove_20k.index_of(w) for w in unit.words] * 50
    z = m.kernel.noisy_vectors(rows, random_state=np.random.default_rng(2))
    (out,) = m.kernel.snap_sequences([z])
    ok = np.array([w in nouns for w in glove_20k.words])
    w64 = glove_20k.vectors.astype(np.float64)
    d = (w64 * w64).sum(axis=1)[None, :] - 2.0 * z @ w64.T  # + ||z||^2: the same per row
    d[:, ~ok] = np.inf
    assert np.array_equal(out, np.argmin(d, axis=1))
    assert all(glove_20k.words[int(i)] in nouns for i in out)
    assert "nearest" in m.kernel.describe()


def test_a_writer_trained_for_other_words_is_refused(nouns_mech, mech) -> None:
    with pytest.raises(InvalidParameterError, match="other released words"):
        written.EMPWrite(
            embeddings=mech.embeddings,
            epsilon=8.0,
            function_words=default_stopwords(),
            function_words_description="english",
            writer=mech.writer,
            released=nouns_mech.released,
        )


def _random_decoder(glove_20k, rng: np.random.Generator, k: int) -> SequenceDecoder:
    """A context decoder of 4 random classes, random transitions and a random prior."""
    return SequenceDecoder(
        glove_20k,
        epsilon=5.0,
        classes=rng.integers(0, 4, size=len(glove_20k)).astype(np.int16),
        transitions=np.log(rng.dirichlet(np.ones(4), size=5)),
        within=np.log(rng.dirichlet(np.ones(len(glove_20k)))),
        prior_name="random",
        candidates=k,
    )


def test_context_decoder_memory_is_bounded_per_chunk(glove_20k) -> None:
    """The context decoder never holds every position's candidate vectors at once (issue 50:
    they were 25 KB a noun, 3.4 GB for a 1M-character text): decoding 24,000 positions with
    32 candidates allocates far less than the 307 MB those would be, and gives, position by
    position, the rows a decode of each piece of the same sequences gives."""
    import tracemalloc

    rng = np.random.default_rng(11)
    n, k = 24_000, 32
    dec = _random_decoder(glove_20k, rng, k)
    z = glove_20k.vectors[rng.integers(0, len(glove_20k), size=n)].astype(np.float64)
    z += rng.normal(scale=0.3, size=z.shape)
    pieces = [z[: n // 2], z[n // 2 :]]
    dec.decode_sequences([z[:10]])  # the search index and kernels built before measuring
    tracemalloc.start()
    try:
        rows = dec.decode_sequences(pieces)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    whole = n * k * glove_20k.dimension * 8
    assert peak < whole / 4, (peak, whole)
    alone = [dec.decode_sequences([p])[0] for p in pieces]
    for got, want in zip(rows, alone, strict=True):
        assert np.array_equal(got, want)


def test_context_decoder_holds_one_group_of_sequences_at_a_time(glove_20k) -> None:
    """A batch of many sequences is decoded a group of at most ``_CHUNK`` positions at a time
    (issue 50: the candidates and scores of a whole batch, about 2 KB a position, made a long
    text's peak grow with its batches past its first tenth's): 40 sequences of 600 positions
    take about the memory 7 of them take, and each decodes to the rows it decodes to alone."""
    import tracemalloc

    from authormask.mechanisms import decoding

    rng = np.random.default_rng(12)
    dec = _random_decoder(glove_20k, rng, 32)
    rows = rng.integers(0, len(glove_20k), size=(40, 600))
    seqs = [glove_20k.vectors[r].astype(np.float64) + rng.normal(0, 0.3, (600, 50)) for r in rows]
    assert 7 * 600 > decoding._CHUNK  # a group holds at most 7 of them
    dec.decode_sequences(seqs[:7])  # the search index and the kernel built before measuring

    def peak(batch):
        tracemalloc.start()
        try:
            dec.decode_sequences(batch)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(seqs) < 1.5 * peak(seqs[:7])
    together = dec.decode_sequences(seqs[:12])
    for got, seq in zip(together, seqs[:12], strict=True):
        assert np.array_equal(got, dec.decode_sequences([seq])[0])


def test_a_batch_of_units_is_perturbed_a_group_at_a_time(
    mech, monkeypatch: pytest.MonkeyPatch
) -> None:
    """emp-write draws, decodes and writes a batch's units in groups of at most UNIT_WORDS
    content words (issue 50: the batch's noisy vectors were all held at once), with the same
    draws as the batch's units released one by one."""
    monkeypatch.setattr(written, "UNIT_WORDS", 4)
    units = list(mech.prepare_parts(["the dragon and the cat, a horse; sheep and goats run"] * 5))
    assert len(units) >= 5
    seen: list[int] = []
    snap = mech.kernel.snap_sequences

    def spy(noisy, **kwargs):
        seen.append(sum(len(z) for z in noisy))
        return snap(noisy, **kwargs)

    monkeypatch.setattr(mech.kernel, "snap_sequences", spy)
    together = mech.perturb(units, [np.random.default_rng(i) for i in range(len(units))])
    assert len(seen) > 1 and max(seen) <= 4
    alone = [mech.perturb([u], [np.random.default_rng(i)])[0] for i, u in enumerate(units)]
    assert [(o.text, o.words) for o in together] == [(o.text, o.words) for o in alone]
    with pytest.raises(ValueError, match="generators"):
        mech.perturb(units, [np.random.default_rng(0)])


def test_a_documents_units_hold_the_vocabularys_own_words(mech, glove_20k: Embeddings) -> None:
    """A unit's content words are the vocabulary's own strings, one object per word however
    often it occurs (issue 50: a long document's units are held until it is released, and
    each occurrence held a lower-cased string of its own, about 60 bytes a word)."""
    text = "The Dragon and the dragon met a DRAGON; the river, the River and a cat. " * 40
    units = list(mech.prepare_parts([text]))
    words = [w for u in units for w in u.words]
    assert words.count("dragon") == 120 and words.count("river") == 80
    assert all(w is glove_20k.words[glove_20k.index_of(w)] for w in words)
    assert len({id(w) for w in words}) == len(set(words))


def test_the_words_never_sent_are_flagged_as_they_are_listed(nouns_mech, glove_20k) -> None:
    """Under content="nouns" the kernel is handed the words no content position holds twice,
    as words and as one flag per vocabulary word (so that the decoder's prior does not test
    each word again): the two say the same, and the prior made from either is the same."""
    from authormask.mechanisms.decoding import frequency_log_prior

    kernel = nouns_mech.kernel
    never, rows = kernel._never_sent, kernel._never_sent_rows
    assert rows is not None and rows.shape == (len(glove_20k),) and rows.any()
    assert rows.tolist() == [w in never for w in glove_20k.words]
    by_words = frequency_log_prior(glove_20k.words, excluded=never)
    by_rows = frequency_log_prior(glove_20k.words, excluded=never, excluded_rows=rows)
    assert np.array_equal(by_words, by_rows)
    with pytest.raises(ValueError, match="one flag per word"):
        frequency_log_prior(glove_20k.words, excluded_rows=rows[:-1])


def test_making_ready_loads_the_viterbi_kernel_and_the_search(
    glove_20k: Embeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make_ready`` with a long release's work loads what the context decoder decodes with
    (the compiled Viterbi, the search's kernels), as a release does in a second thread while
    names are read (issue 50: the first batch waited for them, one core idle); a short one's
    loads nothing (a sentence's release imports no numba)."""
    from authormask.embeddings.neighbours import NearestWordIndex
    from authormask.mechanisms import decoding

    monkeypatch.setattr(decoding, "_VITERBI", [])  # as in a new process
    mech = core_mechanism("emp-write", epsilon=7.0, embeddings=glove_20k, vocab_size=None)
    decoder = mech.kernel.sequence_decoder
    decoder._index = NearestWordIndex(glove_20k.vectors)  # its own: nothing loaded yet
    mech.make_ready(100)
    assert decoder.index._backend is None and not decoding._VITERBI
    mech.make_ready(decoding.SMALL_VITERBI + 1)
    assert decoding._VITERBI and decoder.index._backend == "fused"
    assert decoder.index._int16 is None  # k_nearest reads no integer words


def test_the_viterbi_kernel_is_compiled_once_whatever_threads_ask(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two threads asking for the compiled Viterbi at once (a release making it ready while
    another decodes) get one kernel, compiled once (a review found two, and the warning filters
    of one compile put back by the other)."""
    import threading

    from authormask.mechanisms import decoding

    monkeypatch.setattr(decoding, "_VITERBI", [])
    got: list[object] = []
    start = threading.Barrier(3)

    def ask() -> None:
        start.wait()
        got.append(decoding.viterbi_kernel())

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(decoding._VITERBI) == 1 and all(k is decoding._VITERBI[0] for k in got)
