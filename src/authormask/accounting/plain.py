"""The privacy statement in plain words (issue 32 C).

:func:`explain` turns a :class:`~authormask.accounting.statement.PrivacyStatement` into a few
short paragraphs for the person who publishes the text: what is protected and against whom,
what epsilon means here with a worked example (two texts that differ in one word), what is
released unchanged, and, beside it, what an attacker achieved in the project's own measurement
of that mechanism near that epsilon (the packaged results, ``data/measured-pan19-en.json``).

It reads the statement's public fields only (and, for the worked example, the public embeddings
the statement names), so it is public too. The technical statement stays the authority; this is
its reading.
"""

from __future__ import annotations

import functools
import json
import math
from importlib import resources
from typing import Any

from authormask.accounting.statement import PrivacyStatement, exact

__all__ = ["EXAMPLE_PAIRS", "explain", "measured_near", "mechanism_embeddings", "odds_factor"]

#: pairs of related words for the worked example: the first pair whose words both have vectors
EXAMPLE_PAIRS = (
    ("said", "whispered"),
    ("car", "truck"),
    ("happy", "glad"),
    ("house", "home"),
    ("big", "large"),
)
#: two texts by different writers: this many content words, of which this share differ
WHOLE_TEXT_WORDS = 100
WHOLE_TEXT_DIFFER = 0.6


def odds_factor(log_factor: float) -> str:
    """``exp(log_factor)`` in words a reader can compare, rounded UP to two significant digits
    (it is a bound: a rounded-down figure would claim more privacy than the formula gives):
    ``1.6``, ``260``, ``8 x 10^6``, ``1.1 x 10^48``.

    Parameters
    ----------
    log_factor
        The natural logarithm of the factor (``epsilon x distance``), at least 0.

    Returns
    -------
    str
        The factor, never below ``exp(log_factor)`` and at most about 10% above it.

    Examples
    --------
    >>> odds_factor(math.log(1.6)), odds_factor(math.log(250.4)), odds_factor(7 * 2.27)
    ('1.6', '260', '8 x 10^6')
    >>> odds_factor(110.6)
    '1.1 x 10^48'
    """
    # the factor as mantissa x 10^exponent, worked in log10 so that 10^48 does not overflow
    log10 = log_factor / math.log(10)
    exponent = math.floor(log10)
    # the two leading digits, rounded up; the 1e-9 lets a factor given exactly (1.6 through
    # its logarithm) stay itself instead of the next step up by a rounding error
    leading = math.ceil(10 ** (log10 - exponent + 1) * (1 - 1e-9))
    if leading >= 100:
        leading, exponent = 10, exponent + 1
    if exponent < 3:
        shown = f"{leading * 10.0 ** (exponent - 1):.{max(0, 1 - exponent)}f}"
        return shown.rstrip("0").rstrip(".") if "." in shown else shown
    return f"{leading / 10:g} x 10^{exponent}"


