"""The built-in catalog of tools, resources and prompts (``default_registry``).

One module per category: workspace, inventory, graph, findings, compliance, meta and privacy
tools; resources and templates; prompts. Shared argument types and paging live in
``conventions``, output-schema pieces in ``schemas``, completion functions in ``completions``.
Worker lanes: graph tools and file loaders/exporters are heavy by default; whole-dataset work
(samples, snapshots, diffs, summaries, top risks, find_assets, list_tags) says ``lane="heavy"``;
lookups, counts, resources, prompts and completions stay in the light lane.
"""

from __future__ import annotations

from ..layer.registry import Registry
from . import compliance, findings, graph, inventory, meta, privacy, prompts, resources, workspace

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
    return registry
