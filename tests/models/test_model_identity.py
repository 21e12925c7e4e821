"""A trained ER-AE model's identity (issue 31 E): a read-only property giving a frozen
:class:`~authormask.models.erae.model.ModelIdentity`, whose ``to_dict()`` is the dict the former
``identity()`` method returned, key for key and in the same order (cache keys and statements
read it)."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json

import pytest

from authormask.models.erae import load_model
from authormask.models.erae.model import ERAEModel, ModelIdentity

#: the keys of the former ``ERAEModel.identity()`` dict, in its order
FORMER_KEYS = (
    "path",
    "config",
    "embedding_reward",
    "vocab_size",
    "vocab_sha256",
    "weights_sha256",
    "embeddings",
    "training_corpus",
    "epochs_trained",
)


def test_identity_is_a_read_only_property(tiny_erae_dir) -> None:
    model = load_model(tiny_erae_dir, device="cpu")
    assert isinstance(inspect.getattr_static(ERAEModel, "identity"), property)
    assert isinstance(model.identity, ModelIdentity) and not callable(model.identity)
    with pytest.raises(AttributeError):
        model.identity = model.identity  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.identity.weights_sha256 = "0"  # type: ignore[misc]


def test_to_dict_is_the_former_dict_read_from_the_model_folder(tiny_erae_dir, tiny) -> None:
    """The expected values are read from the folder's files (config.json, vocab.json and the
    checkpoint's state.json), not from the code that builds the identity."""
    meta = json.loads((tiny_erae_dir / "config.json").read_text())
    tokens = json.loads((tiny_erae_dir / "vocab.json").read_text())
    state = json.loads((tiny_erae_dir / "checkpoint" / "state.json").read_text())
    model = load_model(tiny_erae_dir, device="cpu")

    got = model.identity.to_dict()
    assert tuple(got) == FORMER_KEYS
    assert got == {
        "path": str(tiny_erae_dir),
        "config": meta["config"]["name"],
        "embedding_reward": meta["config"]["lambda_embed"] > 0,
        "vocab_size": tiny["vocab_size"],
        "vocab_sha256": hashlib.sha256("\n".join(tokens).encode()).hexdigest()[:16],
        "weights_sha256": state["weights_sha256"],
        "embeddings": meta["embeddings"]["name"],
        "training_corpus": meta["corpus"],
        "epochs_trained": tiny["pretrain_epochs"] + tiny["reward_epochs"],
    }
    assert got["embeddings"] == "glove-6b-50d" and got["training_corpus"]["name"] == "aaac-a"
    assert got["vocab_sha256"] == meta["vocab_sha256"]
    assert state["epochs_done"] == got["epochs_trained"]
    json.dumps(got)  # plain JSON


def test_the_identity_cannot_change_the_model(tiny_erae_dir) -> None:
    """The training corpus in the identity (and in its dict) is a copy of the model's."""
    model = load_model(tiny_erae_dir, device="cpu")
    model.identity.to_dict()["training_corpus"]["name"] = "changed"
    model.identity.training_corpus["name"] = "changed"
    assert model.metadata["corpus"]["name"] == "aaac-a"
    assert model.identity == model.identity and hash(model.identity) == hash(model.identity)
