"""ER-AE: training, checkpoints (no pickle), resume, bad model directories, the reward loss."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from authormask.exceptions import InputError, InvalidParameterError
from authormask.models.erae import ERAEConfig, get_config, load_model, train_erae
from authormask.models.erae.training import embedding_reward_loss
from authormask.text.sentences import word_tokens

SENT = [tuple(word_tokens("The market fell sharply on Tuesday."))]


def _ratings(model):
    return next(model.ratings(model.vocab.encode(SENT).ids))


def test_model_directory_holds_tensors_and_json_only(tiny_erae_dir, tiny):
    names = sorted(p.name for p in tiny_erae_dir.rglob("*") if p.is_file())
    assert names == sorted(
        [
            "config.json",
            "vocab.json",
            "training_hashes.safetensors",
            "model.safetensors",
            "optimizer.safetensors",
            "state.json",
        ]
    )
    for p in tiny_erae_dir.rglob("*.safetensors"):
        assert load_file(str(p))  # plain tensors, readable without unpickling anything
    for p in tiny_erae_dir.rglob("*.json"):
        json.loads(p.read_text())
    meta = json.loads((tiny_erae_dir / "config.json").read_text())
    assert meta["config"]["vocab_size"] == tiny["vocab_size"]
    assert meta["embeddings"]["name"] == "glove-6b-50d"


def test_checkpoint_round_trip_gives_identical_ratings(tiny_erae_dir, tmp_path, tiny):
    a = load_model(tiny_erae_dir, device="cpu")
    copy = tmp_path / "copy"
    shutil.copytree(tiny_erae_dir, copy)
    b = load_model(copy, device="cpu")
    for (k, va), (_, vb) in zip(
        a.network.state_dict().items(), b.network.state_dict().items(), strict=True
    ):
        assert torch.equal(va, vb), k
    assert np.array_equal(_ratings(a), _ratings(b))
    assert a.vocab.tokens == b.vocab.tokens
    assert a.config == b.config
    assert _ratings(a).shape == (len(SENT[0]), tiny["vocab_size"])


def test_interrupted_training_resumes_to_the_same_weights(aaac_texts, glove_20k, tmp_path, tiny):
    config = get_config("cpu").replace(**(tiny | {"pretrain_epochs": 2, "reward_epochs": 1}))
    full = train_erae(
        aaac_texts, output=tmp_path / "full", embeddings=glove_20k, config=config, seed=3
    )
    assert [r.phase for r in full.history] == ["reconstruction", "reconstruction", "reward"]

    class Stop(Exception):
        pass

    def stop_after_two(record):
        if record.epoch == 2:
            raise Stop

    with pytest.raises(Stop):
        train_erae(
            aaac_texts,
            output=tmp_path / "cut",
            embeddings=glove_20k,
            config=config,
            seed=3,
            on_epoch=stop_after_two,
        )
    resumed = train_erae(
        aaac_texts, output=tmp_path / "cut", embeddings=glove_20k, config=config, seed=3
    )
    assert resumed.resumed_at_epoch == 2
    assert [r.epoch for r in resumed.history] == [1, 2, 3]
    a = load_model(tmp_path / "full", device="cpu")
    b = load_model(tmp_path / "cut", device="cpu")
    for (k, va), (_, vb) in zip(
        a.network.state_dict().items(), b.network.state_dict().items(), strict=True
    ):
        assert torch.allclose(va, vb, atol=1e-6), k


def test_validation_loss_is_recorded_per_epoch(tiny_erae_dir):
    state = json.loads((tiny_erae_dir / "checkpoint" / "state.json").read_text())
    hist = state["history"]
    assert [h["epoch"] for h in hist] == [1, 2]
    assert all(np.isfinite(h["valid_recon"]) and h["valid_recon"] > 0 for h in hist)
    assert hist[1]["train_embed"] != 0.0 and hist[0]["train_embed"] == 0.0


def test_training_lowers_the_reconstruction_loss(aaac_texts, glove_20k, tmp_path, tiny):
    config = get_config("cpu").replace(**(tiny | {"pretrain_epochs": 4, "reward_epochs": 0}))
    res = train_erae(aaac_texts, output=tmp_path / "m", embeddings=glove_20k, config=config)
    losses = [r.valid_recon for r in res.history]
    assert losses[-1] < losses[0]
    assert losses[0] < np.log(tiny["vocab_size"] + 3)  # better than uniform after one epoch


def test_other_settings_refuse_without_force(tiny_erae_dir, aaac_texts, glove_20k, tmp_path, tiny):
    out = tmp_path / "m"
    shutil.copytree(tiny_erae_dir, out)
    other = get_config("cpu").replace(**(tiny | {"hidden_size": 8}))
    with pytest.raises(InputError, match="`force`"):
        train_erae(aaac_texts, output=out, embeddings=glove_20k, config=other)
    res = train_erae(aaac_texts, output=out, embeddings=glove_20k, config=other, force=True)
    assert res.resumed_at_epoch == 0
    assert load_model(out).config.hidden_size == 8


def test_refuses_a_directory_with_other_files(aaac_texts, glove_20k, tmp_path, tiny):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="other files"):
        train_erae(
            aaac_texts,
            output=tmp_path,
            embeddings=glove_20k,
            config=get_config("cpu").replace(**tiny),
            force=True,
        )
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_corpus_too_small(glove_20k, tmp_path, tiny):
    with pytest.raises(InputError, match="too small"):
        train_erae(
            ["One sentence. Two sentences."],
            output=tmp_path / "m",
            embeddings=glove_20k,
            config=get_config("cpu").replace(**tiny),
        )
    few_words = " ".join(["The cat sat."] * 30)
    with pytest.raises(InputError, match="vocabulary"):
        train_erae(
            [few_words],
            output=tmp_path / "m2",
            embeddings=glove_20k,
            config=get_config("cpu").replace(**tiny),
        )


def test_bad_model_directories(tiny_erae_dir, tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_model(tmp_path / "missing")
    broken = tmp_path / "broken"
    shutil.copytree(tiny_erae_dir, broken)
    tokens = json.loads((broken / "vocab.json").read_text())
    (broken / "vocab.json").write_text(json.dumps(tokens[:-1]))
    with pytest.raises(InputError, match="does not match"):
        load_model(broken)
    notmodel = tmp_path / "notmodel"
    notmodel.mkdir()
    (notmodel / "config.json").write_text('{"format": "something-else"}')
    with pytest.raises(InputError, match="not an authormask ER-AE model"):
        load_model(notmodel)
    nockpt = tmp_path / "nockpt"
    shutil.copytree(tiny_erae_dir, nockpt)
    shutil.rmtree(nockpt / "checkpoint")
    with pytest.raises(InputError, match="no finished training epoch"):
        load_model(nockpt)
    wrong = tmp_path / "wrong"
    shutil.copytree(tiny_erae_dir, wrong)
    meta = json.loads((wrong / "config.json").read_text())
    meta["config"]["hidden_size"] = 32
    (wrong / "config.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match="do not match"):
        load_model(wrong)


def test_embedding_reward_loss_matches_equation_9_and_10():
    torch.manual_seed(0)
    vocab, n = 12, 4
    logits = torch.randn(n, vocab)
    targets = torch.tensor([3, 5, 7, 9])
    unit = torch.nn.functional.normalize(torch.randn(vocab, 6), dim=1)
    unit[:3] = 0.0  # specials have no vector: reward 0
    gen = torch.Generator().manual_seed(1)
    loss = embedding_reward_loss(
        logits, targets, unit, top_k=2, random_candidates=2, cap=0.85, first_word=3, generator=gen
    )
    # recompute by hand with the same random candidates
    gen = torch.Generator().manual_seed(1)
    rand = torch.randint(3, vocab, (n, 2), generator=gen)
    logp = torch.log_softmax(logits, dim=1)
    total = 0.0
    for i in range(n):
        cands = list(torch.topk(logits[i], 2).indices) + list(rand[i])
        for v in cands:
            gamma = min(max(float(unit[targets[i]] @ unit[v]), 0.0), 0.85)
            total -= float(logp[i, v]) * gamma
    assert float(loss) == pytest.approx(total / n, rel=1e-5)


def _first_token_reward(logits, unit, *, top_k, generator):
    """L_embed of one position whose target is token 0, top-k candidates only, cap 0.85."""
    return embedding_reward_loss(
        logits,
        torch.tensor([0]),
        unit,
        top_k=top_k,
        random_candidates=0,
        cap=0.85,
        first_word=0,
        generator=generator,
    )


def test_reward_loss_is_bounded_below_when_cosines_are_negative():
    """A candidate pointing away from the target must not earn anything for being made
    improbable: with Eq. 9 as printed, the loss falls without bound as its logit goes to -inf."""
    unit = torch.tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    gen = torch.Generator().manual_seed(0)
    losses = []
    for push in (0.0, -50.0, -500.0):
        logits = torch.tensor([[5.0, push, 0.0]])  # candidate 1: cosine -1 with the target
        losses.append(float(_first_token_reward(logits, unit, top_k=3, generator=gen)))
    assert min(losses) >= 0.0
    assert losses[2] == pytest.approx(losses[1], abs=1e-3)


def test_reward_is_capped_at_0_85():
    logits = torch.tensor([[1.0, 0.0, 0.0, 0.0, 0.0]])
    unit = torch.eye(5)
    gen = torch.Generator().manual_seed(0)
    # the top-1 candidate is the target itself: cosine 1, capped to 0.85
    loss = _first_token_reward(logits, unit, top_k=1, generator=gen)
    log_p0 = 1.0 - np.log(np.e + 4.0)
    assert float(loss) == pytest.approx(-0.85 * log_p0, rel=1e-6)


@pytest.mark.parametrize(
    "changes",
    [
        {"hidden_size": 0},
        {"learning_rate": -1.0},
        {"lambda_embed": -0.5},
        {"pretrain_epochs": 0, "reward_epochs": 0},
        {"reward_cap": 2.0},
    ],
)
def test_bad_config_values(changes):
    with pytest.raises(InvalidParameterError):
        ERAEConfig(**changes)


def test_paper_config_is_the_papers():
    cfg = get_config("paper")
    assert (cfg.hidden_size, cfg.num_layers, cfg.vocab_size, cfg.max_length) == (512, 2, 20_000, 50)
    assert (cfg.batch_size, cfg.learning_rate, cfg.top_k) == (128, 1e-3, 5)
    assert (cfg.lambda_recon, cfg.lambda_embed, cfg.reward_cap) == (1.0, 0.5, 0.85)
    with pytest.raises(InvalidParameterError, match="unknown ER-AE config"):
        get_config("gpu")


def test_vocabulary_comes_from_the_whole_corpus_when_training_on_a_subset(
    tiny_erae_dir, aaac_texts, tiny
):
    """A model trained on max_sentences has the corpus's vocabulary, so benchmarks that time a
    subset time the real output layer (the subset's own vocabulary was far smaller)."""
    from authormask.models.erae import Vocabulary
    from authormask.models.erae.training import prepare_segments

    segments = prepare_segments(aaac_texts, max_length=50)
    assert len(segments) > tiny["max_sentences"]
    expected = Vocabulary.build(segments, size=tiny["vocab_size"], min_words=1)
    assert load_model(tiny_erae_dir).vocab.tokens == expected.tokens


@pytest.mark.parametrize("layer", ["softmax", "adaptive"])
def test_output_layer_is_a_distribution_over_the_whole_vocabulary(layer):
    """Both output layers give log-probabilities that sum to 1 over all tokens, the fast training
    loss equals the negative log-likelihood of that distribution, and logits() has the same
    softmax (it is what the rating of Eq. 5 is computed from)."""
    from authormask.models.erae.network import ERAENetwork

    torch.manual_seed(3)
    config = ERAEConfig(
        hidden_size=12, latent_size=12, output_layer=layer, adaptive_cutoffs=(10, 60)
    )
    net = ERAENetwork(config, vocab_size=200, embedding_dim=8)
    ids = torch.randint(3, 200, (4, 7))
    lengths = torch.tensor([7, 5, 3, 1])
    for row, n in enumerate(lengths.tolist()):
        ids[row, n:] = 0
    states = net.states(ids, lengths, bos=2)
    logp = net.log_probs(states)
    assert logp.shape == (int(lengths.sum()), 200)
    assert torch.allclose(
        logp.double().exp().sum(dim=1), torch.ones(len(logp), dtype=torch.float64)
    )
    targets = ids[ids > 0]
    nll = torch.nn.functional.nll_loss(logp, targets)
    assert torch.allclose(net.reconstruction_loss(states, targets), nll, atol=1e-5)
    same = torch.softmax(net.logits(ids, lengths, bos=2).double(), dim=1)
    assert torch.allclose(same, logp.double().exp(), atol=1e-6)


def test_adaptive_cutoffs_that_do_not_fit_are_dropped():
    from authormask.models.erae.network import adaptive_cutoffs

    cfg = ERAEConfig(adaptive_cutoffs=(50, 300))
    assert adaptive_cutoffs(cfg, 1000) == [50, 300]
    assert adaptive_cutoffs(cfg, 200) == [50]
    assert adaptive_cutoffs(cfg, 40) == [20]
    # 12 cells: the second tail would get 12 // 16 = 0 dimensions
    assert adaptive_cutoffs(cfg.replace(hidden_size=12), 1000) == [50]


@pytest.mark.parametrize(
    "changes",
    [
        {"output_layer": "hierarchical"},
        {"adaptive_cutoffs": ()},
        {"adaptive_cutoffs": (500, 100)},
        {"adaptive_cutoffs": (0, 100)},
        {"adaptive_div": 0.5},
    ],
)
def test_bad_output_layer_settings(changes):
    with pytest.raises(InvalidParameterError):
        ERAEConfig(**changes)


def test_a_paper_style_softmax_model_trains_and_round_trips(aaac_texts, glove_20k, tmp_path, tiny):
    out = tmp_path / "softmax"
    config = get_config("cpu").replace(**(tiny | {"output_layer": "softmax", "reward_epochs": 1}))
    train_erae(aaac_texts, output=out, embeddings=glove_20k, config=config, seed=1)
    model = load_model(out, device="cpu")
    assert isinstance(model.network.output, torch.nn.Linear)
    r = _ratings(model)
    assert r.shape == (len(SENT[0]), tiny["vocab_size"])
    assert np.allclose(r.sum(axis=1), 1.0)


def test_ae_dp_epochs_are_all_reconstruction_epochs(tiny_aedp_dir):
    """AE-DP has no embedding reward, so no epoch of its history may say it trained with one."""
    state = json.loads((tiny_aedp_dir / "checkpoint" / "state.json").read_text())
    phases = [h["phase"] for h in state["history"]]
    assert len(phases) == 2
    assert phases == ["reconstruction", "reconstruction"]
    assert all(h["train_embed"] == 0.0 for h in state["history"])


@pytest.mark.parametrize("batch_size", [256, 5])
def test_ratings_equal_one_pass_over_each_batch(tiny_erae_dir, aaac_texts, batch_size):
    """Ratings are computed OUTPUT_ROWS rows at a time and their float64 softmax segment by
    segment, yet equal, bit for bit, the softmax of one output-layer pass over each whole batch
    (what they were before): a seeded release keeps its output."""
    from authormask.models.erae.model import OUTPUT_ROWS, _one_thread
    from authormask.models.erae.vocab import BOS
    from authormask.text.sentences import segment_text

    model = load_model(tiny_erae_dir, device="cpu")
    segments = [s for t in aaac_texts[:6] for s in segment_text(t, max_length=12).segments]
    segments.insert(3, ())  # an empty segment gets an empty rating
    ids = model.vocab.encode(segments).ids
    assert sum(len(s) for s in ids[:batch_size]) > 2 * OUTPUT_ROWS or batch_size < 10
    got = list(model.ratings(ids, batch_size=batch_size))
    bos, first = model.vocab.index[BOS], model.vocab.first_word
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    expected: dict[int, np.ndarray] = {}
    with torch.no_grad(), _one_thread():
        for start in range(0, len(order), batch_size):
            chunk = [i for i in order[start : start + batch_size] if ids[i]]
            if not chunk:
                continue
            lengths = torch.tensor([len(ids[i]) for i in chunk])
            batch = torch.zeros(len(chunk), int(lengths.max()), dtype=torch.long)
            for row, i in enumerate(chunk):
                batch[row, : len(ids[i])] = torch.tensor(ids[i])
            probs = torch.softmax(model.network.logits(batch, lengths, bos)[:, first:].double(), -1)
            offset = 0
            for i in chunk:
                expected[i] = probs[offset : offset + len(ids[i])].numpy()
                offset += len(ids[i])
    assert len(got) == len(ids)
    assert got[3].shape == (0, len(model.vocab.words))
    for i, rating in enumerate(got):
        if ids[i]:
            assert np.array_equal(rating, expected[i]), i


def test_ratings_worker_stops_when_the_caller_stops(tiny_erae_dir, aaac_texts):
    """The worker thread computing ratings ahead ends when the generator is closed early, and
    an error on it is raised in the caller's thread."""
    import threading

    from authormask.text.sentences import segment_text

    model = load_model(tiny_erae_dir, device="cpu")
    segments = [s for t in aaac_texts[:3] for s in segment_text(t, max_length=12).segments]
    ids = model.vocab.encode(segments).ids
    gen = model.ratings(ids)
    assert next(gen).shape[1] == len(model.vocab.words)
    gen.close()
    assert not any(t.name == "erae-ratings" for t in threading.enumerate())

    def broken(*args, **kwargs):
        raise RuntimeError("model failed")

    model.network.states = broken  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="model failed"):
        list(model.ratings(ids))
    assert not any(t.name == "erae-ratings" for t in threading.enumerate())
    assert [r.shape for r in model.ratings([(), ()])] == [(0, len(model.vocab.words))] * 2


