"""train_erae reports its work through callbacks (the CLI draws the progress bar): the total it
announces is the number of batches it then trains, also when it resumes."""

from __future__ import annotations

from pathlib import Path

import pytest

from authormask.embeddings import Embeddings
from authormask.models.erae import get_config, train_erae


def test_total_batches_announced_are_trained(
    tmp_path: Path, aaac_texts: list[str], glove_20k: Embeddings, tiny: dict[str, int]
) -> None:
    config = get_config("cpu").replace(**tiny)  # one reconstruction, one reward epoch
    totals: list[int] = []
    steps: list[int] = []
    common = {"output": tmp_path / "m", "embeddings": glove_20k, "config": config, "seed": 0}

    def stop_after_the_first_epoch(record: object) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_erae(
            aaac_texts,
            progress=steps.append,
            on_total=totals.append,
            on_epoch=stop_after_the_first_epoch,
            **common,
        )
    assert len(totals) == 1 and totals[0] > 0 and totals[0] % 2 == 0
    per_epoch = totals[0] // 2
    assert steps == [1] * per_epoch
    # resuming announces and trains the second epoch only
    totals.clear()
    steps.clear()
    result = train_erae(aaac_texts, progress=steps.append, on_total=totals.append, **common)
    assert result.resumed_at_epoch == 1
    assert totals == [per_epoch] and len(steps) == per_epoch