@functools.lru_cache(maxsize=1)
def _measured() -> dict[str, Any]:
    text = resources.files("authormask").joinpath("data/measured-pan19-en.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


def measured_near(mechanism: str, epsilon: float | None) -> dict[str, Any] | None:
    """The packaged measurement of ``mechanism`` at the epsilon nearest ``epsilon`` (its row:
    epsilon, attacker, macro_f1, ...), with the corpus's chance line; None if not measured.

    Parameters
    ----------
    mechanism
        The mechanism's registered name.
    epsilon
        The epsilon to look near (None: no measurement).

    Returns
    -------
    dict[str, Any] | None
        The measured row with ``chance``, ``corpus`` and ``caveat`` added, or None.
    """
    data = _measured()
    rows = [r for r in data.get("rows", {}).get(mechanism, []) if r.get("epsilon") is not None]
    if not rows or epsilon is None:
        return None
    row = min(rows, key=lambda r: (abs(math.log(r["epsilon"] / epsilon)), r["epsilon"]))
    # the chance beside a macro-F1 is a uniform guess's macro-F1 (its accuracy is another number)
    chance = data.get("chance_macro_f1", data["chance"])
    return {**row, "chance": chance, "corpus": data["corpus"], "caveat": data["caveat"]}


_KINDS = (
    "names of people, places and organisations, numbers, dates, e-mail addresses, URLs, "
    "handles, hashtags, codes and phone numbers"
)
#: the entity step in plain words, by its mode (the statement's line says it in full)
_ENTITIES = {
    # what remains as the statement's policy says it (a newcomer found this line said less:
    # that one stood there and its type, not its number of words, form or repetitions)
    "surrogate": f"The {_KINDS} found in the text were replaced by random ones before the noise: "
    "what remains is that one stood there, its type and its number of words, the form of a "
    "number, date, code or phone number (its length and separators), and which occurrences in "
    "one document are the same entity. A name the recogniser misses (in lower case, a "
    "nickname, a month it does not read as a date) is protected by the noise only: remove the "
    "names you know of first.",
    "mask": f"The {_KINDS} found in the text were replaced by their type ([PERSON], [NUMBER], "
    "...) before the noise: what remains is that one stood there, and its type.",
    "keep": f"The {_KINDS} were NOT replaced: they are protected by the noise only, and a name "
    "that comes out unchanged names its bearer. Use entities 'surrogate' (the default).",
}


def mechanism_embeddings(mechanism: Any) -> Any:
    """The public embeddings ``mechanism`` perturbs with (for the worked example), or None: its
    own, or those of the mechanism an entity step hands the words to
    (:attr:`~authormask.mechanisms._base.Mechanism.embeddings`, which every mechanism
    declares).

    Parameters
    ----------
    mechanism
        A mechanism.

    Returns
    -------
    Any
        Its public embeddings, or None.
    """
    return mechanism.embeddings


def _example(statement: PrivacyStatement, embeddings: Any) -> str | None:
    eps = statement.epsilon
    if eps is None or statement.embeddings is None or embeddings is None:
        return None
    found = []
    for a, b in EXAMPLE_PAIRS:
        try:
            rows = [embeddings.index_of(a), embeddings.index_of(b)]
        except (KeyError, LookupError, ValueError):
            continue
        va, vb = embeddings.vectors[rows[0]], embeddings.vectors[rows[1]]
        found.append((float(math.dist(va.tolist(), vb.tolist())), a, b))
    if found:
        d, a, b = min(found)  # the closest pair: the kindest example for the formula
        one = eps * d
        whole = eps * d * WHOLE_TEXT_WORDS * WHOLE_TEXT_DIFFER
        return (
            f"What epsilon bounds, in one example: two texts that differ in one word, '{a}' in "
            f"one and '{b}' in the other (their vectors are {d:.2f} apart): whatever is "
            f"published is at most {odds_factor(one)} times likelier to come from one text "
            f"than from the other (exp({exact(eps)} x {d:.2f})). That is weak for one word; "
            f"for two whole texts by different writers ({WHOLE_TEXT_WORDS} content words, "
            f"{int(WHOLE_TEXT_WORDS * WHOLE_TEXT_DIFFER)} of them differing as much: about "
            f"{odds_factor(whole)}) it bounds nothing in practice. So do not count on the "
            "formula to hide a writer. What you can do: read the measurement below (what "
            "attackers did), choose a smaller epsilon for more noise (less faithful text), "
            "release each text once, and remove the names you know of before releasing."
        )
    return None


def explain(statement: PrivacyStatement, *, embeddings: Any = None, measured: bool = True) -> str:
    """The statement in plain words (see the module docstring). ``embeddings``: the public
    vectors the statement names, for the worked example (optional).

    Parameters
    ----------
    statement
        The privacy statement to explain.
    embeddings
        The public vectors the statement names, for the worked example (optional).
    measured
        Whether to add the packaged measurement nearest the statement's epsilon.

    Returns
    -------
    str
        Paragraphs separated by blank lines.
    """
    paras = []
    if statement.epsilon is None:
        paras.append(
            f"{statement.mechanism} gives NO privacy guarantee: it is a baseline for "
            "comparison. Do not rely on it to hide who wrote a text."
        )
    else:
        paras.append(
            f"What is protected: which words were written. {statement.mechanism} adds random "
            f"noise with epsilon {exact(statement.epsilon)} ({statement.epsilon_unit}), so "
            "anyone who reads the published text and this statement, knows how the tool works "
            "and holds other texts by the possible writers learns only a bounded amount about "
            "the original words. A smaller epsilon means more noise: more privacy, less "
            "faithful text."
        )
        example = _example(statement, embeddings)
        paras.append(
            example
            if example is not None
            else f"What epsilon bounds here: {statement.document_bound}."
        )
    paras.append(f"Not protected (published as it is): {statement.released_unchanged}.")
    entities = statement.policies.get("entities")
    if entities is not None:
        paras.append(_ENTITIES.get(entities.split(":", 1)[0], f"Names and numbers: {entities}."))
    paras.append(
        "Release a text once: every release of the same text adds to what can be learnt "
        "(the epsilons add). Keep the seed secret if you gave one."
    )
    if measured:
        row = measured_near(statement.mechanism, statement.epsilon)
        if row is not None:
            paras.append(
                f"Measured: on {row['corpus'].split(':')[0]}, at epsilon {row['epsilon']:g}, "
                f"the strongest attacker we have ({row['attacker']}) named the writer with "
                f"macro-F1 {row['macro_f1']:.2f}, where a blind guess scores "
                f"{row['chance']:.2f}. This is {row['caveat']}."
            )
        elif statement.epsilon is not None:
            paras.append(
                f"Measured: the project has no measurement of {statement.mechanism} against an "
                "authorship attacker; do not assume it hides the writer."
            )
    return "\n\n".join(paras)
