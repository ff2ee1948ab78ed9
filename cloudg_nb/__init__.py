"""cloudg-nb: analyse a cloud estate in Jupyter together with AI assistants, over MCP.

Everything public is importable from here. The core (``cloudg_nb.layer``) is framework-free;
``mcp``, Jupyter and widget code live at the edges and are imported only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from .layer.defaults import register_default_parts
from .layer.lazy_names import lazy_names
from .layer.version import __version__

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time ``__getattr__`` loads these
    from .catalog import default_registry
    from .config import CloudGConfig
    from .estate import Dataset, DatasetLoadError, NoDatasetError, ReferenceNotFoundError
    from .layer import (
        AccessDeniedError,
        Annotations,
        AudioContent,
        AuditLogMiddleware,
        BlobResourceContents,
        CachingMiddleware,
        CallInfo,
        Capability,
        CloudGMCPLayer,
        ConcurrencyLimitMiddleware,
        EmbeddedResource,
        ImageContent,
        InputRejectedError,
        InvalidArgumentsError,
        MCPLayerError,
        MetricsMiddleware,
        NotFoundError,
        Principal,
        PromptArgument,
        PromptMessage,
        PromptResult,
        PromptSpec,
        RateLimitedError,
        Registry,
        ResourceLink,
        ResourceSpec,
        ResourceTemplateSpec,
        RetryMiddleware,
        Sensitivity,
        TextContent,
        TextResourceContents,
        ToolContext,
        ToolResult,
        ToolSpec,
    )
    from .layer.collaborators import LayerPolicy
    from .layer.defaults import PolicySource
    from .notebook import (
        Client,
        LiveFrame,
        connect,
        load_ipython_extension,
        local,
        unload_ipython_extension,
    )
    from .policy import Policy, PolicyError
    from .transforms import Pipeline, TransformContext
    from .transforms.vault import Vault, VaultError
    from .workspace import Workspace

__all__ = [
    "__version__", "AccessDeniedError", "Annotations", "AudioContent", "AuditLogMiddleware",
    "BlobResourceContents", "CachingMiddleware", "CallInfo", "Capability", "CloudGConfig",
    "CloudGMCPLayer", "ConcurrencyLimitMiddleware", "EmbeddedResource", "ImageContent",
    "InvalidArgumentsError", "MCPLayerError", "MetricsMiddleware", "NotFoundError", "Pipeline",
    "Policy", "Principal", "PromptArgument", "PromptMessage", "PromptResult", "PromptSpec",
    "RateLimitedError", "Registry", "ResourceLink", "ResourceSpec", "ResourceTemplateSpec",
    "RetryMiddleware", "Sensitivity", "TextContent", "TextResourceContents", "ToolContext",
    "ToolResult", "ToolSpec", "TransformContext", "Workspace", "default_registry",
    "InputRejectedError", "PolicyError", "Vault", "VaultError", "Dataset", "NoDatasetError",
    "ReferenceNotFoundError", "DatasetLoadError",
    "connect", "local", "Client", "LiveFrame", "load_ipython_extension",
    "unload_ipython_extension",
]

#: Where each public name lives; a name's module is imported on first use, so importing
#: ``cloudg_nb`` (or ``cloudg_nb.layer``) loads neither the catalog nor pandas, PyYAML, mcp.
_LAYER = "cloudg_nb.layer"
_LAZY = {
    **{name: _LAYER for name in (
        "AccessDeniedError", "Annotations", "AudioContent", "AuditLogMiddleware",
        "BlobResourceContents", "CachingMiddleware", "CallInfo", "Capability", "CloudGMCPLayer",
        "ConcurrencyLimitMiddleware", "EmbeddedResource", "ImageContent",
        "InvalidArgumentsError", "MCPLayerError", "MetricsMiddleware", "NotFoundError",
        "Principal", "PromptArgument", "PromptMessage", "PromptResult", "PromptSpec",
        "RateLimitedError", "Registry", "ResourceLink", "ResourceSpec", "ResourceTemplateSpec",
        "RetryMiddleware", "Sensitivity", "TextContent", "TextResourceContents", "ToolContext",
        "ToolResult", "ToolSpec", "InputRejectedError",
    )},
    "default_registry": "cloudg_nb.catalog",
    "CloudGConfig": "cloudg_nb.config",
    "Policy": "cloudg_nb.policy",
    "PolicyError": "cloudg_nb.policy",
    "Pipeline": "cloudg_nb.transforms",
    "TransformContext": "cloudg_nb.transforms",
    "Workspace": "cloudg_nb.workspace",
    "Vault": "cloudg_nb.transforms.vault",
    "VaultError": "cloudg_nb.transforms.vault",
    "Dataset": "cloudg_nb.estate",
    "NoDatasetError": "cloudg_nb.estate",
    "ReferenceNotFoundError": "cloudg_nb.estate",
    "DatasetLoadError": "cloudg_nb.estate",
    # The notebook side (mcp, IPython, ipywidgets load only when these are used).
    "connect": "cloudg_nb.notebook",
    "local": "cloudg_nb.notebook",
    "Client": "cloudg_nb.notebook",
    "LiveFrame": "cloudg_nb.notebook",
    "load_ipython_extension": "cloudg_nb.notebook",
    "unload_ipython_extension": "cloudg_nb.notebook",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())


def _assembled_parts(
    config: object = None,
    *,
    workspace: object = None,
    policy: LayerPolicy | PolicySource = None,
    registry: Registry | None = None,
) -> tuple[object, LayerPolicy, Registry]:
    """``assembly.default_parts``, imported when a layer first needs a default (it brings in
    the workspace, the policy engine, PyYAML and the catalog)."""
    from .assembly import default_parts

    return default_parts(cast("CloudGConfig | None", config), workspace=workspace,
                         policy=policy, registry=registry)


#: What ``CloudGMCPLayer`` builds when it is not given a workspace, a policy or a registry.
register_default_parts(_assembled_parts)
