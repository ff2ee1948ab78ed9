"""CloudGExtension: the Jupyter server extension that serves one governed layer over MCP.

At server start it builds one ``CloudGMCPLayer`` from its traitlets, binds it into the MCP
SDK, loads the configured datasets and runs the SDK session manager in one task on the
server's loop (entered and exited there); at server stop it ends in-flight requests and
that task. Bad configuration is logged as one line; the endpoint then answers 503 with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import getpass
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupyter_core.paths import jupyter_data_dir
from jupyter_server.extension.application import ExtensionApp
from jupyter_server.utils import url_path_join
from traitlets import Bool, Dict, Float, Int, List, Unicode

from .handlers import (
    PRINCIPAL_SCOPE_KEY,
    MCPHandler,
    NotFoundHandler,
    StatusHandler,
    shared_secret_auth,
)
from .public_address import check_public_url, public_base_url, under_jupyterhub

if TYPE_CHECKING:
    from jupyter_server.auth.identity import User

    from cloudg_nb.assistants import AssistantRecord, AssistantStore
    from cloudg_nb.layer import CloudGMCPLayer, Principal, Registry
    from cloudg_nb.layer.middleware import AuditLogMiddleware, ConcurrencyLimitMiddleware
    from cloudg_nb.oversight import ActivityLog, Approval, ApprovalDesk
    from cloudg_nb.policy.router import PolicyRouter
    from cloudg_nb.protocol import RequestInfo
    from cloudg_nb.protocol.binding import LayerBinding
    from cloudg_nb.protocol.sessions import LimitedSessionManager

__all__ = ["CloudGExtension"]

#: Seconds ``stop_extension`` waits for requests and the session manager to wind down.
STOP_TIMEOUT = 3.0
#: Seconds between two looks at the assistant store file (one ``stat``, ~2 µs): a credential
#: removed from the file by another process ends its sessions within about this long.
STORE_POLL = 0.1
#: Credentials refused for belonging to another server that the log has named already.
MAX_REFUSALS_LOGGED = 256
SAMPLE_PREFIX = "sample:"
#: Users whose request scope entries are kept (a Hub server has one user; a few to spare).
MAX_CACHED_USERS = 64
#: Open MCP sessions all assistants together may hold, of the server's 1000: the other half
#: stays for Jupyter users, and an assistant's new session never closes one of theirs.
MAX_ASSISTANT_SESSIONS = 500


class SetupProblem(Exception):
    """A configuration problem, said in one line that names the setting."""


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
        "Calls the live activity feed (cloudg://activity) keeps."))
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

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.layer: CloudGMCPLayer | None = None
        self.binding: LayerBinding | None = None
        self.session_manager: LimitedSessionManager | None = None
        self.asgi_app: Callable[..., Awaitable[None]] | None = None
        self.setup_problem: str | None = None
        self.dataset_problems: list[str] = []
        self.ready = asyncio.Event()
        self.stopping = False
        self._audit: AuditLogMiddleware | None = None
        self._stop = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        self._requests: set[asyncio.Task[Any]] = set()
        self._started_at = time.monotonic()
        self._scopes: dict[str, dict[str, Any]] = {}
        self.store: AssistantStore | None = None
        self.router: PolicyRouter | None = None
        self.activity: ActivityLog | None = None
        self.desk: ApprovalDesk | None = None
        self._last_used: dict[str, float] = {}
        self._known_assistants: set[str] = set()
        self._refusals_logged: set[str] = set()
        #: Which server this is, for binding assistant credentials (``server_identity``).
        self.server_identity = ""
        self._public_url = ""  # public_url, once checked

    # -- Jupyter hooks -------------------------------------------------------------------

    def initialize_settings(self) -> None:
        if not self.enabled:
            self.log.info("cloudg: MCP endpoint disabled (CloudGExtension.enabled = False)")
            return
        try:
            self._build()
        except SetupProblem as exc:
            self.setup_problem = str(exc)
        except Exception as exc:  # e.g. a registry module that fails while importing
            self.log.debug("cloudg: setup failed", exc_info=True)
            self.setup_problem = f"setting up failed ({type(exc).__name__}: {exc})"[:300]
        if self.setup_problem is not None:
            self.log.error("cloudg: MCP endpoint not available: %s", self.setup_problem)

    def initialize_handlers(self) -> None:
        if not self.enabled:
            return
        from .assistant_auth import guard_routes
        from .oversight_handlers import ApprovalPageHandler, AssistantsHandler

        ext = {"extension": self}
        self.handlers.extend([
            ("cloudg/mcp", MCPHandler, ext),
            ("cloudg/api/status", StatusHandler, ext),
            ("cloudg/api/assistants", AssistantsHandler, ext),
            (r"cloudg/api/assistants/([a-z0-9][a-z0-9._-]{0,47})", AssistantsHandler, ext),
            (r"cloudg/approvals/([A-Za-z0-9_-]{1,32})", ApprovalPageHandler, ext),
        ])
        # Keep last: every other path under cloudg/ answers 404 with cloudg's security
        # headers (routes added after this one are never reached).
        self.handlers.append((r"cloudg(/.*)?", NotFoundHandler))
        web_app = getattr(self.serverapp, "web_app", None)
        if web_app is not None:  # assistant tokens: refused on every route but the endpoint
            base_url = getattr(self.serverapp, "base_url", "/")
            guard_routes(web_app, url_path_join(base_url, "cloudg/mcp"))

    async def _start_jupyter_server_extension(self, serverapp: Any) -> None:
        if not self.enabled:
            return
        _stop_on_sigint(serverapp)
        if self.switch_interval > 0:
            sys.setswitchinterval(self.switch_interval)
        self._log_endpoint()
        if self.setup_problem is None:
            self._runner = asyncio.create_task(self._serve(), name="cloudg-mcp-session-manager")

    async def stop_extension(self) -> None:
        """End in-flight MCP requests and streams, then the session manager task."""
        self.stopping = True
        _end_event_streams()
        manager = self.session_manager
        if manager is not None and self.ready.is_set():
            try:  # sessions end, open streams finish, calls in flight are cancelled
                await asyncio.wait_for(manager.close_all(), STOP_TIMEOUT)
            except Exception:
                self.log.warning("cloudg: MCP sessions did not all close in time")
        self._stop.set()
        runner = self._runner
        if runner is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(runner), STOP_TIMEOUT)
        pending = [t for t in self._requests if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=STOP_TIMEOUT)
        if runner is not None and not runner.done():
            runner.cancel()
            await asyncio.wait([runner], timeout=STOP_TIMEOUT)
        await _stop_sse_watchers()
        if self.activity is not None:
            self.activity.close()
        self._close_audit()

    # -- building ------------------------------------------------------------------------

    def _root_dir(self) -> Path:
        root = getattr(self.serverapp, "root_dir", None) or os.getcwd()
        return Path(root).expanduser().resolve()

    def _build(self) -> None:
        from cloudg_nb.assembly import build_layer
        from cloudg_nb.assistants import (
            AssistantStore,
            AssistantStoreError,
            is_assistant,
            server_identity,
        )
        from cloudg_nb.config import CloudGConfig
        from cloudg_nb.oversight import ActivityLog, ApprovalDesk
        from cloudg_nb.oversight.catalog import register as register_oversight
        from cloudg_nb.policy import Policy, PolicyError
        from cloudg_nb.policy.approval import ApprovalRule
        from cloudg_nb.policy.router import PolicyRouter
        from cloudg_nb.protocol import PrincipalResolver, bind_layer
        from cloudg_nb.protocol.http import session_manager
        from cloudg_nb.protocol.sessions import SessionLimits

        if self.public_url:
            try:
                self._public_url = check_public_url(self.public_url)
            except ValueError as exc:
                raise SetupProblem(f"CloudGExtension.public_url: {exc}") from None
        self.store = AssistantStore(Path(self.assistant_store).expanduser()
                                    if self.assistant_store else None)
        self.server_identity = server_identity(self._root_dir(),
                                               getattr(self.serverapp, "base_url", "/"))
        try:  # before the audit log, which writes beside it, creates the folder
            self.store.secure_folder()
        except AssistantStoreError as exc:  # the analyst's own use needs no credential store
            self.log.warning("cloudg: CloudGExtension.assistant_store: %s Minting assistant "
                             "credentials will fail until it can be written.", exc)
        self.activity = ActivityLog(max(1, self.activity_size))
        self.desk = ApprovalDesk(audit=self._audit_event,
                                 max_pending=max(1, self.max_pending_approvals))
        root = self._root_dir()
        config = CloudGConfig(
            allowed_roots=[Path(p).expanduser() for p in self.allowed_roots] or [root],
            output_dir=Path(self.output_dir).expanduser() if self.output_dir
            else root / "cloudg-output",
            assistant_max_datasets=max(1, self.assistant_max_datasets),
            assistant_max_assets=max(0, self.assistant_max_assets),
        )
        try:
            registry = register_oversight(self._registry(), activity=self.activity,
                                          desk=self.desk, assistants=self)
            layer = build_layer(
                config,
                policy=self.policy or None,
                registry=registry,
                prefix=self.prefix,
                default_timeout=self.default_timeout or None,
                max_output_chars=self.max_output_chars or None,
                is_guest=is_assistant,
            )
        except PolicyError as exc:
            raise SetupProblem(f"CloudGExtension.policy: {exc}") from None
        except ValueError as exc:
            setting = "CloudGExtension.prefix" if "prefix" in str(exc) else "the layer"
            raise SetupProblem(f"{setting}: {exc}") from None
        default_rule = ApprovalRule.of_tools(self.require_approval)
        assert isinstance(layer.policy, Policy)
        self.router = PolicyRouter(layer.policy, assistant_default=self.assistant_policy,
                                   default_approval=default_rule)
        try:
            self.router.check_profile(self.assistant_policy)
        except PolicyError as exc:
            raise SetupProblem(f"CloudGExtension.assistant_policy: {exc}") from None
        layer.policy = self.router
        self._add_middleware(layer, is_assistant)
        self.layer = layer
        self.binding = bind_layer(layer, resolver=PrincipalResolver(custom=_scope_principal))
        limits = SessionLimits(
            idle_timeout=self.session_idle_timeout or None,
            per_principal=self.max_sessions_per_user or None,
            principal_key=_scope_owner,
            is_guest=is_assistant,
            guest_sessions=MAX_ASSISTANT_SESSIONS,
        )
        self.session_manager = session_manager(self.binding, limits=limits)
        self.asgi_app = self.session_manager.handle_request

    def _registry(self) -> Registry:
        from cloudg_nb.catalog import default_registry
        from cloudg_nb.cli import UsageError, load_registry

        registry = default_registry()
        if self.registry:
            try:
                extra = load_registry(self.registry)
            except UsageError as exc:
                raise SetupProblem(f"CloudGExtension.{exc}".replace("--registry", "registry")
                                   ) from None
            except Exception as exc:  # the module itself failed while importing
                self.log.debug("cloudg: loading the registry failed", exc_info=True)
                raise SetupProblem(f"CloudGExtension.registry: loading {self.registry} failed "
                                   f"({type(exc).__name__}: {exc})"[:300]) from None
            try:
                registry.merge(extra)
            except ValueError as exc:
                raise SetupProblem(f"CloudGExtension.registry: {exc}") from None
        return registry

    def _audit_path(self) -> Path | None:
        if self.audit_log is None:
            return Path(jupyter_data_dir()) / "cloudg" / "audit.jsonl"
        return Path(self.audit_log).expanduser() if self.audit_log else None

    def _add_middleware(self, layer: CloudGMCPLayer, is_assistant: Callable[[Any], bool],
                        ) -> None:
        """Activity (outermost: its durations include waits), call log, audit, the
        approval gate, then the concurrency limit (a call waiting for the analyst holds no
        slot; assistants get their fair share, never the analyst's slots) and the cache."""
        from cloudg_nb.layer.middleware import AuditLogMiddleware, CachingMiddleware
        from cloudg_nb.oversight import ACTIVITY_URI, APPROVALS_URI, ActivityMiddleware
        from cloudg_nb.oversight.approvals import ApprovalGate

        from .call_log import CallLogMiddleware

        assert self.activity is not None and self.desk is not None and self.router is not None
        layer.use(ActivityMiddleware(self.activity, is_assistant))
        layer.use(CallLogMiddleware(self.log))
        path = self._audit_path()
        if path is not None:
            try:
                self._audit = AuditLogMiddleware(path=path)
            except OSError as exc:
                raise SetupProblem(
                    f"CloudGExtension.audit_log: cannot write {path} ({exc.strerror})") from None
            layer.use(self._audit)
        layer.use(ApprovalGate(self.desk, self.router.approval_rule,
                               timeout=self.approval_timeout, url_for=self.approval_url))
        limiter = self.concurrency_limit(is_assistant)
        if limiter is not None:
            layer.use(limiter)
        if self.cache_ttl > 0:
            layer.use(CachingMiddleware(ttl=self.cache_ttl,
                                        keep_on=(ACTIVITY_URI, APPROVALS_URI)))

    def concurrency_limit(self, is_assistant: Callable[[str], bool]
                          ) -> ConcurrencyLimitMiddleware | None:
        """The fair share of tool-call slots from the traitlets: ``max_concurrency`` in all
        (0: no overall bound), ``reserved_concurrency`` of them kept for Jupyter users (at
        most all but one), each assistant at most ``max_concurrency_per_assistant`` running
        and ``max_waiting_per_assistant`` waiting. None when nothing is bounded."""
        from cloudg_nb.layer.middleware import ConcurrencyLimitMiddleware

        limit = self.max_concurrency if self.max_concurrency > 0 else None
        per_assistant = (self.max_concurrency_per_assistant
                         if self.max_concurrency_per_assistant > 0 else None)
        if limit is None and per_assistant is None:
            return None
        reserved = min(max(0, self.reserved_concurrency), limit - 1) if limit else 0
        return ConcurrencyLimitMiddleware(
            limit=limit, is_guest=is_assistant, reserved=reserved, per_guest=per_assistant,
            guest_queue=max(0, self.max_waiting_per_assistant))

    async def _load_datasets(self) -> None:
        """Load ``datasets`` through the layer's own tools (as the local user); a failure is
        one log line and leaves the others loaded."""
        layer = self.layer
        if layer is None:
            return
        for item in self.datasets:
            name, sep, path = item.partition("=")
            if not sep or not name or not path:
                self._dataset_problem(f"{item!r} is not NAME=PATH")
                continue
            if path.startswith(SAMPLE_PREFIX):
                tool = "sample_estate"
                arguments: dict[str, Any] = {"name": path[len(SAMPLE_PREFIX):],
                                             "dataset_name": name}
            else:
                tool, arguments = "load_dataset", {"path": path, "name": name}
            try:
                result = await layer.call_tool(layer.exposed_name(tool), arguments)
            except Exception as exc:
                self._dataset_problem(f"{name}: {exc}")
                continue
            if result.is_error:
                hint = ""
                if "allowed" in result.text and "CLOUDG_MCP_ALLOWED_ROOTS" in result.text:
                    hint = (" In Jupyter, CloudGExtension.allowed_roots lists the readable "
                            "folders (default: the server's root_dir).")
                self._dataset_problem(f"{name}: {result.text}{hint}")

    def _dataset_problem(self, text: str) -> None:
        line = " ".join(text.split())[:400]
        self.dataset_problems.append(line)
        self.log.error("cloudg: CloudGExtension.datasets: not loaded: %s", line)

    # -- serving -------------------------------------------------------------------------

    async def _serve(self) -> None:
        """The session manager's one task: entered and exited here, on the server loop."""
        binding, manager = self.binding, self.session_manager
        if binding is None or manager is None:  # not built (setup_problem says why)
            return
        binding.fanout.bind_loop()
        try:
            await self._load_datasets()
            async with manager.run():
                self.ready.set()
                watcher = asyncio.create_task(self._watch_store(),
                                              name="cloudg-assistant-store-watch")
                # The server's startup objects (and the loaded estates) live until it stops:
                # keep them out of the collector's full passes, which otherwise pause every
                # request for 0.1-0.3 s on a Jupyter-sized heap.
                gc.collect()
                gc.freeze()
                try:
                    await self._stop.wait()
                finally:
                    watcher.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await watcher
        except Exception:
            self.setup_problem = "its session manager stopped unexpectedly (see the log above)"
            self.log.exception("cloudg: the MCP session manager stopped unexpectedly")
        finally:
            self.ready.clear()
            binding.fanout.close()

    def track_request(self, task: asyncio.Task[Any] | None) -> None:
        if task is not None:
            self._requests.add(task)

    def untrack_request(self, task: asyncio.Task[Any] | None) -> None:
        if task is not None:
            self._requests.discard(task)

    def user_name(self, user: Any) -> str:
        """The principal id for a Jupyter ``user``.

        Jupyter's built-in identity providers guard the server with one shared secret
        (token or password) and invent a random anonymous user per cookie-less request, so
        every caller they admit is the server's owner: the OS account name (``jovyan`` on
        Binder). Other providers (JupyterHub's) name real users: their user name.
        """
        if shared_secret_auth(getattr(self.serverapp, "identity_provider", None)):
            return _owner_name()
        return str(getattr(user, "username", None) or user)

    @functools.cached_property
    def owner_user(self) -> User:
        """The Jupyter user that requests with the server's own token act as."""
        from jupyter_server.auth.identity import User

        name = _owner_name()
        return User(username=name, name=name, display_name=name)

    def principal_for(self, user: Any) -> Principal:
        from cloudg_nb.layer.context import Principal

        name = self.user_name(user)
        return Principal(name, frozenset(self.roles.get(name) or self.default_roles or
                                         ["default"]))

    def request_scope(self, user: Any) -> dict[str, Any]:
        """ASGI scope entries for a request by Jupyter ``user``: the principal for the
        binding, and an SDK user so an MCP session stays bound to who opened it (built once
        per user name)."""
        name = self.user_name(user)
        cached = self._scopes.get(name)
        if cached is not None:
            return cached
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
        from mcp.server.auth.provider import AccessToken

        principal = self.principal_for(user)
        token = AccessToken(token=f"jupyter-user:{principal.id}", client_id=principal.id,
                            scopes=sorted(principal.roles), subject=principal.id)
        entries = {PRINCIPAL_SCOPE_KEY: principal, "user": AuthenticatedUser(token)}
        if len(self._scopes) < MAX_CACHED_USERS:
            self._scopes[name] = entries
        return entries

    # -- assistants ----------------------------------------------------------------------

    def authenticate_assistant(self, token: str) -> AssistantRecord:
        """The assistant a token belongs to, minted for this server; notes its use. Raises
        ``AssistantRefused``: unknown or revoked, minted for another server, or minted
        before credentials were bound to a server."""
        from .assistant_auth import OTHER_SERVER, UNBOUND, UNKNOWN, AssistantRefused

        store = self.store
        record = store.verify(token) if store is not None else None
        if record is None:
            raise AssistantRefused(UNKNOWN)
        if not record.bound_to(self.server_identity):
            self._log_refusal(record)
            raise AssistantRefused(OTHER_SERVER if record.server else UNBOUND)
        self._last_used[record.name] = time.time()
        self._known_assistants.add(record.name)
        return record

    def _log_refusal(self, record: AssistantRecord) -> None:
        """Tell the analyst, once per credential, why an assistant's token is refused."""
        if record.token_sha256 in self._refusals_logged:
            return
        if len(self._refusals_logged) < MAX_REFUSALS_LOGGED:
            self._refusals_logged.add(record.token_sha256)
        where = (f"was minted for the server {record.server}" if record.server else
                 "was minted before credentials were bound to a server")
        self.log.warning("cloudg: refused assistant %s (token %s): its credential %s, not "
                         "this one (%s); mint one here: cloudg-nb config --client %s "
                         "--jupyter --name %s", record.name, record.hint, where,
                         self.server_identity, record.client, record.name)

    def assistant_scope(self, record: AssistantRecord) -> dict[str, Any]:
        """ASGI scope entries for a request by assistant ``record``: its principal and an SDK
        user that binds its MCP sessions to it."""
        key = f"{record.token_sha256}|{record.profile}"
        cached = self._scopes.get(key)
        if cached is not None:
            return cached
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
        from mcp.server.auth.provider import AccessToken

        from cloudg_nb.assistants import assistant_principal

        principal = assistant_principal(record)
        token = AccessToken(token=f"assistant:{record.token_sha256[:16]}",
                            client_id=principal.id, scopes=sorted(principal.roles),
                            subject=principal.id)
        entries = {PRINCIPAL_SCOPE_KEY: principal, "user": AuthenticatedUser(token)}
        if len(self._scopes) >= 4 * MAX_CACHED_USERS:
            self._scopes.clear()
        self._scopes[key] = entries
        return entries

    def mint_assistant(self, name: str, *, client: str = "other", profile: str | None = None,
                       ) -> tuple[str, AssistantRecord, bool]:
        """A new credential for assistant ``name`` (replacing one of that name); raises
        AssistantStoreError for a bad name or a profile that does not load."""
        from cloudg_nb.assistants import AssistantStoreError
        from cloudg_nb.policy import PolicyError

        if self.store is None or self.router is None:
            raise AssistantStoreError("The cloudg endpoint is not available: "
                                      f"{self.setup_problem or 'not started'}.")
        if profile:
            try:
                self.router.check_profile(profile)
            except PolicyError as exc:
                raise AssistantStoreError(f"profile: {exc}") from None
        token, record, replaced = self.store.mint(name, client=client, profile=profile or "",
                                                  server=self.server_identity)
        if replaced:
            self._end_assistant_later(record.principal_id, "its credential was replaced")
        self._known_assistants.add(record.name)
        self._audit_event({"event": "assistant.minted", "assistant": record.principal_id,
                           "client": record.client, "profile": record.profile or None,
                           "replaced": replaced})
        return token, record, replaced

    def describe_assistants(self) -> list[dict[str, Any]]:
        store = self.store
        if store is None:
            return []
        out = []
        for record in store.records(self.server_identity):
            item = record.public()
            item["profile"] = record.profile or self.assistant_policy
            used = self._last_used.get(record.name)
            item["last_used"] = (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(used))
                                 if used else None)
            item["sessions"] = (self.session_manager.sessions_by_owner().get(
                record.principal_id, 0) if self.session_manager is not None else 0)
            out.append(item)
        return out

    async def revoke_assistant(self, name: str, by: str) -> dict[str, Any] | None:
        """Revoke ``name``: its token is refused from the next request on, its open sessions
        and requests end, its calls waiting for approval are denied."""
        store = self.store
        removed = store.revoke(name, self.server_identity) if store is not None else []
        if not removed:
            return None
        record = removed[0]
        ended, denied = await self._end_assistant(record.principal_id,
                                                  "its credential was revoked")
        self._audit_event({"event": "assistant.revoked", "assistant": record.principal_id,
                           "by": by, "sessions_ended": ended, "calls_denied": denied})
        return {"revoked": record.name, "principal": record.principal_id,
                "sessions_ended": ended, "calls_denied": denied}

    async def _end_assistant(self, principal_id: str, reason: str) -> tuple[int, int]:
        self._scopes = {k: v for k, v in self._scopes.items()
                        if getattr(v.get(PRINCIPAL_SCOPE_KEY), "id", None) != principal_id}
        denied = self.desk.cancel_for(principal_id, reason) if self.desk is not None else 0
        ended = 0
        if self.session_manager is not None and self.ready.is_set():
            ended = await self.session_manager.close_sessions_of(principal_id)
        self._known_assistants.discard(principal_id.partition(":")[2])
        return ended, denied

    def _end_assistant_later(self, principal_id: str, reason: str) -> None:
        with contextlib.suppress(RuntimeError):
            task = asyncio.get_running_loop().create_task(
                self._end_assistant(principal_id, reason))
            self._requests.add(task)
            task.add_done_callback(self._requests.discard)

    async def _watch_store(self, every: float = STORE_POLL) -> None:
        """End the sessions, requests in flight and waiting calls of assistants whose
        credential disappeared from the store file (revoked by ``cloudg-nb assistants
        revoke`` with no server running, or by a hand edit), within ``every`` seconds.

        A ``stat`` of the file per look (about 2 µs; the file is read again only when it
        changed), rather than inotify: no dependency, and it works on every file system (on
        a network one, the client's attribute cache may delay it)."""
        seen = -1
        while True:
            await asyncio.sleep(every)
            store = self.store
            if store is None:
                continue
            try:
                generation = store.generation()
                if generation == seen:
                    continue
                seen = generation
                live = {r.name for r in store.records(self.server_identity)
                        if r.bound_to(self.server_identity)}
            except Exception:
                self.log.debug("cloudg: reading the assistant store failed", exc_info=True)
                continue
            for name in sorted(self._known_assistants - live):
                ended, denied = await self._end_assistant(f"assistant:{name}",
                                                          "its credential was revoked")
                self._audit_event({"event": "assistant.revoked", "assistant":
                                   f"assistant:{name}", "by": "store file",
                                   "sessions_ended": ended, "calls_denied": denied})

    # -- approvals ------------------------------------------------------------------------

    def public_base(self) -> str:
        """This server's address as analysts open it (``public_address``), ending in ``/``."""
        return public_base_url(self._public_url, self.serverapp, os.environ)

    def approval_url(self, approval: Approval, principal: Principal) -> str:
        """The approval page at the server's configured address (whoever asks, and however
        they reached the server)."""
        return url_path_join(self.public_base(), "cloudg/approvals", approval.id)

    def _audit_event(self, fields: dict[str, Any]) -> None:
        if self._audit is not None:
            self._audit.record_event(fields)
        self.log.info("cloudg: %s", " ".join(f"{k}={v}" for k, v in fields.items()
                                             if v is not None))

    def _close_audit(self) -> None:
        """Close the audit file (the layer holds nothing to close: its worker threads are
        daemons that exit when idle)."""
        if self._audit is not None:
            self._audit.close()

    # -- telling people ------------------------------------------------------------------

    def endpoint_url(self) -> str:
        return url_path_join(self.public_base(), "cloudg/mcp")

    def _log_endpoint(self) -> None:
        if self.setup_problem is not None:
            return
        url = self.endpoint_url()
        self.log.info("cloudg: MCP endpoint at %s", url)
        if (under_jupyterhub(os.environ) and not self._public_url
                and not os.environ.get("JUPYTERHUB_PUBLIC_URL")):
            self.log.warning(
                "cloudg: approval links use this server's own address (%s), which analysts "
                "may not reach through JupyterHub: set JupyterHub.public_url (the hub passes "
                "it as JUPYTERHUB_PUBLIC_URL) or CloudGExtension.public_url",
                self.public_base())
        self.log.info(
            "cloudg: connect an assistant with a credential of its own (MCP endpoint only, "
            "revocable): cloudg-nb config --client claude-code --jupyter (or cursor, vscode, "
            "claude-desktop, jupyter-ai)")
        provider = getattr(self.serverapp, "identity_provider", None)
        token = getattr(provider, "token", "") or ""
        if self.show_token and token:
            self.log.warning(
                "cloudg: (show_token) with the server's own token, which also opens files and "
                "kernels: claude mcp add --transport http cloudg %s "
                "--header \"Authorization: Bearer %s\"", url, token)

    def _credential_count(self) -> int | None:
        """This server's live credentials (None: the store cannot be read; it says why when
        one is minted or used)."""
        from cloudg_nb.assistants import AssistantStoreError

        if self.store is None:
            return 0
        try:
            records = self.store.records(self.server_identity)
        except AssistantStoreError:
            return None
        return sum(r.bound_to(self.server_identity) for r in records)

    def status(self, user: Any) -> dict[str, Any]:
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

        out: dict[str, Any] = {
            "endpoint": self.endpoint_url(),
            "ready": self.ready.is_set(),
            "protocol_versions": [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS],
            "uptime_seconds": round(time.monotonic() - self._started_at, 1),
            "switch_interval": sys.getswitchinterval(),
            "problems": ([self.setup_problem] if self.setup_problem else [])
            + list(self.dataset_problems),
        }
        if self.layer is None:
            return out
        from cloudg_nb.workspace import Workspace

        shared = self.layer.workspace
        workspace = shared.status() if isinstance(shared, Workspace) else {"loaded": []}
        out.update({
            "policy": self.layer.policy.name,
            "datasets": [
                {key: item[key] for key in ("name", "version", "active", "assets", "edges",
                                            "findings")}
                for item in workspace["loaded"]
            ],
            "tools": len(self.layer.list_tools(self.principal_for(user))),
            "assistants": {
                "policy": self.assistant_policy,
                "credentials": self._credential_count(),
                "approval": (self.router.default_approval.describe()
                             if self.router is not None else None),
                "approval_timeout": self.approval_timeout,
                "waiting": len(self.desk.pending()) if self.desk is not None else 0,
            },
            "sessions": (self.session_manager.open_sessions
                         if self.session_manager is not None else 0),
            "clients": self.binding.fanout.describe_sessions() if self.binding else [],
        })
        return out


