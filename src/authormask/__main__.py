"""``python -m authormask``: the ``authormask`` command (:func:`authormask.cli.main.main`), for
an environment whose scripts folder is not on ``PATH``."""

from __future__ import annotations

from authormask.cli.main import run

if __name__ == "__main__":
    run()
