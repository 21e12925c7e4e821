"""What the evaluations write: every protocol's files, rendered and then written together
atomically (:mod:`.files`), the self-contained report.html (:mod:`.html`), the shared text of
tables (:mod:`.tables`) and figures (:mod:`.plots`), each protocol's tables and plots
(:mod:`.fernandes2019`, :mod:`.bo2021`, :mod:`.pan`), and the one results cache every protocol
resumes from (:mod:`.cache`). A protocol's result writes its reports
(``result.write_reports(folder)``) through its module here."""

from authormask.evaluation.reports.cache import ResultsCache, cache_key
from authormask.evaluation.reports.files import (
    FRONTIER_FILE,
    REPORT_FILES,
    check_output_dir,
    run_files,
    write_report_files,
)
from authormask.evaluation.reports.html import HTML_FILE, run_html
from authormask.evaluation.reports.plots import png_bytes

__all__ = [
    "FRONTIER_FILE",
    "HTML_FILE",
    "REPORT_FILES",
    "ResultsCache",
    "cache_key",
    "check_output_dir",
    "png_bytes",
    "run_files",
    "run_html",
    "write_report_files",
]
