"""The public privacy statement that accompanies every release.

A :class:`PrivacyStatement` is a function of the mechanism's **public parameters only**: the
mechanism and its epsilon, N, the fixed-length method, the embeddings' identity, the model's
identity, the policies for stopwords and unknown words, whether the run was seeded, and the
version. It never holds anything computed from an input (no counts, lengths, paths or seeds), so
every document released with the same parameters gets the byte-identical statement, and
publishing it beside the text reveals nothing the guarantee does not cover. Per-input diagnostics
go to the private :class:`authormask.core.RunReport`.
"""

from __future__ import annotations

import json
import math
from dataclasses import MISSING, asdict, dataclass, field
from typing import Any

__all__ = ["COMPOSITION", "SCHEMA", "PrivacyStatement", "exact", "upper"]

SCHEMA = "authormask.privacy-statement/3"

#: what every statement says about releasing the same text more than once
COMPOSITION = (
    "each release draws its own noise (from the secret seed and every public parameter "
    "above), so releasing one text k times, with any parameters, is covered by the sum of the "
    "k guarantees (basic composition: the epsilons add, in their units) and by nothing "
    "smaller; release a text once"
)


def exact(x: float) -> str:
    """A number as printed in a statement: short when that is exact, else every digit.

    Parameters
    ----------
    x
        The number.

    Returns
    -------
    str
        ``x`` in ``g`` format when that reads back exactly, else its ``repr``.

    Examples
    --------
    >>> exact(10.0), exact(0.1 * 3), exact(400.0)
    ('10', '0.30000000000000004', '400')
    """
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def upper(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits, rounded up (a bound is never understated).

    Parameters
    ----------
    x
        The number.
    digits
        The number of significant digits.

    Returns
    -------
    str
        The smallest number of ``digits`` significant digits that is >= ``x``.

    Examples
    --------
    >>> upper(2.281e-12), upper(4.0), upper(2.2801e-12)
    ('2.29e-12', '4', '2.29e-12')
    """
    if x == 0 or not math.isfinite(x):
        return exact(x)
    e = math.floor(math.log10(abs(x))) - digits + 1
    m = math.ceil(x / 10.0**e)
    while float(f"{m}e{e}") < x:
        m += 1
    return f"{float(f'{m}e{e}'):.{digits}g}"


@dataclass(frozen=True)
class PrivacyStatement:
    """What a release guarantees, in one schema for every mechanism.

    ``mechanism`` is the registry name (``emp-bag``, ``emp-text``, ``erae``, ``ae-dp``, ``syntf``,
    ``random-r``); ``parameters`` the mechanism's public parameters (N, sensitivity, ...);
    ``per_output`` says which figures that depend on the released output itself (visible in it
    anyway, such as ER-AE's ``epsilon*l``) accompany each record.

    Attributes
    ----------
    mechanism
        The mechanism's registered name.
    title
        The mechanism's title.
    reference
        The paper the mechanism follows.
    epsilon
        The privacy parameter; None for a baseline that gives no guarantee.
    epsilon_unit
        What epsilon is per (a word, a vector, a document ...).
    guarantee
        The guarantee, in words.
    document_bound
        What epsilon bounds for a whole document.
    released_unchanged
        What the release publishes as it is.
    parameters
        The mechanism's public parameters.
    embeddings
        The identity of the public embeddings (name, source, size, hashes), or None.
    model
        The identity of the public model, or None.
    policies
        The text policies applied (names, numbers, links ...), by name.
    floating_point
        The note on floating-point arithmetic.
    randomness
        How the release was seeded (never the seed).
    version
        The authormask version.
    per_output
        The figures that accompany each record, if any.
    caveats
        Caveats of the guarantee.
    composition
        How the guarantees of several releases add up.
    """

    mechanism: str
    title: str
    reference: str
    #: None for a baseline that gives no differential-privacy guarantee (``random-sub``)
    epsilon: float | None
    epsilon_unit: str
    guarantee: str
    document_bound: str
    released_unchanged: str
    parameters: dict[str, Any]
    embeddings: dict[str, Any] | None
    model: dict[str, Any] | None
    policies: dict[str, str]
    floating_point: str
    randomness: str
    version: str
    per_output: str | None = None
    caveats: tuple[str, ...] = field(default_factory=tuple)
    composition: str = COMPOSITION

    def to_dict(self) -> dict[str, Any]:
        """The statement as a JSON-ready dict, its ``schema`` first.

        Returns
        -------
        dict[str, Any]
            ``schema``, then every field (``caveats`` as a list).
        """
        d: dict[str, Any] = {"schema": SCHEMA}
        d.update(asdict(self))
        d["caveats"] = list(self.caveats)
        return d

    @classmethod
    def from_dict(cls, data: Any) -> PrivacyStatement:
        """A statement read back from :meth:`to_dict`'s form (a ``.privacy.json`` file, a
        dataset record's ``privacy``).

        Parameters
        ----------
        data
            The parsed JSON.

        Returns
        -------
        PrivacyStatement
            The statement.

        Raises
        ------
        InputError
            If ``data`` is not a statement of this schema (one line naming what is wrong).
        """
        from dataclasses import fields

        from authormask.exceptions import InputError

        if not isinstance(data, dict) or "schema" not in data:
            raise InputError("not an authormask privacy statement (no 'schema' field)")
        if data["schema"] != SCHEMA:
            raise InputError(
                f"a privacy statement of schema {data['schema']!r}; this authormask reads "
                f"{SCHEMA!r}"
            )
        known = {f.name: f for f in fields(cls)}
        missing = [n for n, f in known.items() if f.default is MISSING
                   and f.default_factory is MISSING and n not in data]  # fmt: skip
        if missing:
            raise InputError(f"the privacy statement lacks {', '.join(missing)}")
        values = {k: v for k, v in data.items() if k in known}
        if "caveats" in values:
            values["caveats"] = tuple(str(c) for c in values["caveats"])
        eps = values.get("epsilon")
        if eps is not None and (isinstance(eps, bool) or not isinstance(eps, (int, float))):
            raise InputError(f"the privacy statement's epsilon is not a number: {eps!r}")
        return cls(**values)

    def to_json(self, *, indent: int | None = None) -> str:
        """The statement as JSON (the public record's ``privacy``).

        Parameters
        ----------
        indent
            Passed to :func:`json.dumps` (None: one line).

        Returns
        -------
        str
            The JSON of :meth:`to_dict`, non-ASCII kept.
        """
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False, ensure_ascii=False)

    def summary(self, full: str | None = None) -> str:
        """The statement in at most 12 lines, as the terminal shows it beside a release whose
        full record is a file: the mechanism and epsilon, the document-level bound, what is
        released unchanged, the entities, the embeddings, the randomness and where the rest
        is (each line the first clause of its field; :meth:`describe` has every field).

        Parameters
        ----------
        full
            Where the full statement is (its ``.privacy.json``), or None.

        Returns
        -------
        str
            The lines.
        """
        eps = (
            f"epsilon {exact(self.epsilon)} {self.epsilon_unit}"
            if self.epsilon is not None
            else f"no epsilon ({self.epsilon_unit})"
        )
        lines = [
            f"Privacy statement (authormask {self.version}), in short:",
            f"  mechanism : {self.mechanism}: {_first(self.title)}",
            f"  epsilon   : {_first(eps)}",
            f"  bound     : {self.document_bound}",
            f"  unchanged : {_first(self.released_unchanged)}",
        ]
        if "entities" in self.policies:
            lines.append(f"  entities  : {_first(self.policies['entities'].split(':', 1)[0])}")
        if self.embeddings is not None:
            e = self.embeddings
            lines.append(
                f"  embeddings: {e['name']}, {e['vocab_size']} words, {e['dimension']}-d "
                f"(words sha256 {e['words_sha256']})"
            )
        lines.append(f"  randomness: {_first(self.randomness)}")
        rest = f"{len(self.caveats)} caveat(s), the policies and every parameter"
        if full is None:
            lines.append(f"  the rest  : {rest} are in the full statement")
        else:
            lines += [
                f"  the rest  : {rest}: {full}",
                f"  in plain words: authormask explain {full}",
            ]
        return "\n".join(lines)

    def describe(self) -> str:
        """The human form, as printed on stderr.

        Returns
        -------
        str
            One line per field.
        """
        lines = [
            f"Privacy statement (authormask {self.version})",
            f"  mechanism   : {self.mechanism}: {self.title}",
            f"  reference   : {self.reference}",
            "  epsilon     : "
            + (
                f"{exact(self.epsilon)} {self.epsilon_unit}"
                if self.epsilon is not None
                else f"none ({self.epsilon_unit})"
            ),
        ]
        lines += [f"  {k:<12}: {_show(v)}" for k, v in self.parameters.items()]
        lines += [
            f"  guarantee   : {self.guarantee}",
            f"  bound       : {self.document_bound}",
            f"  unchanged   : {self.released_unchanged}",
        ]
        if self.embeddings is not None:
            e = self.embeddings
            lines.append(
                f"  embeddings  : {e['name']} ({e['source']}), K={e['vocab_size']} words, "
                f"{e['dimension']}-d, words sha256 {e['words_sha256']}, "
                f"vectors sha256 {e['vectors_sha256']}"
                + (
                    f", vocabulary filter {e['vocabulary_filter']}"
                    if "vocabulary_filter" in e
                    else ""
                )
            )
        if self.model is not None:
            shown = ", ".join(f"{k}={_show(v)}" for k, v in self.model.items() if v is not None)
            lines.append(f"  model       : {shown}")
        lines += [f"  {k:<12}: {v}" for k, v in self.policies.items()]
        if self.per_output is not None:
            lines.append(f"  per output  : {self.per_output}")
        lines += [
            f"  floating pt : {self.floating_point}",
            f"  randomness  : {self.randomness}",
            f"  composition : {self.composition}",
        ]
        lines += [f"  caveat      : {cv}" for cv in self.caveats]
        return "\n".join(lines)


#: the longest line of :meth:`PrivacyStatement.summary` (before its field's name)
SUMMARY_WIDTH = 100


def _first(text: str, width: int = SUMMARY_WIDTH) -> str:
    """The first clause of ``text`` (up to its first ``;`` outside brackets), cut at a word
    before ``width`` characters with an ellipsis when longer.

    >>> _first("seeded (reproducible; keep the seed secret); more")
    'seeded (reproducible; keep the seed secret)'
    """
    depth, end = 0, len(text)
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(depth - 1, 0)
        elif depth == 0 and text.startswith("; ", i):
            end = i
            break
    clause = text[:end].strip()
    if len(clause) <= width:
        return clause
    cut = clause.rfind(" ", 0, width - 1)
    return clause[: cut if cut > 0 else width - 1].rstrip(" ,(:") + "…"


def _show(value: Any) -> str:
    if isinstance(value, float):
        return exact(value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={_show(v)}" for k, v in value.items())
    return str(value)
