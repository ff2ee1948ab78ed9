"""The core is framework-free: importing it pulls in no protocol, server or widget code."""

from __future__ import annotations

import subprocess
import sys

import pytest

EDGE_MODULES = ("mcp", "tornado", "IPython", "ipywidgets", "jupyter_server", "starlette")


@pytest.mark.parametrize("module", ["cloudg_nb.layer", "cloudg_nb"])
def test_importing_the_core_imports_no_edge_framework(module: str) -> None:
    code = (
        f"import {module}, sys, json; "
        f"print(json.dumps(sorted(set({EDGE_MODULES!r}) & set(sys.modules))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_public_api_is_reexported_from_the_package() -> None:
    import cloudg_nb

    names = [
        "CloudGMCPLayer", "CallInfo", "Registry", "ToolSpec", "ResourceSpec",
        "ResourceTemplateSpec", "PromptSpec", "PromptArgument", "ToolResult", "TextContent",
        "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource",
        "TextResourceContents", "BlobResourceContents", "PromptMessage", "PromptResult",
        "Principal", "ToolContext", "MCPLayerError", "InvalidArgumentsError", "NotFoundError",
        "AccessDeniedError", "RateLimitedError", "Sensitivity", "Capability", "Policy",
        "Workspace", "TransformContext", "Pipeline", "default_registry", "AuditLogMiddleware",
        "MetricsMiddleware", "CachingMiddleware", "ConcurrencyLimitMiddleware", "RetryMiddleware",
    ]
    missing = [n for n in names if not hasattr(cloudg_nb, n)]
    assert missing == []
    assert set(names) <= set(cloudg_nb.__all__)


def test_domain_and_privacy_types_are_importable_from_the_package() -> None:
    import cloudg_nb
    from cloudg_nb.estate import Dataset, DatasetLoadError
    from cloudg_nb.transforms.vault import Vault

    assert cloudg_nb.Dataset is Dataset
    assert cloudg_nb.DatasetLoadError is DatasetLoadError
    assert cloudg_nb.Vault is Vault
    assert {"PolicyError", "InputRejectedError", "NoDatasetError"} <= set(cloudg_nb.__all__)
