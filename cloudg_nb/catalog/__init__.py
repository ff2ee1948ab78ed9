"""The built-in catalog of tools, resources and prompts (``default_registry``)."""

from __future__ import annotations

from ..layer.registry import Registry
from . import meta, privacy

__all__ = ["default_registry"]


def default_registry() -> Registry:
    """A fresh registry holding the whole built-in catalog."""
    registry = Registry()
    meta.register(registry)
    privacy.register(registry)
    return registry
