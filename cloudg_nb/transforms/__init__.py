"""Privacy transforms applied to values leaving (output) or entering (input) the layer.

Output steps run in a fixed order — sanitize → redact → project → annotate — and input steps
are ``guard_secrets`` and the automatic depseudonymiser. ``PipelineBuilder`` turns a policy's
settings into pipelines; ``Vault`` issues and reverses pseudonyms.
"""

from ..layer.pipeline import Pipeline, Transform, TransformContext, merge_report
from .annotate import Annotate
from .builder import INPUT_STEPS, OUTPUT_STEPS, PipelineBuilder
from .depseudonymize import Depseudonymize
from .detectors import BUILTIN_DETECTORS, Detector
from .input_guard import GuardSecrets
from .project import Project
from .redact import Redactor
from .sanitize import Sanitizer
from .textpass import Redact, Sanitize, TextPass
from .vault import Vault, VaultError

__all__ = [
    "Annotate", "BUILTIN_DETECTORS", "Depseudonymize", "Detector", "GuardSecrets",
    "INPUT_STEPS", "OUTPUT_STEPS", "Pipeline", "PipelineBuilder", "Project", "Redact",
    "Redactor", "Sanitize", "Sanitizer", "TextPass", "Transform", "TransformContext", "Vault",
    "VaultError", "merge_report",
]
