"""The framework-free core: specs, registry, schema, context, the layer and middleware.

Imports only the standard library and pydantic (never ``mcp``, ``tornado``, ``IPython`` or
``ipywidgets``), so every edge can build on it.

Names load on first use (PEP 562), so a part that needs one module, such as the wire constants
in a kernel, does not pay for the whole core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .lazy_names import lazy_names

if TYPE_CHECKING:
    from .bounds import InputBounds
    from .call_record import CallRecord, CallSink
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
    from .context import ToolContext
    from .enums import Capability, ChangeKind, Sensitivity
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
        CallRecorder,
        ConcurrencyLimitMiddleware,
        MetricsMiddleware,
        RetryMiddleware,
    )
    from .principal import Principal
    from .registry import Registry
    from .schema import validate_arguments
    from .specs import PromptArgument, PromptSpec, ResourceSpec, ResourceTemplateSpec, ToolSpec
    from .workers import RunInWorker, WorkerPool

__all__ = [
    "AccessDeniedError", "Annotations", "CallCancelledError", "InputBounds", "WorkerPool",
    "AudioContent", "AuditLogMiddleware",
    "BlobResourceContents", "CachingMiddleware", "CallInfo", "CallRecord", "CallRecorder",
    "CallSink", "Capability", "ChangeKind", "CloudGMCPLayer",
    "ConcurrencyLimitMiddleware", "EmbeddedResource", "ImageContent", "InputRejectedError",
    "InvalidArgumentsError", "MCPLayerError", "MetricsMiddleware", "Middleware",
    "NotFoundError", "Principal", "PromptArgument", "PromptMessage", "PromptResult",
    "PromptSpec", "RateLimitedError", "Registry", "ResourceLink", "ResourceSpec",
    "ResourceTemplateSpec", "RetryMiddleware", "RunInWorker", "Sensitivity", "TextContent",
    "TextResourceContents", "ToolContext", "ToolResult", "ToolSpec", "validate_arguments",
]

_WHERE: dict[str, str] = {
    'AccessDeniedError': '.errors',
    'Annotations': '.content',
    'AudioContent': '.content',
    'AuditLogMiddleware': '.middleware',
    'BlobResourceContents': '.content',
    'CachingMiddleware': '.middleware',
    'CallCancelledError': '.errors',
    'CallInfo': '.layer',
    'CallRecord': '.call_record',
    'CallRecorder': '.middleware',
    'CallSink': '.call_record',
    'Capability': '.enums',
    'ChangeKind': '.enums',
    'CloudGMCPLayer': '.layer',
    'ConcurrencyLimitMiddleware': '.middleware',
    'EmbeddedResource': '.content',
    'ImageContent': '.content',
    'InputBounds': '.bounds',
    'InputRejectedError': '.errors',
    'InvalidArgumentsError': '.errors',
    'MCPLayerError': '.errors',
    'MetricsMiddleware': '.middleware',
    'Middleware': '.layer',
    'NotFoundError': '.errors',
    'Principal': '.principal',
    'PromptArgument': '.specs',
    'PromptMessage': '.content',
    'PromptResult': '.content',
    'PromptSpec': '.specs',
    'RateLimitedError': '.errors',
    'Registry': '.registry',
    'ResourceLink': '.content',
    'ResourceSpec': '.specs',
    'ResourceTemplateSpec': '.specs',
    'RetryMiddleware': '.middleware',
    'RunInWorker': '.workers',
    'Sensitivity': '.enums',
    'TextContent': '.content',
    'TextResourceContents': '.content',
    'ToolContext': '.context',
    'ToolResult': '.content',
    'ToolSpec': '.specs',
    'WorkerPool': '.workers',
    'validate_arguments': '.schema',
}


__getattr__, __dir__ = lazy_names(__name__, _WHERE, globals())
