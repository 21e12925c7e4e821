"""Validation of privacy parameters, in one place (diffprivlib style)."""

from __future__ import annotations

import math
from typing import Any

from authormask.exceptions import InvalidParameterError

__all__ = [
    "check_epsilon",
    "check_number",
    "check_positive_int",
    "describe_interval",
    "in_interval",
]


def _shown(value: Any) -> str:
    """``repr(value)`` for an error message: at most 80 characters, and never an error itself
    (``repr`` of an int of more than 4300 digits raises ``ValueError``).

    >>> _shown(10**100)
    '10000000000000000000000000000000000000000000000000000000000000000000000000000...'
    """
    try:
        text = repr(value)
    except ValueError:
        return "a number too large to print"
    return text if len(text) <= 80 else text[:77] + "..."


def describe_interval(
    minimum: float | None = None,
    maximum: float | None = None,
    *,
    exclusive_minimum: bool = False,
    exclusive_maximum: bool = False,
) -> str | None:
    """An interval in words (``> 0``, ``>= 1``, ``in [0, 1]``, ``<= 5``), or None when it has
    no bound.

    Parameters
    ----------
    minimum
        The lower bound, or None: unbounded below.
    maximum
        The upper bound, or None: unbounded above.
    exclusive_minimum
        Whether ``minimum`` itself is excluded.
    exclusive_maximum
        Whether ``maximum`` itself is excluded.

    Returns
    -------
    str | None
        The interval in words, or None for no bound.

    Examples
    --------
    >>> describe_interval(0, exclusive_minimum=True), describe_interval(0, 1)
    ('> 0', 'in [0, 1]')
    """
    if minimum is not None and maximum is not None:
        left = "(" if exclusive_minimum else "["
        right = ")" if exclusive_maximum else "]"
        return f"in {left}{minimum:g}, {maximum:g}{right}"
    if minimum is not None:
        return f"{'>' if exclusive_minimum else '>='} {minimum:g}"
    if maximum is not None:
        return f"{'<' if exclusive_maximum else '<='} {maximum:g}"
    return None


def in_interval(
    value: float,
    minimum: float | None = None,
    maximum: float | None = None,
    *,
    exclusive_minimum: bool = False,
    exclusive_maximum: bool = False,
) -> bool:
    """Whether number ``value`` lies in the interval (the bounds as :func:`describe_interval`'s).

    Parameters
    ----------
    value
        A number.
    minimum
        The lower bound, or None: unbounded below.
    maximum
        The upper bound, or None: unbounded above.
    exclusive_minimum
        Whether ``minimum`` itself is excluded.
    exclusive_maximum
        Whether ``maximum`` itself is excluded.

    Returns
    -------
    bool
        True if ``value`` is within the bounds.
    """
    if minimum is not None:
        if value < minimum or (exclusive_minimum and value == minimum):
            return False
    if maximum is not None:
        if value > maximum or (exclusive_maximum and value == maximum):
            return False
    return True


def check_number(
    value: Any,
    *,
    name: str,
    minimum: float | None = None,
    maximum: float | None = None,
    exclusive_minimum: bool = False,
    exclusive_maximum: bool = False,
) -> float:
    """Return ``value`` as a float, or raise if it is not a finite number in the interval: the
    one check of a real-valued parameter, epsilon's among them. A spec's parameter
    (:meth:`authormask.core.specs.Parameter.check`, where every front end's values are read)
    and :func:`check_epsilon` (the guard of a mechanism or sampler built directly from Python)
    both make it here, so the rule and its message are written once.

    Parameters
    ----------
    value
        The value to check.
    name
        The parameter's name as the error message shows it (``epsilon``, or ```epsilon```
        between backquotes).
    minimum
        The lower bound, or None: unbounded below.
    maximum
        The upper bound, or None: unbounded above.
    exclusive_minimum
        Whether ``minimum`` itself is excluded.
    exclusive_maximum
        Whether ``maximum`` itself is excluded.

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    InvalidParameterError
        If ``value`` is a bool, not a number, not finite, or outside the interval: one line
        that names the parameter, the interval and the value.

    Examples
    --------
    >>> check_number(0.5, name="rate", minimum=0, maximum=1)
    0.5
    >>> check_number(2, name="rate", minimum=0, maximum=1)
    Traceback (most recent call last):
    ...
    authormask.exceptions.InvalidParameterError: rate must be a finite number in [0, 1], got 2
    """
    if not isinstance(value, bool):
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond float64
            pass
        else:
            if math.isfinite(number) and in_interval(
                number,
                minimum,
                maximum,
                exclusive_minimum=exclusive_minimum,
                exclusive_maximum=exclusive_maximum,
            ):
                return number
    allowed = describe_interval(
        minimum,
        maximum,
        exclusive_minimum=exclusive_minimum,
        exclusive_maximum=exclusive_maximum,
    )
    what = f"a finite number {allowed}" if allowed else "a finite number"
    raise InvalidParameterError(f"{name} must be {what}, got {_shown(value)}")


def check_epsilon(epsilon: Any, *, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float, or raise if it is not a finite number > 0 (the message
    names the parameter ``name``): :func:`check_number` over epsilon's interval, (0, inf), as
    the specs' epsilon parameters declare it. A front end's epsilon is checked where its spec
    reads it; this is the guard of the mechanisms and samplers built directly from Python, and
    of the front ends' epsilons that no one mechanism reads (a grid of an evaluation).

    Parameters
    ----------
    epsilon
        The value to check.
    name
        The parameter's name in the error message.

    Returns
    -------
    float
        ``epsilon`` as a float.

    Raises
    ------
    InvalidParameterError
        If ``epsilon`` is a bool, not a number, not finite, or not > 0.

    Examples
    --------
    >>> check_epsilon(0.5)
    0.5
    >>> check_epsilon(-1)
    Traceback (most recent call last):
    ...
    authormask.exceptions.InvalidParameterError: epsilon must be a finite number > 0, got -1
    """
    return check_number(epsilon, name=name, minimum=0.0, exclusive_minimum=True)


def check_positive_int(value: Any, *, name: str, maximum: int | None = None) -> int:
    """Return ``value`` as an int >= 1 (and <= ``maximum`` if given), or raise naming ``name``
    and the value.

    Parameters
    ----------
    value
        The value to check: an int, an integral float or a string of digits.
    name
        The parameter's name in the error message.
    maximum
        The largest value allowed, if any.

    Returns
    -------
    int
        ``value`` as an int.

    Raises
    ------
    InvalidParameterError
        If ``value`` is a bool, not a whole number, < 1, or > ``maximum``.

    Examples
    --------
    >>> check_positive_int(3, name="length")
    3
    """
    if isinstance(value, bool):
        raise InvalidParameterError(f"{name} must be an integer >= 1, got {_shown(value)}")
    if isinstance(value, int):
        as_int = value
    elif isinstance(value, float) and value.is_integer():
        as_int = int(value)
    else:
        try:
            as_int = int(str(value))
        except ValueError:
            raise InvalidParameterError(
                f"{name} must be an integer >= 1, got {_shown(value)}"
            ) from None
    if as_int < 1:
        raise InvalidParameterError(f"{name} must be an integer >= 1, got {_shown(value)}")
    if maximum is not None and as_int > maximum:
        raise InvalidParameterError(
            f"{name} must be an integer between 1 and {maximum:,}, got {_shown(value)}"
        )
    return as_int
