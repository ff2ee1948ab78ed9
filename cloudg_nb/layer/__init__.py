"""The framework-free core: specs, registry, schema, context, the layer and middleware.

Imports only the standard library and pydantic (never ``mcp``, ``tornado``, ``IPython`` or
``ipywidgets``), so every edge can build on it.
"""

from .bounds import InputBounds
from .content import (
    Annotations,
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    PromptMessage,
    PromptResult,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolResult,
)
from .context import Principal, ToolContext
from .enums import Capability, Sensitivity
from .errors import (
    AccessDeniedError,
    CallCancelledError,
    InputRejectedError,
    InvalidArgumentsError,
    MCPLayerError,
    NotFoundError,
    RateLimitedError,
)
from .layer import CallInfo, CloudGMCPLayer, Middleware
from .middleware import (
    AuditLogMiddleware,
    CachingMiddleware,
    ConcurrencyLimitMiddleware,
    MetricsMiddleware,
    RetryMiddleware,
)
from .registry import Registry
from .schema import validate_arguments
from .specs import PromptArgument, PromptSpec, ResourceSpec, ResourceTemplateSpec, ToolSpec
from .workers import RunInWorker, WorkerPool

__all__ = [
    "AccessDeniedError", "Annotations", "CallCancelledError", "InputBounds", "WorkerPool",
    "AudioContent", "AuditLogMiddleware",
    "BlobResourceContents", "CachingMiddleware", "CallInfo", "Capability", "CloudGMCPLayer",
    "ConcurrencyLimitMiddleware", "EmbeddedResource", "ImageContent", "InputRejectedError",
    "InvalidArgumentsError", "MCPLayerError", "MetricsMiddleware", "Middleware",
    "NotFoundError", "Principal", "PromptArgument", "PromptMessage", "PromptResult",
    "PromptSpec", "RateLimitedError", "Registry", "ResourceLink", "ResourceSpec",
    "ResourceTemplateSpec", "RetryMiddleware", "RunInWorker", "Sensitivity", "TextContent",
    "TextResourceContents", "ToolContext", "ToolResult", "ToolSpec", "validate_arguments",
]
