"""Model directories: tensors in safetensors files, configuration and vocabulary in JSON.

Nothing is pickled. Layout of ``MODEL_DIR``::

    config.json                 format, hyper-parameters, embeddings identity, corpus identity
    vocab.json                  the token list (specials first)
    training_hashes.safetensors 64-bit hashes of the training segments (overlap warnings)
    checkpoint/model.safetensors      weights after the last finished epoch
    checkpoint/optimizer.safetensors  Adam state, and the torch generator state
    checkpoint/state.json             epochs done, per-epoch history, numpy generator state

A checkpoint is written to ``checkpoint.new/`` and swapped in by renames, so an interruption
loses at most the epoch in progress.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from authormask._io import atomic_path, write_atomic
from authormask.exceptions import InputError

__all__ = [
    "FORMAT",
    "checkpoint_dir",
    "read_json",
    "read_tensors",
    "segment_hash",
    "write_checkpoint",
    "write_json",
    "write_tensors",
]

FORMAT = "authormask-erae/1"


def segment_hash(tokens: tuple[str, ...] | list[str]) -> int:
    """A signed 64-bit hash of a token segment (to detect training-set overlap).

    Parameters
    ----------
    tokens
        The segment's tokens.

    Returns
    -------
    int
        The first 8 bytes of the SHA-256 of the tokens, as a signed integer.
    """
    digest = hashlib.sha256("\x1f".join(tokens).encode("utf-8")).digest()[:8]
    return int(np.frombuffer(digest, dtype=np.int64)[0])


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as JSON, atomically (:func:`authormask._io.write_atomic`).

    Parameters
    ----------
    path
        The file to write.
    data
        The JSON-serialisable value.
    """
    write_atomic({path: json.dumps(data, indent=1) + "\n"}, force=True)


def read_json(path: Path, what: str) -> Any:
    """The JSON value of the file ``path``.

    Parameters
    ----------
    path
        The file to read.
    what
        What the file is, for the message.

    Returns
    -------
    Any
        The value.

    Raises
    ------
    InputError
        If the file is missing or unreadable.
    """
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{what} not found: {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{what} is unreadable ({path}): {exc}") from None


def write_tensors(path: Path, tensors: dict[str, torch.Tensor]) -> None:
    """Write ``tensors`` as a safetensors file, atomically (:func:`authormask._io.atomic_path`).

    Parameters
    ----------
    path
        The file to write.
    tensors
        Name -> tensor (copied to the CPU, contiguous).
    """
    with atomic_path(path) as tmp:
        save_file({k: v.detach().contiguous().cpu() for k, v in tensors.items()}, str(tmp))


def read_tensors(path: Path, what: str) -> dict[str, torch.Tensor]:
    """The tensors of the safetensors file ``path``.

    Parameters
    ----------
    path
        The file to read.
    what
        What the file is, for the message.

    Returns
    -------
    dict[str, torch.Tensor]
        Name -> tensor.

    Raises
    ------
    InputError
        If the file is missing or unreadable.
    """
    if not path.is_file():
        raise InputError(f"{what} not found: {path}")
    try:
        return dict(load_file(str(path)))
    except Exception as exc:  # safetensors raises its own error types
        raise InputError(f"{what} is unreadable ({path}): {exc}") from None


def checkpoint_dir(model_dir: Path) -> Path | None:
    """The newest complete checkpoint folder, or None.

    Parameters
    ----------
    model_dir
        The model's folder.

    Returns
    -------
    Path | None
        ``checkpoint`` (or ``checkpoint.old``) with its state and weights, or ``None``.
    """
    for name in ("checkpoint", "checkpoint.old"):
        folder = model_dir / name
        if (folder / "state.json").is_file() and (folder / "model.safetensors").is_file():
            return folder
    return None


def write_checkpoint(
    model_dir: Path,
    *,
    model: dict[str, torch.Tensor],
    optimizer: dict[str, torch.Tensor],
    state: dict[str, Any],
) -> None:
    """Write a complete checkpoint next to the old one, then swap it in.

    Parameters
    ----------
    model_dir
        The model's folder.
    model
        The network's tensors.
    optimizer
        The optimizer's tensors.
    state
        The training state (JSON-serialisable).
    """
    new = model_dir / "checkpoint.new"
    if new.exists():
        shutil.rmtree(new)
    new.mkdir()
    write_tensors(new / "model.safetensors", model)
    write_tensors(new / "optimizer.safetensors", optimizer)
    write_json(new / "state.json", state)
    current, old = model_dir / "checkpoint", model_dir / "checkpoint.old"
    if old.exists():
        shutil.rmtree(old)
    if current.exists():
        current.rename(old)
    new.rename(current)
    if old.exists():
        shutil.rmtree(old)
