"""spaCy's tokenizer, as the packaged pipeline (``en_core_web_md`` 3.7.1 run by spaCy 3.8)
configures it, in plain Python: the same tokens, trailing spaces, offsets and special-case
norms, without importing spaCy (0.8 s).

The rules (prefix, suffix and infix expressions, the URL expression, the special cases) are
read once off a loaded spaCy tokenizer by :meth:`TokenizerRules.from_spacy` and kept as JSON;
:class:`Tokenizer` applies them with :mod:`re`, the module spaCy compiles them with. The
algorithm follows spaCy's ``Tokenizer`` (``spacy/tokenizer.pyx``) step by step:

1. The text is cut into runs of whitespace and of other characters (``str.isspace``). A run of
   whitespace that follows a token and starts with ``' '`` gives that one space to the token
   (its trailing space); the rest of the run, if any, is a chunk of its own, and so is a run at
   the very start of the text.
2. Each chunk is a special case as a whole, or loses prefixes and suffixes from both ends in
   turn, stopping as soon as the rest is a special case (or matches ``token_match``), or once
   the prefix or the suffix alone leaves a special case. What remains is a special case, one
   token (``token_match`` or ``url_match``), or is cut at its infixes. A chunk's tokens depend
   on the chunk alone, so they are kept (a cache of chunks, as spaCy keeps its own).
3. The special cases that contain a prefix, suffix, infix or space (all of them, without
   ``faster_heuristics``) are found once more across the tokens, as token sequences: the
   longest first, the earliest of equal length first, one that shares its first or last token
   with one found before left out (and its tokens counting as taken all the same, as in
   spaCy); where the tokens' text (with their spaces) is a special case, its tokens replace
   them. This finds ``:)`` in ``(:)`` and the like. Their tokens' offsets run on from the
   span's start, as spaCy sets them.

What is not spaCy's: strings are looked up by themselves, not by 64-bit hashes (spaCy would
mistake two strings of the same hash for each other); a text of 2**30 characters or more is
tokenized, not refused. spaCy caches no more of a text's chunks once a special case has been
met in it (its issue 1250); a cache changes no token either way, as a chunk's tokens depend on
the chunk alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import accumulate, compress, repeat
from operator import add, contains
from types import MappingProxyType
from typing import Any

from authormask.text._compiled import restored, stored

__all__ = ["Tokenizer", "TokenizerRules", "Tokens"]

#: the longest chunk whose tokens are kept
_CACHED_CHARS = 64
#: a special case's tokens: each its text (ORTH) and the norm it sets (NORM), or None
SpecialCase = tuple[tuple[str, str | None], ...]

_FORMAT = "authormask-tokenizer-rules"
_VERSION = 1
#: the names (``spacy.attrs.IDS``) of the only attributes a special case may set
_ORTH, _NORM = "ORTH", "NORM"
#: the regular-expression method each rule is used through, as spaCy calls it
_METHODS = {
    "prefix": "search",
    "suffix": "search",
    "infix": "finditer",
    "token_match": "match",
    "url_match": "match",
}
#: runs of whitespace, captured: ``\s`` is ``str.isspace`` (the test spaCy cuts on)
_WHITESPACE = re.compile(r"(\s+)")

# a chunk's or special case's tokens: their texts, and their norms (None where none has one)
_Split = tuple[tuple[str, ...], tuple[str | None, ...] | None]


@dataclass(frozen=True)
class TokenizerRules:
    """The rules of a spaCy tokenizer, as plain strings (JSON, never pickle).

    Attributes
    ----------
    prefix
        The expression whose ``search`` finds a chunk's prefix, or None.
    suffix
        The expression whose ``search`` finds a chunk's suffix, or None.
    infix
        The expression whose ``finditer`` finds the infixes of what remains, or None.
    token_match
        The expression whose ``match`` keeps a string whole (checked before affixes), or None.
    url_match
        The expression whose ``match`` keeps a string whole (checked after affixes), or None.
    rules
        The special cases: each string to its tokens, each token its text (ORTH) and the norm
        the special case gives it (NORM), or None. The texts of a string's tokens make it up.
    faster_heuristics
        Whether only the special cases with an affix, an infix or a space are looked for again
        across tokens (spaCy's ``faster_heuristics``).

    Raises
    ------
    ValueError
        If a special case is empty, has no tokens, or its tokens' texts do not make it up.
    """

    prefix: str | None
    suffix: str | None
    infix: str | None
    token_match: str | None
    url_match: str | None
    rules: Mapping[str, SpecialCase] = field(hash=False)
    faster_heuristics: bool = True

    def __post_init__(self) -> None:
        rules: dict[str, SpecialCase] = {}
        for string, tokens in sorted(self.rules.items()):
            case = tuple((str(orth), None if norm is None else str(norm)) for orth, norm in tokens)
            if not string or not case or "".join(orth for orth, _ in case) != string:
                raise ValueError(f"special case {string!r}: its tokens {case!r} do not make it up")
            rules[string] = case
        object.__setattr__(self, "rules", MappingProxyType(rules))

    def to_json(self) -> str:
        """The rules as JSON text (what :meth:`from_json` reads).

        Returns
        -------
        str
            A JSON object: the format and its version, the five expressions (strings or null),
            ``faster_heuristics``, and ``rules``: each special case to its ``[orth, norm]``
            pairs, sorted by string.
        """
        data = {
            "format": _FORMAT,
            "version": _VERSION,
            "prefix": self.prefix,
            "suffix": self.suffix,
            "infix": self.infix,
            "token_match": self.token_match,
            "url_match": self.url_match,
            "faster_heuristics": self.faster_heuristics,
            "rules": {
                string: [list(token) for token in case] for string, case in self.rules.items()
            },
        }
        return json.dumps(data, ensure_ascii=False, indent=0)

    @classmethod
    def from_json(cls, text: str) -> TokenizerRules:
        """Rules from the JSON text :meth:`to_json` writes.

        Parameters
        ----------
        text
            The JSON text.

        Returns
        -------
        TokenizerRules
            The rules.

        Raises
        ------
        ValueError
            If the text is not such an object (another format or version, a missing field, a
            field of the wrong type).
        """
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise ValueError(f"not {_FORMAT} JSON")
        if data.get("version") != _VERSION:
            raise ValueError(f"{_FORMAT} version {data.get('version')!r}; {_VERSION} is read")
        patterns: dict[str, str | None] = {}
        for name in _METHODS:
            value = data.get(name)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{name}: a string or null, not {value!r}")
            patterns[name] = value
        heuristics = data.get("faster_heuristics")
        raw = data.get("rules")
        if not isinstance(heuristics, bool) or not isinstance(raw, dict):
            raise ValueError("faster_heuristics (a boolean) and rules (an object) are needed")
        rules: dict[str, SpecialCase] = {}
        for string, tokens in raw.items():
            if not isinstance(tokens, list) or not all(_is_token(token) for token in tokens):
                raise ValueError(f"special case {string!r}: [orth, norm or null] pairs needed")
            rules[string] = tuple((token[0], token[1]) for token in tokens)
        return cls._of(patterns, rules, heuristics)

    @classmethod
    def from_spacy(cls, tokenizer: Any) -> TokenizerRules:
        """The rules of a loaded spaCy tokenizer (``nlp.tokenizer``); imports spaCy.

        Parameters
        ----------
        tokenizer
            A ``spacy.tokenizer.Tokenizer`` whose rules are compiled :mod:`re` expressions
            (``prefix_search`` a pattern's ``search``, and so on).

        Returns
        -------
        TokenizerRules
            Its rules.

        Raises
        ------
        ValueError
            If a rule is not the method of a compiled :mod:`re` pattern that spaCy's defaults
            use, or a special case sets an attribute other than ORTH and NORM.
        """
        from spacy.attrs import IDS, intify_attrs

        orth_id, norm_id = IDS[_ORTH], IDS[_NORM]
        patterns: dict[str, str | None] = {}
        for name, attribute in (
            ("prefix", "prefix_search"),
            ("suffix", "suffix_search"),
            ("infix", "infix_finditer"),
            ("token_match", "token_match"),
            ("url_match", "url_match"),
        ):
            function = getattr(tokenizer, attribute)
            if function is None:
                patterns[name] = None
                continue
            pattern = getattr(function, "__self__", None)
            if not isinstance(pattern, re.Pattern) or function.__name__ != _METHODS[name]:
                raise ValueError(f"{attribute} is not a compiled re pattern's {_METHODS[name]}")
            if not isinstance(pattern.pattern, str) or pattern.flags != re.UNICODE:
                raise ValueError(f"{attribute}: a str pattern without flags is needed")
            patterns[name] = pattern.pattern
        rules: dict[str, SpecialCase] = {}
        for string, substrings in tokenizer.rules.items():
            case: list[tuple[str, str | None]] = []
            for spec in substrings:
                attrs = intify_attrs(dict(spec), _do_deprecated=True)
                others = set(attrs) - {orth_id, norm_id}
                if others:
                    raise ValueError(
                        f"special case {string!r} sets attributes other than ORTH and NORM: "
                        f"{sorted(others)}"
                    )
                norm = attrs.get(norm_id)
                if isinstance(norm, int):
                    norm = tokenizer.vocab.strings[norm]
                orth = attrs[orth_id]
                if isinstance(orth, int):
                    orth = tokenizer.vocab.strings[orth]
                case.append((orth, norm))
            rules[string] = tuple(case)
        return cls._of(patterns, rules, bool(tokenizer.faster_heuristics))

    @classmethod
    def _of(
        cls, patterns: Mapping[str, str | None], rules: dict[str, SpecialCase], heuristics: bool
    ) -> TokenizerRules:
        """The rules of the patterns (by :data:`_METHODS` name), special cases and heuristics."""
        return cls(
            prefix=patterns["prefix"],
            suffix=patterns["suffix"],
            infix=patterns["infix"],
            token_match=patterns["token_match"],
            url_match=patterns["url_match"],
            rules=rules,
            faster_heuristics=heuristics,
        )


def _is_phrase(phrase: object) -> bool:
    """Whether ``phrase`` is a special case's tokens as :meth:`Tokenizer.prepared` keeps them:
    a list of at least one string."""
    return isinstance(phrase, list) and bool(phrase) and all(type(t) is str for t in phrase)


def _is_token(token: object) -> bool:
    """Whether a JSON value is an ``[orth, norm or null]`` pair."""
    return (
        isinstance(token, list)
        and len(token) == 2
        and isinstance(token[0], str)
        and (token[1] is None or isinstance(token[1], str))
    )


@dataclass(frozen=True, slots=True)
class Tokens:
    """A text's tokens, as spaCy's ``Doc`` has them (parallel tuples, one entry a token).

    Attributes
    ----------
    words
        Each token's text (``token.text``).
    spaces
        Whether a single space follows the token (``token.whitespace_``).
    starts
        Each token's offset in the text, in characters (``token.idx``).
    norms
        The norm the special case that made the token gives it, or None (where spaCy's
        ``token.norm_`` is the lexeme's).
    """

    words: tuple[str, ...]
    spaces: tuple[bool, ...]
    starts: tuple[int, ...]
    norms: tuple[str | None, ...]

    def __len__(self) -> int:
        return len(self.words)


_EMPTY = Tokens((), (), (), ())


def _search_length(search: Callable[[str], re.Match[str] | None] | None, string: str) -> int:
    """The length of what ``search`` finds in ``string`` (0 if nothing), as spaCy's
    ``find_prefix`` and ``find_suffix`` measure it."""
    if search is None:
        return 0
    found = search(string)
    return 0 if found is None else found.end() - found.start()


def _span_text(words: list[str], spaces: list[bool], start: int, end: int) -> str:
    """The text of the tokens ``start`` to ``end``, with the spaces between them (spaCy's
    ``Span.text``)."""
    if end - start == 1:
        return words[start]
    inner = zip(words[start : end - 1], spaces[start : end - 1], strict=True)
    return "".join(word + " " if space else word for word, space in inner) + words[end - 1]


class Tokenizer:
    """spaCy's tokenizer for the given rules, without spaCy.

    Parameters
    ----------
    rules
        The tokenizer's rules (:meth:`TokenizerRules.from_spacy`, or its JSON).
    cache_size
        How many chunks' tokens are kept (the first chunks met, of at most 64 characters each;
        spaCy keeps 10,000).
    prepared
        What :meth:`prepared` kept of a tokenizer of the same rules (read back from a prepared
        file): each expression kept compiled by this interpreter for this very expression is
        made without compiling it again (:mod:`authormask.text._compiled`), any other is
        compiled; the special cases looked for across tokens are taken as kept where they are
        a list of token lists, else found again.

    Raises
    ------
    ValueError
        If ``cache_size`` is below 1.
    """

    def __init__(
        self,
        rules: TokenizerRules,
        *,
        cache_size: int = 32_768,
        prepared: Mapping[str, Any] | None = None,
    ) -> None:
        if cache_size < 1:
            raise ValueError(f"cache_size must be at least 1, not {cache_size}")
        self.rules = rules
        self._cache_size = cache_size
        kept: Mapping[str, Any] = prepared if isinstance(prepared, Mapping) else {}
        expressions = kept.get("expressions")
        if not isinstance(expressions, Mapping):
            expressions = {}

        def expression(name: str) -> re.Pattern[str] | None:
            pattern: str | None = getattr(rules, name)
            return None if pattern is None else restored(expressions.get(name), pattern)

        prefix, suffix, infix = expression("prefix"), expression("suffix"), expression("infix")
        token_match, url_match = expression("token_match"), expression("url_match")
        self._prefix = None if prefix is None else prefix.search
        self._suffix = None if suffix is None else suffix.search
        self._infix = None if infix is None else infix.finditer
        self._token_match = None if token_match is None else token_match.match
        self._url_match = None if url_match is None else url_match.match
        # a special case's own tokens (for a whole chunk, or what its affixes leave)
        self._specials: dict[str, _Split] = {}
        for string, case in rules.rules.items():
            norms = tuple(norm for _, norm in case)
            entry = (
                tuple(orth for orth, _ in case),
                None if norms.count(None) == len(norms) else norms,
            )
            self._specials[string] = entry
        self._cache: dict[str, _Split] = {}
        self._keep = True
        # the special cases looked for again across tokens: each as the tokens that its string
        # gives without special cases (spaCy's PhraseMatcher patterns)
        phrases = kept.get("phrases")
        if isinstance(phrases, list) and all(_is_phrase(p) for p in phrases):
            patterns = {tuple(p) for p in phrases}
        else:
            patterns = self._phrases()
        self._patterns = frozenset(patterns)
        lengths: dict[str, set[int]] = {}
        for pattern in patterns:
            lengths.setdefault(pattern[0], set()).add(len(pattern))
        #: a pattern's first token -> the lengths of the patterns it starts, longest first
        self._pattern_lengths = {
            first: tuple(sorted(sizes, reverse=True)) for first, sizes in lengths.items()
        }

    def _phrases(self) -> set[tuple[str, ...]]:
        """The special cases looked for again across tokens, each as its tokens (step 3)."""
        rules = self.rules
        patterns: set[tuple[str, ...]] = set()
        for string in rules.rules:
            if (
                not rules.faster_heuristics
                or _search_length(self._prefix, string)
                or (self._infix is not None and any(True for _ in self._infix(string)))
                or _search_length(self._suffix, string)
                or " " in string
            ):
                words = self._first_pass(string, {}, {})[0]
                if words:
                    patterns.add(tuple(words))
        return patterns

    def prepared(self) -> dict[str, Any]:
        """What a prepared file keeps so that a tokenizer of the same rules is made faster
        (:class:`Tokenizer`'s ``prepared``; JSON-able): its expressions as this interpreter
        compiles them (:func:`authormask.text._compiled.stored`), and the special cases looked
        for across tokens (step 3), found once.

        Returns
        -------
        dict
            ``expressions`` (each expression's name to its entry; one that is None, or that
            this interpreter cannot keep, has none) and ``phrases`` (token lists, sorted).
        """
        expressions: dict[str, Any] = {}
        for name in _METHODS:
            pattern = getattr(self.rules, name)
            entry = None if pattern is None else stored(pattern)
            if entry is not None:
                expressions[name] = entry
        return {"expressions": expressions, "phrases": [list(p) for p in sorted(self._patterns)]}

    def remember(self, keep: bool) -> None:
        """Keep the chunks read from now on, or keep none and forget those kept (``authormask
        serve`` keeps none: one user's text must not make another's read faster).

        Parameters
        ----------
        keep
            Whether chunks are kept from now on (if not, those kept so far are forgotten).
        """
        if not keep:
            self._cache.clear()
        self._keep = keep

    def __call__(self, text: str) -> Tokens:
        """The tokens spaCy's tokenizer makes of ``text``.

        Parameters
        ----------
        text
            The text (empty: no tokens).

        Returns
        -------
        Tokens
            Its tokens, their trailing spaces, offsets and special-case norms.
        """
        if not text:
            return _EMPTY
        words, spaces, norms = self._first_pass(text, self._specials, self._cache)
        starts: list[int] | None = None
        if self._pattern_lengths and not self._pattern_lengths.keys().isdisjoint(words):
            spans = self._special_spans(words, spaces)
            if spans:
                words, spaces, starts, norms = self._replace_spans(words, spaces, norms, spans)
        if starts is None:
            starts = list(accumulate(map(add, map(len, words), spaces), initial=0))
            starts.pop()
        return Tokens(tuple(words), tuple(spaces), tuple(starts), tuple(norms))

    def _first_pass(
        self, text: str, specials: Mapping[str, _Split], cache: dict[str, _Split]
    ) -> tuple[list[str], list[bool], list[str | None]]:
        """Steps 1 and 2 (spaCy's ``_tokenize_affixes``): the tokens, their trailing spaces and
        their special-case norms."""
        get = cache.get
        tokenize = self._tokenize_chunk
        words: list[str] = []
        spaced: list[int] = []  # the tokens followed by a space
        append_spaced = spaced.append
        normed: list[tuple[int, tuple[str | None, ...]]] = []  # where special cases set norms
        # chunks of other characters (the first and last perhaps empty) and runs of whitespace
        parts = iter(_WHITESPACE.split(text))
        chunk = next(parts)
        if not chunk:  # whitespace at the very start is a chunk as it is
            chunk = next(parts)
            entry = get(chunk) or tokenize(chunk, specials, cache)
            if entry[1] is not None:
                normed.append((0, entry[1]))
            words += entry[0]
            chunk = next(parts)
        if chunk:
            entry = get(chunk) or tokenize(chunk, specials, cache)
            if entry[1] is not None:
                normed.append((len(words), entry[1]))
            words += entry[0]
        for run, chunk in zip(parts, parts, strict=True):
            # a run's first ' ' is the token before it's trailing space; the rest is a chunk
            if run == " ":
                append_spaced(len(words) - 1)
            else:
                if run[0] == " ":
                    append_spaced(len(words) - 1)
                    run = run[1:]
                entry = get(run) or tokenize(run, specials, cache)
                if entry[1] is not None:
                    normed.append((len(words), entry[1]))
                words += entry[0]
            if chunk:
                entry = get(chunk) or tokenize(chunk, specials, cache)
                if entry[1] is not None:
                    normed.append((len(words), entry[1]))
                words += entry[0]
        count = len(words)
        spaces = [False] * count
        for index in spaced:
            spaces[index] = True
        norms: list[str | None] = [None] * count
        for index, chunk_norms in normed:
            norms[index : index + len(chunk_norms)] = chunk_norms
        return words, spaces, norms

    def _tokenize_chunk(
        self, chunk: str, specials: Mapping[str, _Split], cache: dict[str, _Split]
    ) -> _Split:
        """Step 2 for one chunk (spaCy's ``_split_affixes`` and ``_attach_tokens``), kept in
        ``cache`` while it has room (as spaCy keeps its own), unless it is longer than
        :data:`_CACHED_CHARS` (a cache of long chunks would hold megabytes) or chunks are not
        kept (:meth:`remember`)."""
        entry = specials.get(chunk) or self._split(chunk, specials)
        if self._keep and len(chunk) <= _CACHED_CHARS and len(cache) < self._cache_size:
            cache[chunk] = entry
        return entry

    def _split(self, string: str, specials: Mapping[str, _Split]) -> _Split:
        """A chunk that is no special case: its prefixes, its middle, its suffixes."""
        prefix_search, suffix_search = self._prefix, self._suffix
        token_match = self._token_match
        prefixes: list[str] = []
        suffixes: list[str] = []
        last_size = 0
        while string and len(string) != last_size:
            if token_match is not None and token_match(string):
                break
            if string in specials:
                break
            last_size = len(string)
            pre_len = _search_length(prefix_search, string)
            if pre_len:
                minus_pre = string[pre_len:]
                if minus_pre and minus_pre in specials:
                    prefixes.append(string[:pre_len])
                    string = minus_pre
                    break
            suf_len = _search_length(suffix_search, string[pre_len:])
            if suf_len:
                minus_suf = string[:-suf_len]
                if minus_suf and minus_suf in specials:
                    suffixes.append(string[-suf_len:])
                    string = minus_suf
                    break
            if pre_len and suf_len and pre_len + suf_len <= len(string):
                prefixes.append(string[:pre_len])
                suffixes.append(string[-suf_len:])
                string = string[pre_len:-suf_len]
            elif pre_len:
                prefixes.append(string[:pre_len])
                string = string[pre_len:]
            elif suf_len:
                suffixes.append(string[-suf_len:])
                string = string[:-suf_len]
        words = prefixes
        norms: list[str | None] | None = None
        if string:
            special = specials.get(string)
            if special is not None:
                if special[1] is not None:
                    norms = [None] * len(words)
                    norms += special[1]
                words += special[0]
            elif (token_match is not None and token_match(string)) or (
                self._url_match is not None and self._url_match(string)
            ):
                words.append(string)
            else:
                words += self._split_infixes(string)
        suffixes.reverse()
        words += suffixes
        if norms is not None:
            norms += [None] * len(suffixes)
            return tuple(words), tuple(norms)
        return tuple(words), None

    def _split_infixes(self, string: str) -> list[str]:
        """A string cut at its infixes (an infix at its very start is not cut off)."""
        if self._infix is None:
            return [string]
        pieces: list[str] = []
        start = 0
        for found in self._infix(string):
            infix_start, infix_end = found.span()
            if infix_start == 0:
                continue
            if infix_start != start:
                pieces.append(string[start:infix_start])
            if infix_start != infix_end:
                pieces.append(string[infix_start:infix_end])
            start = infix_end
        if start < len(string):
            pieces.append(string[start:])
        return pieces

    def _special_spans(self, words: list[str], spaces: list[bool]) -> list[tuple[int, int]]:
        """Step 3's spans (spaCy's special-case matcher and ``_filter_special_spans``): those
        whose text is a special case, in order."""
        lengths_of = self._pattern_lengths
        patterns = self._patterns
        count = len(words)
        found: list[tuple[int, int]] = []
        for start in compress(range(count), map(contains, repeat(lengths_of), words)):
            for length in lengths_of[words[start]]:
                end = start + length
                if end <= count and (length == 1 or tuple(words[start:end]) in patterns):
                    found.append((start, end))
        if not found:
            return []
        # the longest first, then the earliest; a span is kept unless its first or last token
        # is taken, and its tokens are taken either way (spaCy's filter)
        found.sort(key=lambda span: (span[0] - span[1], span[0]))
        taken: set[int] = set()
        kept: list[tuple[int, int]] = []
        for start, end in found:
            if start not in taken and end - 1 not in taken:
                kept.append((start, end))
            taken.update(range(start, end))
        kept.sort()
        specials = self._specials
        spans = []
        for start, end in kept:
            if _span_text(words, spaces, start, end) in specials:
                spans.append((start, end))
        return spans

    def _replace_spans(
        self,
        words: list[str],
        spaces: list[bool],
        norms: list[str | None],
        spans: list[tuple[int, int]],
    ) -> tuple[list[str], list[bool], list[int], list[str | None]]:
        """Step 3's replacements (spaCy's ``_retokenize_special_spans``): each span's tokens
        by its special case's; its last token keeps the span's trailing space, and offsets run
        on from the span's start, as spaCy sets them."""
        starts = list(accumulate(map(add, map(len, words), spaces), initial=0))
        new_words: list[str] = []
        new_spaces: list[bool] = []
        new_starts: list[int] = []
        new_norms: list[str | None] = []
        done = 0
        for start, end in spans:
            new_words += words[done:start]
            new_spaces += spaces[done:start]
            new_starts += starts[done:start]
            new_norms += norms[done:start]
            case_words, case_norms = self._specials[_span_text(words, spaces, start, end)]
            new_words += case_words
            new_spaces += [False] * (len(case_words) - 1)
            new_spaces.append(spaces[end - 1])
            new_starts += accumulate(map(len, case_words[:-1]), initial=starts[start])
            new_norms += case_norms if case_norms is not None else [None] * len(case_words)
            done = end
        new_words += words[done:]
        new_spaces += spaces[done:]
        new_starts += starts[done:-1]
        new_norms += norms[done:]
        return new_words, new_spaces, new_starts, new_norms
