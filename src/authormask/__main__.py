"""``python -m authormask``: the ``authormask`` command (:func:`authormask.cli.main.main`), for
an environment whose scripts folder is not on ``PATH``."""

from __future__ import annotations

import sys

from authormask.cli.main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
