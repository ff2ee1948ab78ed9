"""CloudGExtension: the Jupyter server extension that serves one governed layer over MCP.

Its traitlets are the configuration; Jupyter's hooks delegate: at settings time it builds the
``Endpoint`` (the layer, its session manager, the assistant credentials) and the request
``Identity``, and registers its events with Jupyter's event bus (``OversightEvents``); at
handlers time it adds cloudg's routes; at start the endpoint serves on the server's loop; at
stop it ends in-flight requests and that task. Bad configuration is logged as one line; the
endpoint then answers 503 with it.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupyter_server.extension.application import ExtensionApp
from jupyter_server.utils import url_path_join
from traitlets import Bool, Dict, Float, Int, List, Unicode

from cloudg_nb.layer.wire import (
    ACTIVITY_API_PATH,
    ACTIVITY_URI,
    APPROVAL_PAGE_PATH,
    APPROVALS_API_PATH,
    ASSISTANTS_API_PATH,
    ENDPOINT_PATH,
    OAUTH_CLIENTS_API_PATH,
    OAUTH_CONSENT_PATH,
    OAUTH_REQUESTS_API_PATH,
    STATUS_PATH,
)

from .assistant_auth import guard_routes
from .endpoint import Endpoint, end_event_streams, stop_sse_watchers
from .handlers import MCPHandler, NotFoundHandler, StatusHandler
from .identity import Identity
from .oauth_clients_api import OAuthClientsHandler
from .oauth_consent import ConsentPageHandler, ConsentRequestsHandler
from .oauth_server import JupyterOAuth
from .oversight_api import ActivityHandler, ApprovalsHandler
from .oversight_events import OversightEvents
from .oversight_handlers import ApprovalPageHandler, AssistantsHandler
from .public_address import PublicAddress, under_jupyterhub
from .served_layer import EndpointSettings, concurrency_limit
from .server_internals import stop_on_sigint

if TYPE_CHECKING:
    from collections.abc import Callable

    from cloudg_nb.layer import Principal
    from cloudg_nb.layer.middleware import ConcurrencyLimitMiddleware

__all__ = ["CloudGExtension"]


class CloudGExtension(ExtensionApp):
    """Serve the cloudg analysis layer to MCP clients at ``{base_url}cloudg/mcp``."""

    name = "cloudg"
    description = "cloudg-nb: a governed MCP endpoint for cloud-estate analysis"
    load_other_extensions = True

    enabled = Bool(True, config=True, help=(
        "Serve the MCP endpoint at {base_url}cloudg/mcp. False: the extension adds nothing."))
    policy = Unicode("standard", config=True, help=(
        "Policy profile (open, standard, strict, read_only, audit, analyst-team) or a policy "
        "file (YAML/JSON)."))
    prefix = Unicode("", config=True, help="Prefix added to every tool and prompt name.")
    datasets = List(Unicode(), default_value=["demo=sample:demo"], config=True, help=(
        "Datasets loaded at start, each NAME=PATH (a file or folder under allowed_roots), "
        "or NAME=sample:demo|drifted|scaled for a generated sample estate. Default: the demo "
        "sample estate. An empty list starts with an empty workspace."))
    allowed_roots = List(Unicode(), config=True, help=(
        "Folders tools may read estate files from. Default: the server's root_dir."))
    output_dir = Unicode("", config=True, help=(
        "The only folder tools write to (exports). Default: {root_dir}/cloudg-output."))
    default_timeout = Float(300.0, config=True, help=(
        "Seconds a tool call may run before it is answered with a timeout error (0: none)."))
    max_output_chars = Int(200_000, config=True, help=(
        "Longest tool result text, in characters; longer results are truncated (0: no cap)."))
    audit_log = Unicode(None, allow_none=True, config=True, help=(
        "JSON-lines audit file (mode 0600; argument values only as keyed hashes). Default: "
        "cloudg/audit.jsonl under the Jupyter data dir. An empty string disables it."))
    max_concurrency = Int(8, config=True, help=(
        "Tool calls that may run at once, everyone's together (others queue, then get "
        "'server busy'); 0: no limit."))
    reserved_concurrency = Int(4, config=True, help=(
        "Of max_concurrency, the slots only Jupyter users (the analyst) may use: assistants' "
        "calls together run in the others (always at least one), so they never make the "
        "analyst's calls wait. The analyst's waiting calls also go first when a slot frees."))
    max_concurrency_per_assistant = Int(2, config=True, help=(
        "Tool calls one assistant may run at once (0: no cap of its own)."))
    max_waiting_per_assistant = Int(2, config=True, help=(
        "Tool calls one assistant may have waiting for a slot; a call beyond that is refused "
        "at once with 'server busy' and a retry hint (retry_after, seconds). Waiting calls of "
        "different assistants are served in turn."))
    switch_interval = Float(0.0005, config=True, help=(
        "Seconds a Python thread runs before the interpreter lets another have the GIL "
        "(sys.setswitchinterval), set for the server process at start; 0 leaves Python's "
        "default (0.005). Short, the serving loop and the analyst's calls stay quick while "
        "assistants' CPU-bound calls run in worker threads (measured: a cold graph query "
        "of the analyst during two assistants' CPU-bound floods, 2.0 s at 0.005, 0.75 s at "
        "0.001, 0.43 s at 0.0005)."))
    cache_ttl = Float(0.0, config=True, help=(
        "Seconds results of read-only tools are reused for the same caller and arguments "
        "(cleared on any workspace change); 0 disables the cache."))
    roles = Dict(key_trait=Unicode(), value_trait=List(Unicode()), config=True, help=(
        "Jupyter user name -> policy roles, e.g. {\"alice\": [\"analyst\", \"default\"]}. "
        "Users not listed get default_roles."))
    default_roles = List(Unicode(), default_value=["default"], config=True, help=(
        "Policy roles of Jupyter users not listed in roles."))
    registry = Unicode("", config=True, help=(
        "MODULE:ATTR of an extra cloudg_nb Registry (or a function returning one) whose "
        "tools, resources and prompts are added to the built-in catalog (as the CLI's "
        "--registry, but merged)."))
    session_idle_timeout = Float(600.0, config=True, help=(
        "Seconds an idle handshake-era MCP session lives (no call in flight, no open stream) "
        "before it ends and its client initializes again; 0: never."))
    max_sessions_per_user = Int(100, config=True, help=(
        "Open MCP sessions one Jupyter user may hold; at the cap the longest-idle one is "
        "closed to make room (0: no cap)."))
    assistant_policy = Unicode("assistant", config=True, help=(
        "Policy profile (or file) that assistants connected with their own credential run "
        "under, unless their credential names another. The analyst keeps `policy`."))
    assistant_store = Unicode("", config=True, help=(
        "The assistant credential store (token digests only). Default: "
        "cloudg/assistants.json under the Jupyter data dir."))
    approval_timeout = Float(120.0, config=True, help=(
        "Seconds an assistant's sensitive call waits for the analyst's approval before it "
        "is refused (a profile's approval.timeout wins)."))
    require_approval = List(Unicode(), config=True, help=(
        "Tool names (globs) whose calls by an assistant wait for the analyst, for profiles "
        "without an `approval` section, besides the calls that always wait: those that "
        "change data the analyst (or another assistant) owns, and, unless a profile says "
        "otherwise, those that read or write files or reveal pseudonyms. Default: none."))
    max_pending_approvals = Int(3, config=True, help=(
        "Calls one assistant may have waiting for the analyst's approval at once; more are "
        "refused at once with a clear error."))
    assistant_max_datasets = Int(4, config=True, help=(
        "Datasets each assistant may hold in the workspace (its own loads, samples and "
        "snapshots); past it its next one is refused. The analyst's datasets are never "
        "unloaded to make room for an assistant's."))
    assistant_max_assets = Int(200_000, config=True, help=(
        "Assets each assistant's datasets may hold together (0: no cap of its own)."))
    activity_size = Int(1000, config=True, help=(
        f"Calls the live activity feed ({ACTIVITY_URI}) keeps."))
    public_url = Unicode("", config=True, help=(
        "The URL analysts open this server at (ending with its base_url), e.g. behind a "
        "proxy: https://notebooks.example.org/user/alice/. Approval links and the endpoint "
        "address are built from it, never from a request's Host or X-Forwarded-* headers. "
        "Default: under JupyterHub, this server's public URL as the hub gives it "
        "(JUPYTERHUB_PUBLIC_URL); else the server's own connection URL."))
    show_token = Bool(False, config=True, help=(
        "Also print a client command holding the real Jupyter token in the start log (the "
        "escape hatch of `cloudg-nb config --jupyter --server-token`: that token opens files "
        "and kernels too). Default: the log suggests `cloudg-nb config --jupyter`, which "
        "gives the assistant a credential of its own."))

    oauth = Bool(True, config=True, help=(
        "MCP authorization (OAuth 2.1) on the endpoint: clients that do OAuth (Claude Code, "
        "VS Code, Cursor, mcp-remote) connect with the bare URL and the analyst's consent on "
        "a Jupyter page, which creates an assistant credential. False: only minted tokens "
        "(and the server's own) are accepted, and an unauthenticated request gets 403."))
    oauth_access_token_lifetime = Float(3600.0, config=True, help=(
        "Seconds an OAuth access token works before the client refreshes it (refresh "
        "tokens rotate on every use; revoking the assistant ends both at once)."))
    oauth_root_discovery = Bool(None, allow_none=True, config=True, help=(
        "Also serve the OAuth metadata at the origin's root (/.well-known/...), which clients "
        "try when the server owns its origin. Default: yes, except under JupyterHub (whose "
        "hub owns the root). The metadata under {base_url}cloudg/ is always served."))

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: The endpoint and who its requests act as (None until settings time, and when
        #: ``enabled`` is False).
        self.endpoint: Endpoint | None = None
        self.identity: Identity | None = None
        #: The events on Jupyter's event bus (None when disabled or not built).
        self.events: OversightEvents | None = None
        #: MCP authorization (None: ``oauth`` is off, or the credential store is unusable).
        self.oauth_server: JupyterOAuth | None = None

    # -- Jupyter hooks -----------------------------------------------------------------------

    def initialize_settings(self) -> None:
        if not self.enabled:
            self.log.info("cloudg: MCP endpoint disabled (CloudGExtension.enabled = False)")
            return
        serverapp = self.serverapp
        self.identity = Identity(getattr(serverapp, "identity_provider", None), self.roles,
                                 self.default_roles)
        self.endpoint = Endpoint(self.endpoint_settings(), address=PublicAddress(serverapp),
                                 identity=self.identity, log=self.log)
        self.endpoint.build()
        endpoint = self.endpoint
        if self.oauth and endpoint.credentials.store is not None:
            root = self.oauth_root_discovery
            self.oauth_server = JupyterOAuth(
                endpoint.credentials, endpoint.address, getattr(serverapp, "base_url", "/"),
                access_lifetime=self.oauth_access_token_lifetime,
                root_discovery=not under_jupyterhub(os.environ) if root is None else root)
        if endpoint.desk is not None and endpoint.activity is not None:
            self.events = OversightEvents(getattr(serverapp, "event_logger", None), self.log)
            self.events.register()
            self.events.attach(endpoint.desk, endpoint.activity, endpoint.credentials)
            if self.oauth_server is not None:
                self.events.attach_connections(self.oauth_server.provider)

    def initialize_handlers(self) -> None:
        endpoint, identity = self.endpoint, self.identity
        if endpoint is None or identity is None:
            return
        oauth = self.oauth_server
        mcp = {"endpoint": endpoint, "identity": identity,
               "credentials": endpoint.credentials}
        pages = {"endpoint": endpoint, "identity": identity}
        web_app = getattr(self.serverapp, "web_app", None)
        if oauth is not None:
            from cloudg_nb.protocol.oauth_clients import CLIENT_ID_PATTERN

            consent = {**pages, "oauth": oauth}
            oauth.install(self.handlers, web_app)
            self.handlers.extend([
                (OAUTH_CONSENT_PATH + r"/([A-Za-z0-9_-]{1,64})", ConsentPageHandler, consent),
                (OAUTH_REQUESTS_API_PATH, ConsentRequestsHandler, consent),
                (OAUTH_CLIENTS_API_PATH, OAuthClientsHandler, consent),
                (OAUTH_CLIENTS_API_PATH + f"/({CLIENT_ID_PATTERN})", OAuthClientsHandler,
                 consent),
            ])
        self.handlers.extend([
            (ENDPOINT_PATH, MCPHandler, {**mcp, "oauth": oauth}),
            (STATUS_PATH, StatusHandler, pages),
            (ASSISTANTS_API_PATH, AssistantsHandler, mcp),
            (ASSISTANTS_API_PATH + r"/([a-z0-9][a-z0-9._-]{0,47})", AssistantsHandler, mcp),
            (APPROVALS_API_PATH, ApprovalsHandler, pages),
            (APPROVALS_API_PATH + r"/([A-Za-z0-9_-]{1,64})", ApprovalsHandler, pages),
            (ACTIVITY_API_PATH, ActivityHandler, pages),
            (APPROVAL_PAGE_PATH + r"/([A-Za-z0-9_-]{1,32})", ApprovalPageHandler, pages),
        ])
        # Keep last: every other path under cloudg/ answers 404 with cloudg's security
        # headers (routes added after this one are never reached).
        self.handlers.append((r"cloudg(/.*)?", NotFoundHandler))
        if web_app is not None:  # assistant tokens: refused on every route but the endpoint
            base_url = getattr(self.serverapp, "base_url", "/")
            guard_routes(web_app, url_path_join(base_url, ENDPOINT_PATH))

    async def _start_jupyter_server_extension(self, serverapp: Any) -> None:
        endpoint = self.endpoint
        if not self.enabled or endpoint is None:
            return
        stop_on_sigint(serverapp)
        if self.switch_interval > 0:
            sys.setswitchinterval(self.switch_interval)
        provider = getattr(serverapp, "identity_provider", None)
        endpoint.announce(getattr(provider, "token", "") or "")
        if self.events is not None:
            self.events.start()
        endpoint.start()

    async def stop_extension(self) -> None:
        """End in-flight MCP requests and streams, then the session manager task."""
        if self.events is not None:
            self.events.close()
        if self.endpoint is not None:
            await self.endpoint.stop()
            return
        end_event_streams()  # disabled: still end any event stream of the process
        await stop_sse_watchers()

    # -- the settings, as the endpoint takes them --------------------------------------------

    def endpoint_settings(self) -> EndpointSettings:
        """The traitlets as plain values, with the server's root dir and base URL."""
        root = getattr(self.serverapp, "root_dir", None) or os.getcwd()
        values: dict[str, Any] = {}
        for field in dataclasses.fields(EndpointSettings):
            if field.name not in ("root_dir", "base_url"):
                value = getattr(self, field.name)
                values[field.name] = tuple(value) if isinstance(value, list) else value
        return EndpointSettings(root_dir=Path(root).expanduser().resolve(),
                                base_url=getattr(self.serverapp, "base_url", "/"), **values)

    def concurrency_limit(self, is_assistant: Callable[[Principal], bool]
                          ) -> ConcurrencyLimitMiddleware | None:
        """The fair share of tool-call slots these settings make (``served_layer``)."""
        return concurrency_limit(self.endpoint_settings(), is_assistant)


logging.getLogger("cloudg.jupyter").addHandler(logging.NullHandler())


#: ``jupyter cloudg``: a Jupyter server with this extension (``--help-all`` lists its settings).
main = launch_new_instance = CloudGExtension.launch_instance
