"""The packaged spaCy pipeline loads without torch (issue 50: thinc imports torch when it is
installed, two of spaCy's three seconds of import and 200 MB), and hiding torch from thinc hides
it from no one else. (The entity recogniser runs without spaCy: ``tests/text/ner``.)"""

from __future__ import annotations

from typing import Any


def test_torch_imports_as_usual_beside_and_after_the_pipeline(run_python: Any) -> None:
    """A thread importing torch while spaCy is imported gets torch; so does code after it."""
    out = run_python(
        """
        import threading
        from authormask.text import pipeline
        got = {}
        def encoder():
            import torch
            got["thread"] = torch.zeros(2).sum().item()
        t = threading.Thread(target=encoder)
        t.start()
        pipeline.load_pipeline(exclude=["parser"], purpose="a test")
        t.join()
        import torch
        import sys
        print(got["thread"], torch.ones(3).sum().item(), len(sys.meta_path) > 0)
        print(any(type(f).__name__ == "_NoTorchForThinc" for f in sys.meta_path))
        """
    )
    values, finder_left = out.strip().splitlines()
    assert values == "0.0 3.0 True"
    assert finder_left == "False"  # the finder is gone once spaCy is imported
