"""What the evaluations write, reading their results (never imported by a protocol): one way to
report any protocol's result (:mod:`.writers`: :func:`write_reports`, :func:`markdown`), every
run's files, rendered and then written together atomically (:mod:`.files`), the
self-contained report.html (:mod:`.html`), the shared text of tables (:mod:`.tables`), the
headline section (:mod:`.headline`) and figures (:mod:`.plots`), and each protocol's tables and
plots (:mod:`.fernandes2019`, :mod:`.bo2021`, :mod:`.pan`). The results cache every protocol
resumes from is not a report: :mod:`authormask.evaluation.cache`."""

from authormask.evaluation.reports.files import (
    FRONTIER_FILE,
    REPORT_FILES,
    check_output_dir,
    run_files,
    write_report_files,
)
from authormask.evaluation.reports.html import HTML_FILE, run_html
from authormask.evaluation.reports.plots import png_bytes
from authormask.evaluation.reports.writers import RESULT_TYPES, markdown, terminal, write_reports

__all__ = [
    "FRONTIER_FILE",
    "HTML_FILE",
    "REPORT_FILES",
    "RESULT_TYPES",
    "check_output_dir",
    "markdown",
    "png_bytes",
    "run_files",
    "run_html",
    "terminal",
    "write_report_files",
    "write_reports",
]
