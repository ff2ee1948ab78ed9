"""``MODULE:ATTR`` registry targets (``cloudg-nb --registry``, ``CloudGExtension.registry``):
the ``Registry`` held by an attribute of an importable module, or returned by a function there.

The current directory is importable, as with ``python -m``. ``RegistryTargetError`` says what
is wrong, naming the setting the target came from; an exception raised while the module itself
runs passes through unchanged (the caller reports it).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .layer import Registry

__all__ = ["RegistryTargetError", "load_registry"]


class RegistryTargetError(ValueError):
    """A target that names no registry (bad form, no such module or attribute, not one)."""


def load_registry(target: str, option: str = "--registry") -> Registry:
    """The registry at ``target`` (``MODULE:ATTR``); ``option`` names the setting in errors."""
    module_name, sep, attr = target.partition(":")
    if not module_name or not sep or not attr:
        raise RegistryTargetError(
            f"{option} takes MODULE:ATTR, for example mypkg.tools:registry")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise RegistryTargetError(
            f"{option}: cannot import module {module_name!r} ({exc.msg})") from None
    try:
        value = getattr(module, attr)
    except AttributeError:
        raise RegistryTargetError(
            f"{option}: module {module_name!r} has no attribute {attr!r}") from None
    from .layer import Registry

    if not isinstance(value, Registry) and callable(value):
        value = value()
    if not isinstance(value, Registry):
        raise RegistryTargetError(f"{option}: {target} is not a cloudg_nb Registry")
    return value
