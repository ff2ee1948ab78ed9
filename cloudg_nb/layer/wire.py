"""Wire vocabulary in one place: JSON-RPC / MCP error codes, MCP header names, the error body,
cloudg's resource URIs (with their builders), ``_meta`` keys and the extension's URL paths.

Stdlib only and free of other cloudg_nb imports, so the layer's errors, the protocol edge, the
Jupyter extension and the notebook client all take their numbers and names from here rather
than spelling them out (``tests/layer/test_wire.py`` checks them against the SDK's own
constants and looks for copies elsewhere; ``tests/layer/test_wire_vocabulary.py`` fails on a
``cloudg://`` or ``cloudg/`` literal outside this module). The error mapping:
``MCPLayerError`` goes out as ``INTERNAL_ERROR``, ``InvalidArgumentsError`` and
``NotFoundError`` as ``INVALID_PARAMS``, ``AccessDeniedError`` as ``ACCESS_DENIED``,
``RateLimitedError`` as ``RATE_LIMITED``; an unknown resource is ``RESOURCE_NOT_FOUND`` on
handshake-era requests only; an HTTP refusal at the edge is ``INVALID_REQUEST`` (4xx) or
``INTERNAL_ERROR`` (5xx).
"""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "ACCESS_DENIED",
    "ACTIVE_URIS",
    "ACTIVITY_API_PATH",
    "ACTIVITY_EVENT_SCHEMA",
    "ACTIVITY_SINCE_TEMPLATE",
    "ACTIVITY_URI",
    "API_PATH",
    "APPROVALS_API_PATH",
    "APPROVALS_EVENT_SCHEMA",
    "APPROVALS_URI",
    "APPROVAL_PAGE_PATH",
    "ARROW_FORMAT",
    "ASSET_TEMPLATE",
    "ASSISTANTS_API_PATH",
    "ASSISTANTS_EVENT_SCHEMA",
    "CACHE_META",
    "CATEGORY_META",
    "CHANGED_SINCE_META",
    "COLUMNS_UNAVAILABLE",
    "COMPLIANCE_URI",
    "CONNECTIONS_EVENT_SCHEMA",
    "CONNECTION_CLOSED",
    "DATASETS_URI",
    "DATASET_ASSETS_TEMPLATE",
    "DATASET_FINDINGS_TEMPLATE",
    "DATASET_PARTS",
    "DATASET_SUMMARY_TEMPLATE",
    "DISPLAY_META",
    "DURATION_META",
    "ENDPOINT_PATH",
    "ERROR_CODE_META",
    "ERROR_DATA_META",
    "ERROR_NAMES",
    "FINDINGS_BY_SEVERITY_TEMPLATE",
    "FINDINGS_SUMMARY_URI",
    "FINDING_TEMPLATE",
    "FINDING_URI_PREFIX",
    "FORMAT_META",
    "FRAMEWORK_TEMPLATE",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "JSONRPC_VERSION",
    "LAST_EVENT_ID_HEADER",
    "LOG_LEVEL_STATE_KEY",
    "MAX_ROWS_META",
    "MCP_METHOD_HEADER",
    "MCP_NAME_HEADER",
    "MCP_PROTOCOL_VERSION_HEADER",
    "MCP_SESSION_ID_HEADER",
    "META_PREFIX",
    "METHOD_NOT_FOUND",
    "METRICS_URI",
    "NOT_FOUND_CODES",
    "OAUTH_CLIENTS_API_PATH",
    "OAUTH_CONSENT_PATH",
    "OAUTH_ISSUER_PATH",
    "OAUTH_REQUESTS_API_PATH",
    "OAUTH_RESOURCE_METADATA_PATH",
    "PARSE_ERROR",
    "RATE_LIMITED",
    "REQUEST_CANCELLED",
    "RESOURCE_NOT_FOUND",
    "RETRIES_META",
    "SENSITIVITY_META",
    "STATUS_PATH",
    "TAGS_META",
    "TRANSFORMS_META",
    "URI_SCHEME",
    "WORKSPACE_URI",
    "activity_since_uri",
    "asset_uri",
    "dataset_uri",
    "dataset_uris",
    "error_response",
    "finding_uri",
    "summary_uri",
]

JSONRPC_VERSION: Final = "2.0"

# -- JSON-RPC 2.0 ------------------------------------------------------------------------------
PARSE_ERROR: Final = -32700
#: Also the SDK's code for a 404 on an unknown or ended session ("Session not found").
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
#: Invalid arguments, and every "not found" of the layer (tools, prompts, domain objects).
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603

# -- MCP and the SDK ---------------------------------------------------------------------------
#: The SDK's error for a request on a connection that closed before it was answered.
CONNECTION_CLOSED: Final = -32000
#: Resource not found in the handshake-era protocol (retired at 2026-07-28, where an unknown
#: resource is ``INVALID_PARAMS``).
RESOURCE_NOT_FOUND: Final = -32002
#: The SDK's answer to a cancelled handshake-era request over HTTP; also ours for calls ended
#: by a server shutdown.
REQUEST_CANCELLED: Final = -32800

