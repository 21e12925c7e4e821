"""One convention for ``identity`` (issue 31 E): on the embeddings, a trained model, a source and
the entity recogniser it is a read-only property, never a method, and
:func:`~authormask.evaluation.releases.identity_of` reads any of them as JSON. Before, an ER-AE
model's ``identity`` was a method: ``model.identity.to_dict()`` raised AttributeError."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from authormask.core.history import Digests
from authormask.core.sources import FileSource, StdinSource, TextSource
from authormask.embeddings import Embeddings
from authormask.evaluation.protocols.bo2021.runner import _identity
from authormask.evaluation.releases import HasIdentity, identity_of, public_parameters
from authormask.text.entities import Recogniser, public_lists

TOY = Embeddings("toy", "test", ("the", "cat", "sat"), np.eye(3, dtype=np.float32))


def _holders(tmp_path: Path, tiny_erae_dir: Path) -> dict[str, Any]:
    from authormask.models.erae import load_model

    doc = tmp_path / "doc.txt"
    doc.write_text("The cat sat.\n", encoding="utf-8")
    file_source = FileSource.of(doc)
    return {
        "embeddings": TOY,
        "erae model": load_model(tiny_erae_dir, device="cpu"),
        "file source": file_source,
        "text source": TextSource("t", "t", 3, "abc", (1, 2)),
        "stdin source": StdinSource("-", "-", 0),
        "digested source": Digests(b"k" * 32).sources([file_source])[0],
        "recogniser": Recogniser(stopwords=frozenset()),
        "public lists": public_lists(),
    }


def test_every_identity_is_a_property_and_reads_as_json(tmp_path: Path, tiny_erae_dir) -> None:
    for what, holder in _holders(tmp_path, tiny_erae_dir).items():
        found = inspect.getattr_static(type(holder), "identity")
        assert isinstance(found, property), what
        assert not callable(holder.identity), what
        assert isinstance(holder, HasIdentity), what
        json.dumps(identity_of(holder))  # JSON, whatever the holder


def test_identity_of_reads_a_dataclass_by_its_dict_and_anything_else_as_it_is(
    tmp_path: Path, tiny_erae_dir
) -> None:
    holders = _holders(tmp_path, tiny_erae_dir)
    assert identity_of(TOY) == TOY.identity.to_dict() and identity_of(TOY)["name"] == "toy"
    file_source = holders["file source"]
    stat = (tmp_path / "doc.txt").stat()
    assert identity_of(file_source) == (stat.st_dev, stat.st_ino) == file_source.identity
    assert identity_of(holders["digested source"]) == (stat.st_dev, stat.st_ino)
    assert identity_of(holders["text source"]) == (1, 2)
    assert identity_of(holders["recogniser"]).startswith("spaCy ")


def test_a_model_parameter_reads_as_its_identity(tiny_erae_dir) -> None:
    """The path that raised AttributeError: a model value in the parameters of a release, read
    by ``identity.to_dict()``, :func:`identity_of`, :func:`public_parameters` and the BO2021
    cache key, all alike."""
    from authormask.models.erae import load_model

    model = load_model(tiny_erae_dir, device="cpu")
    expected = model.identity.to_dict()
    assert expected["weights_sha256"] and expected["training_corpus"]["name"] == "aaac-a"
    assert identity_of(model) == expected
    key = public_parameters({"model": model, "embeddings": TOY, "epsilon": 5.0, "k": None})
    assert key == {
        "model": expected,
        "embeddings": TOY.identity.to_dict(),
        "epsilon": 5.0,
        "k": None,
    }
    assert _identity(model) == expected and _identity(TOY) == TOY.identity.to_dict()
    assert _identity(5.0) == 5.0 and _identity("keep") == "keep"
    json.dumps(key)


@pytest.mark.parametrize("value", [5.0, "keep", None, ("a", "b"), frozenset({"x"}), TOY.words])
def test_values_without_an_identity_are_not_identity_holders(value: Any) -> None:
    assert not isinstance(value, HasIdentity)
