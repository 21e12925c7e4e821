"""report.html: one self-contained page per evaluation run, written beside table.md by every
protocol (:func:`authormask.evaluation.reports.fernandes2019.write_reports`,
:func:`authormask.evaluation.protocols.bo2021.write_release_reports`,
:func:`authormask.evaluation.reports.pan.write_pan_reports`).

The page holds the run's configuration, the tables of table.md rendered as HTML tables, every
PNG of the run embedded as a ``data:image/png;base64`` image and the run's public privacy
statements; it loads nothing from anywhere (no script, no stylesheet, no font, no link to
another file) and so reads the same offline, mailed or archived. Every text is escaped with
:func:`html.escape`: corpus, attacker and mechanism names and statements are data, never
markup."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from html import escape
from typing import Any

__all__ = ["HTML_FILE", "markdown_to_html", "report_html", "run_html"]

#: the page's file name, beside table.md
HTML_FILE = "report.html"

_STYLE = """
body { font-family: sans-serif; max-width: 80rem; margin: 1.5rem auto; padding: 0 1rem;
       line-height: 1.4; color: #222; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #bbb; padding: 0.25rem 0.5rem; text-align: left;
         vertical-align: top; }
th { background: #eee; }
pre { background: #f6f6f6; border: 1px solid #ddd; padding: 0.6rem; overflow-x: auto;
      font-size: 0.8rem; white-space: pre-wrap; }
img { max-width: 100%; height: auto; border: 1px solid #ddd; }
"""

_IMAGE = re.compile(r"^!\[(?P<alt>[^\]]*)\]\((?P<name>[^)]*)\)$")


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _figure(name: str, png: bytes, alt: str | None = None) -> str:
    return (
        f'<figure><img src="{_data_uri(png)}" alt="{escape(alt or name)}">'
        f"<figcaption>{escape(name)}</figcaption></figure>"
    )


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _is_rule(line: str) -> bool:
    return bool(line.strip()) and set(line.strip()) <= set("|-: ")


def markdown_to_html(
    markdown: str, images: Mapping[str, bytes] | None = None
) -> tuple[str, set[str]]:
    """The Markdown the report writers produce (headings, paragraphs, ``- `` lists, pipe
    tables, ``![alt](file.png)`` images) as escaped HTML; an image named in ``images`` is
    embedded as a data URI, any other is left as its alt text.

    Parameters
    ----------
    markdown
        The Markdown.
    images
        Image name -> PNG bytes, or ``None``.

    Returns
    -------
    tuple[str, set[str]]
        The HTML, and the names of the images it embedded.
    """
    images = images or {}
    out: list[str] = []
    used: set[str] = set()
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if not line.strip():
            i += 1
        elif line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")), 6)
            out.append(f"<h{level}>{escape(line[level:].strip())}</h{level}>")
            i += 1
        elif line.lstrip().startswith("|"):
            rows: list[str] = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(lines[i])
                i += 1
            header, body = _cells(rows[0]), [r for r in rows[1:] if not _is_rule(r)]
            out.append("<table>")
            out.append("<thead><tr>" + "".join(f"<th>{escape(c)}</th>" for c in header))
            out.append("</tr></thead><tbody>")
            for row in body:
                out.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in _cells(row)))
                out.append("</tr>")
            out.append("</tbody></table>")
        elif line.startswith("- "):
            out.append("<ul>")
            while i < len(lines) and lines[i].startswith("- "):
                out.append(f"<li>{escape(lines[i][2:].strip())}</li>")
                i += 1
            out.append("</ul>")
        elif (image := _IMAGE.match(line.strip())) is not None:
            name = image["name"]
            if name in images:
                out.append(_figure(name, images[name], image["alt"]))
                used.add(name)
            else:
                out.append(f"<p>{escape(image['alt'])}</p>")
            i += 1
        else:
            paragraph: list[str] = []
            while i < len(lines) and lines[i].strip() and not _block_start(lines[i]):
                paragraph.append(lines[i].strip())
                i += 1
            out.append(f"<p>{escape(' '.join(paragraph))}</p>")
    return "\n".join(out), used


def _block_start(line: str) -> bool:
    s = line.lstrip()
    return (
        line.startswith(("#", "- ")) or s.startswith("|") or _IMAGE.match(line.strip()) is not None
    )


def _pre(data: Any) -> str:
    text = data if isinstance(data, str) else json.dumps(data, indent=2, ensure_ascii=False)
    return f"<pre>{escape(text)}</pre>"


def report_html(
    *,
    title: str,
    markdown: str,
    config: Mapping[str, Any],
    images: Mapping[str, bytes],
    statements: Mapping[str, Any],
) -> str:
    """The page: ``title``, the run's ``config`` (JSON), ``markdown`` (table.md; its own
    top-level ``# `` title is dropped for ``title``) as HTML, every PNG of ``images`` (name ->
    bytes) not already placed by the markdown, and each public privacy statement (key ->
    statement dict) in a ``<pre>``. Self-contained: no script and no external resource.

    Parameters
    ----------
    title
        The page's title.
    markdown
        table.md.
    config
        The run's config.
    images
        Image name -> PNG bytes.
    statements
        The public privacy statements by key.

    Returns
    -------
    str
        The page.
    """
    lines = markdown.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    body, used = markdown_to_html("\n".join(lines), images)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{escape(title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{escape(title)}</h1>",
        "<h2>Configuration</h2>",
        _pre(dict(config)),
        '<section class="tables">',
        body,
        "</section>",
    ]
    rest = [name for name in images if name not in used]
    if rest:
        parts.append("<h2>Figures</h2>")
        parts += [_figure(name, images[name]) for name in rest]
    parts.append("<h2>Privacy statements</h2>")
    if statements:
        for key, statement in statements.items():
            parts += [f"<h3>{escape(str(key))}</h3>", _pre(statement)]
    else:
        parts.append("<p>No released text in this run: no privacy statement.</p>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def run_html(
    files: Mapping[str, str | bytes],
    config: Mapping[str, Any],
    statements: Mapping[str, Any],
    *,
    title: str | None = None,
) -> str:
    """report.html of a run whose other report ``files`` (name -> text or bytes; table.md and
    the PNGs) are rendered: ``title`` (default: table.md's ``# `` heading), ``config``, the
    tables, every PNG embedded and the ``statements`` (:func:`report_html`).

    Parameters
    ----------
    files
        The run's other report files, name -> text or bytes.
    config
        The run's config.
    statements
        The public privacy statements by key.
    title
        The page's title, or ``None`` for table.md's heading.

    Returns
    -------
    str
        The page.
    """
    markdown = str(files.get("table.md", ""))
    if title is None:
        first = markdown.splitlines()[0] if markdown else ""
        title = first.removeprefix("# ") if first.startswith("# ") else "authormask evaluate"
    images = {n: d for n, d in files.items() if isinstance(d, bytes) and n.endswith(".png")}
    return report_html(
        title=title, markdown=markdown, config=config, images=images, statements=statements
    )
