"""Cutting a document into parts, so no document has to be held in memory whole.

A part ends right after the first whitespace character at or beyond :data:`PART_CHARS`
characters from its start (or at the end of the document), never between the ``\\r`` and the
``\\n`` of one line break, nor between a ``\\r`` and the characters that cleaning removes after
it (cleaning, :mod:`authormask.text.clean`, writes ``\\r\\n`` as one ``\\n``, and so a ``\\r``
and a ``\\n`` with only removed characters between them: ``\\r\\u200b\\n``). Tokens never
contain whitespace, so cutting there never splits a word (nor a contraction), and the rule
depends on the text alone, not on how it arrives. A run of :data:`MAX_PART_CHARS` characters
without any whitespace is cut at that length.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from authormask.text.clean import INVISIBLE_IN_LINE_BREAK

__all__ = ["MAX_PART_CHARS", "PART_CHARS", "PartSplitter", "split_parts"]

#: the length (in characters) after which a part ends at the next whitespace
PART_CHARS = 1 << 16
#: a part never exceeds this: a run of this many characters without whitespace is cut anyway
#: (no word is that long; it bounds memory on a file with no whitespace at all)
MAX_PART_CHARS = 1 << 20


@functools.cache
def _ws() -> re.Pattern[str]:
    """A whitespace character a part may end after: not a ``\\r`` before a ``\\n`` or before
    a character cleaning removes (which may lie between it and its ``\\n``), nor a ``\\r``
    whose next character has not arrived yet (compiled on first use: only a part longer than
    :data:`PART_CHARS` needs it; 5 ms of every start before, issue 50)."""
    return re.compile(f"[^\\S\\r]|\\r(?=[^\\n{INVISIBLE_IN_LINE_BREAK}])")


class PartSplitter:
    """Cut a text that arrives in pieces into parts by the rule of the module docstring."""

    def __init__(self) -> None:
        self._buf = ""
        self._scanned = PART_CHARS  # where the search for the next cut goes on

    def feed(self, text: str) -> Iterator[str]:
        """Add ``text``; yield every part that is now complete.

        Parameters
        ----------
        text
            The next text of the document.

        Yields
        ------
        str
            The parts now complete.
        """
        self._buf += text
        start = 0
        buf = self._buf
        while len(buf) - start > PART_CHARS:
            m = _ws().search(buf, start + self._scanned, start + MAX_PART_CHARS)
            if m is not None:
                cut = m.end()
            elif len(buf) - start >= MAX_PART_CHARS:
                cut = start + MAX_PART_CHARS
            else:
                # a last "\r" is looked at again when the character after it has arrived
                self._scanned = max(PART_CHARS, len(buf) - start - 1)
                break
            yield buf[start:cut]
            start = cut
            self._scanned = PART_CHARS
        self._buf = buf[start:]

    def close(self) -> Iterator[str]:
        """Yield the last part (if any).

        Yields
        ------
        str
            The last part.
        """
        if self._buf:
            part, self._buf = self._buf, ""
            yield part


def split_parts(text: str) -> Iterator[str]:
    """The parts of ``text`` (their concatenation is ``text``).

    Parameters
    ----------
    text
        The text.

    Yields
    ------
    str
        Its parts, in order.

    Examples
    --------
    >>> list(split_parts("a b"))
    ['a b']
    >>> [len(p) for p in split_parts("x" * PART_CHARS + "\\r\\nnext line")]
    [65538, 9]
    """
    splitter = PartSplitter()
    yield from splitter.feed(text)
    yield from splitter.close()