def _stop_on_sigint(serverapp: Any) -> None:
    """Without a terminal, make SIGINT stop the server as SIGTERM does (as JupyterHub does).

    Jupyter installs its SIGINT handler (a y/n confirmation) only when stdin is a tty;
    otherwise Python's KeyboardInterrupt ends the loop and Jupyter's cleanup never runs:
    kernels, MCP sessions and calls in flight would be abandoned mid-way.
    """
    stop = getattr(serverapp, "_signal_stop", None)
    if stop is None or threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, stop)


def _end_event_streams() -> None:
    """Tell sse-starlette (the SDK's SSE writer) that the process is stopping: open event
    streams end and its per-loop shutdown watcher exits (it polls every 0.5 s)."""
    with contextlib.suppress(ImportError):
        from sse_starlette.sse import AppStatus

        AppStatus.should_exit = True


async def _stop_sse_watchers() -> None:
    """End sse-starlette's watcher task on this loop (it would notice ``should_exit`` only
    at its next 0.5 s poll), so none is left pending when the loop stops."""
    if "sse_starlette.sse" not in sys.modules:
        return  # nothing ever streamed events: no watcher to end
    try:
        from cloudg_nb.protocol.sdk_internals import sse_shutdown_watchers
    except ImportError:  # the SDK changed under us: setting up failed already, and said why
        return
    watchers = sse_shutdown_watchers()
    for task in watchers:
        task.cancel()
    if watchers:
        await asyncio.wait(watchers, timeout=1.0)


@functools.cache
def _owner_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid-{os.getuid()}"


def _scope_owner(scope: Any) -> str | None:
    """Whose session a request opens (session caps count per Jupyter user)."""
    principal = scope.get(PRINCIPAL_SCOPE_KEY) if isinstance(scope, dict) else None
    return getattr(principal, "id", None)


def _scope_principal(info: RequestInfo) -> Principal | None:
    """The binding's custom resolver: the principal the handler put into the ASGI scope."""
    request = getattr(info.request_context, "request", None)
    scope = getattr(request, "scope", None)
    return scope.get(PRINCIPAL_SCOPE_KEY) if isinstance(scope, dict) else None


logging.getLogger("cloudg.jupyter").addHandler(logging.NullHandler())


#: ``jupyter cloudg``: a Jupyter server with this extension (``--help-all`` lists its settings).
main = launch_new_instance = CloudGExtension.launch_instance
