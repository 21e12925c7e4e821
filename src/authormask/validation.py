"""Validation of privacy parameters, in one place (diffprivlib style)."""

from __future__ import annotations

import math
from typing import Any

from authormask.exceptions import InvalidParameterError

__all__ = ["check_epsilon", "check_positive_int"]


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


def check_epsilon(epsilon: Any, *, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float, or raise if it is not a finite number > 0 (the message
    names the parameter ``name``).

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
    if isinstance(epsilon, bool):
        raise InvalidParameterError(f"{name} must be a finite number > 0, got {_shown(epsilon)}")
    try:
        value = float(epsilon)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond float64
        raise InvalidParameterError(
            f"{name} must be a finite number > 0, got {_shown(epsilon)}"
        ) from None
    if not math.isfinite(value) or value <= 0:
        raise InvalidParameterError(f"{name} must be a finite number > 0, got {_shown(epsilon)}")
    return value


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
