"""The pipeline types, re-exported where the transforms live (defined in the framework-free core).

``Pipeline``, ``TransformContext``, ``Transform`` and ``merge_report`` are defined in
``cloudg_nb.layer.pipeline`` so the layer needs nothing from this package.
"""

from __future__ import annotations

from ..layer.pipeline import Pipeline, Transform, TransformContext, merge_report

__all__ = ["TransformContext", "Pipeline", "Transform", "merge_report"]
