"""Privacy transforms applied to values leaving (output) or entering (input) the layer."""

from .pipeline import Pipeline, Transform, TransformContext, merge_report

__all__ = ["Pipeline", "Transform", "TransformContext", "merge_report"]