def test_ratings_leave_the_model_device_before_numpy(tiny_erae_dir, aaac_texts, monkeypatch):
    """On a GPU the softmax is a CUDA tensor, which numpy cannot read until it is moved to the
    CPU (a review found `.numpy()` called on it directly: every ER-AE release would fail on a
    CUDA machine). Here the softmax answers like a device tensor: `.numpy()` refuses until
    `.cpu()` was called."""
    from authormask.models.erae import model as model_module
    from authormask.text.sentences import segment_text

    class OnDevice:
        def __init__(self, tensor: torch.Tensor) -> None:
            self.tensor = tensor

        def cpu(self) -> torch.Tensor:
            return self.tensor

        def numpy(self) -> np.ndarray:
            raise TypeError("can't convert cuda:0 device type tensor to numpy")

    real = torch.softmax
    monkeypatch.setattr(
        model_module.torch, "softmax", lambda *a, **k: OnDevice(real(*a, **k)), raising=True
    )
    model = load_model(tiny_erae_dir, device="cpu")
    segments = [s for t in aaac_texts[:2] for s in segment_text(t, max_length=12).segments]
    ratings = list(model.ratings(model.vocab.encode(segments).ids, batch_size=8))
    assert len(ratings) == len(segments) and all(np.isfinite(r).all() for r in ratings)