# -- the layer's own ---------------------------------------------------------------------------
#: The policy refused the call.
ACCESS_DENIED: Final = -31001
#: A rate limit or concurrency limit refused the call (error data has ``retry_after``).
RATE_LIMITED: Final = -31029

#: Codes a caller may read as "no such thing" (either era).
NOT_FOUND_CODES: Final = frozenset({INVALID_PARAMS, RESOURCE_NOT_FOUND})

#: The names people read for the numeric codes (README, "Error codes"). ``INVALID_PARAMS`` is
#: also every "not found" of the layer: a reader tells them apart by the error data
#: (``cloudg_nb.notebook.call_result.ErrorInfo.name``).
ERROR_NAMES: Final = {
    PARSE_ERROR: "parse_error",
    INVALID_REQUEST: "invalid_request",
    METHOD_NOT_FOUND: "method_not_found",
    INVALID_PARAMS: "invalid_arguments",
    INTERNAL_ERROR: "internal_error",
    CONNECTION_CLOSED: "connection_closed",
    RESOURCE_NOT_FOUND: "not_found",
    REQUEST_CANCELLED: "cancelled",
    ACCESS_DENIED: "access_denied",
    RATE_LIMITED: "rate_limited",
}

# -- Streamable HTTP headers (lower case, as ASGI carries them) --------------------------------
MCP_SESSION_ID_HEADER: Final = "mcp-session-id"
MCP_PROTOCOL_VERSION_HEADER: Final = "mcp-protocol-version"
MCP_METHOD_HEADER: Final = "mcp-method"
MCP_NAME_HEADER: Final = "mcp-name"
LAST_EVENT_ID_HEADER: Final = "last-event-id"

# -- cloudg's ``_meta`` keys -------------------------------------------------------------------
#: Every key cloudg writes into (or reads from) a wire ``_meta`` mapping starts with this.
META_PREFIX: Final = "cloudg/"

# Request keys (what the notebook client asks list tools for).
#: The ``delta_base`` of a result the caller holds: answer only the rows changed since.
CHANGED_SINCE_META: Final = "cloudg/changed_since"
#: ``ARROW_FORMAT``: the whole result (up to ``MAX_ROWS_META`` rows) as Arrow IPC columns.
FORMAT_META: Final = "cloudg/format"
MAX_ROWS_META: Final = "cloudg/max_rows"
ARROW_FORMAT: Final = "arrow"
#: The error code of a columns request the policy cannot serve (the caller reads pages).
COLUMNS_UNAVAILABLE: Final = "columns_unavailable"

# Result keys.
#: An error result's code (``tool_error``, ``invalid_arguments``, ...) and its details.
ERROR_CODE_META: Final = "cloudg/error_code"
ERROR_DATA_META: Final = "cloudg/error_data"
#: The privacy transforms' report: what was redacted, masked, pseudonymised (never a value).
TRANSFORMS_META: Final = "cloudg/transforms"
DURATION_META: Final = "cloudg/duration_ms"
#: ``"hit"`` on a result the cache answered.
CACHE_META: Final = "cloudg/cache"
#: How many times the retry middleware ran the call again.
RETRIES_META: Final = "cloudg/retries"

# Listing keys (a tool's entry in ``tools/list``).
CATEGORY_META: Final = "cloudg/category"
SENSITIVITY_META: Final = "cloudg/sensitivity"
TAGS_META: Final = "cloudg/tags"
#: How a list tool's rows read in a table: ``{"columns": [...], "rows": "findings"}`` (the
#: columns shown by default, in order; what one row is, for captions). The rows keep every
#: column; a client shows the others on request.
DISPLAY_META: Final = "cloudg/display"

#: Where a handshake-era connection's ``logging/setLevel`` choice is kept (SDK connection state).
LOG_LEVEL_STATE_KEY: Final = "cloudg/log_level"

# -- resource URIs -----------------------------------------------------------------------------
URI_SCHEME: Final = "cloudg://"
WORKSPACE_URI: Final = "cloudg://workspace"
DATASETS_URI: Final = "cloudg://datasets"
#: The static resources that follow the active dataset.
FINDINGS_SUMMARY_URI: Final = "cloudg://findings/summary"
COMPLIANCE_URI: Final = "cloudg://compliance"
ACTIVE_URIS: Final = (FINDINGS_SUMMARY_URI, COMPLIANCE_URI)
#: The oversight resources: the activity feed and the calls waiting for approval.
ACTIVITY_URI: Final = "cloudg://activity"
APPROVALS_URI: Final = "cloudg://approvals"
METRICS_URI: Final = "cloudg://metrics"

