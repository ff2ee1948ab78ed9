"""Tool arguments with a closed set of values: typed as an estate enum or a ``Literal``, so the
input schema lists the values (``enum``), and read before the type check the way the estate
reads them (case and ``-``/space variants where the estate folds them), so an unknown value
is refused with the estate's own -32602 error (field, close matches, allowed values) that
never echoes it. Put the returned validator in the argument's ``Annotated[...]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BeforeValidator, ValidationInfo

from ..estate import parse_choice, parse_enum

__all__ = ["enum_value", "enum_values", "one_of", "many_of", "read_by"]

E = TypeVar("E", bound=StrEnum)


def read_by(read: Callable[[Any, str], Any]) -> BeforeValidator:
    """A validator calling ``read(value, argument_name)`` before the type check."""

    def validate(value: Any, info: ValidationInfo) -> Any:
        return read(value, info.field_name or "value")

    return BeforeValidator(validate)


def _split(value: Any) -> Any:
    """One comma-separated string as a list of its stripped parts; anything else as it is."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def enum_value(enum: type[E], *, blank_is_none: bool = False) -> BeforeValidator:
    """One member of ``enum``, read by ``parse_enum``; with ``blank_is_none`` an empty string
    is None (the tools read an empty filter as no filter)."""

    def read(value: Any, field: str) -> Any:
        if value is None or isinstance(value, enum):
            return value
        if blank_is_none and value == "":
            return None
        return parse_enum(enum, value, field=field)

    return read_by(read)


def enum_values(enum: type[E]) -> BeforeValidator:
    """A list of members of ``enum`` (one comma-separated string is read as a list)."""

    def read(value: Any, field: str) -> Any:
        value = _split(value)
        if not isinstance(value, (list, tuple)):
            return value  # None, or a type the type check refuses
        return [parse_enum(enum, v, field=field) for v in value]

    return read_by(read)


def one_of(allowed: Sequence[str], *, fold: bool = False) -> BeforeValidator:
    """One of ``allowed``, exactly (with ``fold``: after strip and lower-case)."""

    def read(value: Any, field: str) -> Any:
        return value if value is None else parse_choice(value, allowed, field=field, fold=fold)

    return read_by(read)


def many_of(allowed: Sequence[str]) -> BeforeValidator:
    """A list of values of ``allowed`` (one comma-separated string is read as a list)."""

    def read(value: Any, field: str) -> Any:
        value = _split(value)
        if not isinstance(value, (list, tuple)):
            return value
        return [parse_choice(v, allowed, field=field) for v in value]

    return read_by(read)
