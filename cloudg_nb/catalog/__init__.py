"""The built-in catalog of tools, resources and prompts (``default_registry``), one module per
category. Shared argument types and paging live in ``conventions``, closed-set argument readers
in ``choices``, output-schema pieces in ``schemas``, completions in ``completions``, each list
tool's default table view in ``display``. Graph tools, file loaders/exporters and
whole-dataset work (samples, snapshots, diffs, summaries, top risks, find_assets, list_tags)
run in the heavy worker lane; the rest in the light lane.
"""

from __future__ import annotations

from ..layer.registry import Registry
from . import (
    compliance,
    display,
    findings,
    graph,
    inventory,
    meta,
    privacy,
    prompts,
    resources,
    workspace,
)

__all__ = ["default_registry"]


def default_registry() -> Registry:
    """A fresh registry holding the whole built-in catalog."""
    registry = Registry()
    workspace.register(registry)
    inventory.register(registry)
    graph.register(registry)
    findings.register(registry)
    compliance.register(registry)
    meta.register(registry)
    privacy.register(registry)
    resources.register(registry)
    prompts.register(registry)
    return display.add_display_meta(registry)