# Templates (RFC 6570, as the registry matches them).
#: The parts of one dataset, each a resource: ``cloudg://datasets/{name}/{part}``.
DATASET_PARTS: Final = ("summary", "assets", "findings")
DATASET_SUMMARY_TEMPLATE: Final = "cloudg://datasets/{dataset}/summary"
DATASET_ASSETS_TEMPLATE: Final = "cloudg://datasets/{dataset}/assets"
DATASET_FINDINGS_TEMPLATE: Final = "cloudg://datasets/{dataset}/findings"
ASSET_TEMPLATE: Final = "cloudg://assets/{+ref}"
FINDING_TEMPLATE: Final = "cloudg://findings/{finding_id}"
FINDINGS_BY_SEVERITY_TEMPLATE: Final = "cloudg://findings/severity/{severity}"
FRAMEWORK_TEMPLATE: Final = "cloudg://compliance/{framework}"
ACTIVITY_SINCE_TEMPLATE: Final = "cloudg://activity/since/{seq}"
#: A finding's URI is this and its id (a prefix, for building a column of them at once).
FINDING_URI_PREFIX: Final = "cloudg://findings/"


def dataset_uri(name: str, part: str) -> str:
    """The URI of ``part`` (one of ``DATASET_PARTS``) of dataset ``name``."""
    return f"{DATASETS_URI}/{name}/{part}"


def summary_uri(name: str) -> str:
    """The URI of dataset ``name``'s summary."""
    return dataset_uri(name, "summary")


def dataset_uris(name: str) -> tuple[str, str, str]:
    """The resources showing one dataset: its summary, assets table and findings table."""
    summary, assets, findings = (dataset_uri(name, part) for part in DATASET_PARTS)
    return summary, assets, findings


def asset_uri(asset_id: str) -> str:
    """The resource URI of an asset (``cloudg://assets/{id}``)."""
    return f"{URI_SCHEME}assets/{asset_id}"


def finding_uri(finding_id: object) -> str:
    """The resource URI of a finding (``cloudg://findings/{id}``)."""
    return f"{FINDING_URI_PREFIX}{finding_id}"


def activity_since_uri(seq: int) -> str:
    """The activity feed's entries after sequence number ``seq``."""
    return f"{ACTIVITY_URI}/since/{seq}"


# -- the Jupyter extension's URL paths (relative to the server's ``base_url``) -----------------
#: The MCP endpoint assistants and notebooks connect to.
ENDPOINT_PATH: Final = "cloudg/mcp"
#: The extension's REST API (the analyst's): ``{API_PATH}/status``, ``.../assistants[/NAME]``.
API_PATH: Final = "cloudg/api"
STATUS_PATH: Final = "cloudg/api/status"
ASSISTANTS_API_PATH: Final = "cloudg/api/assistants"
#: The approvals (GET; ``/{id}``: POST a decision) and the activity feed, for JupyterLab.
APPROVALS_API_PATH: Final = "cloudg/api/approvals"
ACTIVITY_API_PATH: Final = "cloudg/api/activity"
#: The analyst's approval page of one waiting call: ``{APPROVAL_PAGE_PATH}/{id}``.
APPROVAL_PAGE_PATH: Final = "cloudg/approvals"
#: MCP authorization (OAuth 2.1): the issuer (authorize / token / register / revoke and its
#: metadata under it), the protected resource's metadata (RFC 9728; every 401 points at it),
#: the owner's consent page ``{OAUTH_CONSENT_PATH}/{id}`` and the consent requests waiting.
OAUTH_ISSUER_PATH: Final = "cloudg/oauth"
OAUTH_RESOURCE_METADATA_PATH: Final = "cloudg/.well-known/oauth-protected-resource/mcp"
OAUTH_CONSENT_PATH: Final = "cloudg/oauth/consent"
OAUTH_REQUESTS_API_PATH: Final = "cloudg/api/oauth/requests"
#: The OAuth clients the analyst registers ahead (GET, POST; ``/{client_id}``: DELETE).
OAUTH_CLIENTS_API_PATH: Final = "cloudg/api/oauth/clients"

# -- the extension's events on Jupyter's event bus (``jupyter_events`` schema ids) ------------
#: One approval changed: requested, decided, expired or cancelled.
APPROVALS_EVENT_SCHEMA: Final = "https://cloudg-nb.dev/events/approvals/v1"
#: The activity feed grew or the calls waiting changed (coalesced).
ACTIVITY_EVENT_SCHEMA: Final = "https://cloudg-nb.dev/events/activity/v1"
#: An assistant credential was minted or revoked.
ASSISTANTS_EVENT_SCHEMA: Final = "https://cloudg-nb.dev/events/assistants/v1"
#: A client's OAuth connection request waits for the analyst, or was answered or expired.
CONNECTIONS_EVENT_SCHEMA: Final = "https://cloudg-nb.dev/events/connections/v1"


def error_response(code: int, message: str, data: Any = None, *,
                   request_id: str | int | None = None) -> dict[str, Any]:
    """A JSON-RPC error message (``data`` only when given), for edges that answer without the
    SDK: refusals before a request reaches it, and shutdown answers."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": JSONRPC_VERSION, "id": request_id, "error": error}
