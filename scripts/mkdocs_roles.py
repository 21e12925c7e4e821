"""A mkdocs hook: the API reference shows Sphinx cross-reference roles as code.

The docstrings are numpydoc, whose cross-references are Sphinx roles (``:func:`~a.b.c```);
mkdocstrings renders them as written (``:func:<code>~a.b.c</code>``). This hook writes each as
the code it names, ``~`` dropping the dotted path as Sphinx does, so no raw role reaches a page.
"""

from __future__ import annotations

import re
from typing import Any

#: a role before a rendered code span: ``:func:<code>~authormask.core.api.release</code>``
ROLE = re.compile(
    r":(?:py:)?(?:func|meth|class|mod|attr|data|exc|obj|const|term|ref):"
    r"<code>(~?)([^<]*)</code>"
)
#: the same role where it was not rendered as code (inside a table cell or a signature line)
RAW = re.compile(r":(?:py:)?(?:func|meth|class|mod|attr|data|exc|obj|const):`(~?)([^`]*)`")


def _name(tilde: str, target: str) -> str:
    target = target.strip()
    return target.rsplit(".", 1)[-1] if tilde else target


def strip_roles(html: str) -> str:
    """``html`` with every Sphinx role written as the code it names.

    >>> strip_roles(':func:<code>~authormask.core.release</code> and :mod:<code>authormask</code>')
    '<code>release</code> and <code>authormask</code>'
    """
    html = ROLE.sub(lambda m: f"<code>{_name(m.group(1), m.group(2))}</code>", html)
    return RAW.sub(lambda m: f"<code>{_name(m.group(1), m.group(2))}</code>", html)


def on_page_content(html: str, **kwargs: Any) -> str:
    """mkdocs' hook: every page's HTML, roles written as code."""
    return strip_roles(html)
