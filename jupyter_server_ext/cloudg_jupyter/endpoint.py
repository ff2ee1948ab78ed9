"""The MCP endpoint's life on the server: ``build`` the one layer from the settings, ``start``
the session manager in one task on the server's loop (entered and exited there, the
configured datasets loaded first), ``stop`` it with the server, and say its ``status``.

A configuration problem found while building is kept as ``setup_problem`` (one line naming
the setting): the endpoint then answers 503 with it. The endpoint is what the assistant
credentials act through (``assistant_credentials.Serving``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cloudg_nb.jupyter_discovery import hub_public_root

from .assistant_credentials import AssistantCredentials
from .identity import Identity, scope_principal
from .public_address import PublicAddress, under_jupyterhub
from .served_layer import (
    EndpointSettings,
    SetupProblem,
    add_middleware,
    build_layer,
    check_assistant_policy,
    open_audit_log,
    policy_router,
    session_limits,
)

if TYPE_CHECKING:
    from cloudg_nb.layer import CloudGMCPLayer, Principal
    from cloudg_nb.layer.middleware import AuditLogMiddleware
    from cloudg_nb.oversight import ActivityLog, ApprovalDesk
    from cloudg_nb.policy.router import PolicyRouter
    from cloudg_nb.protocol.binding import LayerBinding
    from cloudg_nb.protocol.sessions import LimitedSessionManager

__all__ = ["STOP_TIMEOUT", "Endpoint", "end_event_streams", "stop_sse_watchers"]

#: Seconds ``stop`` waits for requests and the session manager to wind down.
STOP_TIMEOUT = 3.0

Log = logging.Logger | logging.LoggerAdapter[Any]


class Endpoint:
    """The endpoint ``settings`` describe, on a server whose links ``address`` builds and
    whose users ``identity`` names."""

    def __init__(self, settings: EndpointSettings, *, address: PublicAddress,
                 identity: Identity, log: Log) -> None:
        self.settings = settings
        self.address = address
        self.log = log
        self.credentials = AssistantCredentials(self, identity, log, settings.assistant_policy)
        self.layer: CloudGMCPLayer | None = None
        self.binding: LayerBinding | None = None
        self.session_manager: LimitedSessionManager | None = None
        self.asgi_app: Callable[..., Awaitable[None]] | None = None
        self.router: PolicyRouter | None = None
        self.activity: ActivityLog | None = None
        self.desk: ApprovalDesk | None = None
        self.audit: AuditLogMiddleware | None = None
        self.setup_problem: str | None = None
        self.dataset_problems: list[str] = []
        #: Set while the session manager runs (requests wait for it while it starts).
        self.ready = asyncio.Event()
        self.stopping = False
        self._stop = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        self._requests: set[asyncio.Task[Any]] = set()
        self._started_at = time.monotonic()

    # -- building ----------------------------------------------------------------------------

    def build(self) -> None:
        """Build the layer and its session manager; a problem becomes ``setup_problem`` (and
        one error line in the log)."""
        try:
            self._build()
        except SetupProblem as exc:
            self.setup_problem = str(exc)
        except Exception as exc:  # e.g. a registry module that fails while importing
            self.log.debug("cloudg: setup failed", exc_info=True)
            self.setup_problem = f"setting up failed ({type(exc).__name__}: {exc})"[:300]
        if self.setup_problem is not None:
            self.log.error("cloudg: MCP endpoint not available: %s", self.setup_problem)

    def _build(self) -> None:
        from cloudg_nb.assistants import AssistantStore, AssistantStoreError, server_identity
        from cloudg_nb.oversight import ActivityLog, ApprovalDesk
        from cloudg_nb.protocol import PrincipalResolver, bind_layer
        from cloudg_nb.protocol.http import session_manager

        settings = self.settings
        if settings.public_url:
            try:
                self.address.configure(settings.public_url)
            except ValueError as exc:
                raise SetupProblem(f"CloudGExtension.public_url: {exc}") from None
        store = AssistantStore(Path(settings.assistant_store).expanduser()
                               if settings.assistant_store else None)
        self.credentials.open(store, server_identity(settings.root_dir, settings.base_url))
        try:  # before the audit log, which writes beside it, creates the folder
            store.secure_folder()
        except AssistantStoreError as exc:  # the analyst's own use needs no credential store
            self.log.warning("cloudg: CloudGExtension.assistant_store: %s Minting assistant "
                             "credentials will fail until it can be written.", exc)
        self.activity = ActivityLog(max(1, settings.activity_size))
        self.desk = ApprovalDesk(audit=self.record_event,
                                 max_pending=max(1, settings.max_pending_approvals))
        layer = build_layer(settings, activity=self.activity, desk=self.desk,
                            assistants=self.credentials, log=self.log)
        self.router = self.credentials.profiles = policy_router(settings, layer)
        check_assistant_policy(settings, self.router)
        layer.policy = self.router
        self.audit = open_audit_log(settings)
        add_middleware(layer, settings, activity=self.activity, desk=self.desk,
                       router=self.router, audit=self.audit,
                       approval_url=self.address.approval_url, log=self.log)
        self.layer = layer
        self.binding = bind_layer(layer, resolver=PrincipalResolver(custom=scope_principal))
        self.session_manager = session_manager(self.binding, limits=session_limits(settings))
        self.asgi_app = self.session_manager.handle_request

    # -- serving -----------------------------------------------------------------------------

    def start(self) -> None:
        """Start serving on the running loop (nothing to start after a setup problem)."""
        if self.setup_problem is None:
            self._runner = asyncio.create_task(self._serve(), name="cloudg-mcp-session-manager")

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
                watcher = asyncio.create_task(self.credentials.watch_store(),
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

    async def _load_datasets(self) -> None:
        """Load ``datasets`` through the layer's own tools (as the local user); a failure is
        one log line and leaves the others loaded."""
        from cloudg_nb.dataset_specs import DatasetSpecError, parse_dataset_spec

        layer = self.layer
        if layer is None:
            return
        for item in self.settings.datasets:
            try:
                spec = parse_dataset_spec(item)
            except DatasetSpecError:
                self._dataset_problem(f"{item!r} is not NAME=PATH")
                continue
            try:
                result = await spec.load(layer)
            except Exception as exc:
                self._dataset_problem(f"{spec.name}: {exc}")
                continue
            if result.is_error:  # (a path outside the roots names the allowed_roots trait)
                self._dataset_problem(f"{spec.name}: {result.text}")

    def _dataset_problem(self, text: str) -> None:
        line = " ".join(text.split())[:400]
        self.dataset_problems.append(line)
        self.log.error("cloudg: CloudGExtension.datasets: not loaded: %s", line)

    def track_request(self, task: asyncio.Task[Any] | None) -> None:
        """A request in flight: cancelled if still running when the endpoint stops."""
        if task is not None:
            self._requests.add(task)

    def untrack_request(self, task: asyncio.Task[Any] | None) -> None:
        if task is not None:
            self._requests.discard(task)

    async def stop(self) -> None:
        """End in-flight MCP requests and streams, then the session manager task."""
        self.stopping = True
        end_event_streams()
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
        await stop_sse_watchers()
        if self.activity is not None:
            self.activity.close()
        if self.audit is not None:  # the layer holds nothing to close: its worker threads
            self.audit.close()  # are daemons that exit when idle

    # -- what the credentials act through (``Serving``) --------------------------------------

    def sessions_by_owner(self) -> Mapping[str | None, int]:
        manager = self.session_manager
        return manager.sessions_by_owner() if manager is not None else {}

    async def close_sessions_of(self, principal_id: str) -> int:
        manager = self.session_manager
        if manager is None or not self.ready.is_set():
            return 0
        return await manager.close_sessions_of(principal_id)

    def cancel_waiting_calls(self, principal_id: str, reason: str) -> int:
        return self.desk.cancel_for(principal_id, reason) if self.desk is not None else 0

    def record_event(self, fields: dict[str, Any]) -> None:
        if self.audit is not None:
            self.audit.record_event(fields)
        self.log.info("cloudg: %s", " ".join(f"{k}={v}" for k, v in fields.items()
                                             if v is not None))

    def run_in_background(self, work: Coroutine[Any, Any, Any]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            work.close()
            return
        task = loop.create_task(work)
        self._requests.add(task)
        task.add_done_callback(self._requests.discard)

    # -- telling people ----------------------------------------------------------------------

    def announce(self, server_token: str) -> None:
        """The start log: where the endpoint is, how to connect an assistant, and a warning
        when approval links may not reach analysts behind JupyterHub."""
        if self.setup_problem is not None:
            return
        url = self.address.endpoint_url()
        self.log.info("cloudg: MCP endpoint at %s", url)
        if (under_jupyterhub(os.environ) and not self.address.configured
                and hub_public_root(os.environ) is None):
            self.log.warning(
                "cloudg: approval links use this server's own address (%s), which analysts "
                "may not reach through JupyterHub: set JupyterHub.public_url (the hub passes "
                "it as JUPYTERHUB_PUBLIC_URL) or CloudGExtension.public_url",
                self.address.base())
        self.log.info(
            "cloudg: connect an assistant with a credential of its own (MCP endpoint only, "
            "revocable): cloudg-nb config --client claude-code --jupyter (or cursor, vscode, "
            "claude-desktop, jupyter-ai)")
        if self.settings.show_token and server_token:
            self.log.warning(
                "cloudg: (show_token) with the server's own token, which also opens files and "
                "kernels: claude mcp add --transport http cloudg %s "
                "--header \"Authorization: Bearer %s\"", url, server_token)

    def status(self, principal: Principal) -> dict[str, Any]:
        """What the endpoint serves, as ``principal`` sees it (its tool count)."""
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

        out: dict[str, Any] = {
            "endpoint": self.address.endpoint_url(),
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
            "tools": len(self.layer.list_tools(principal)),
            "assistants": {
                "policy": self.settings.assistant_policy,
                "credentials": self.credentials.credential_count(),
                "approval": (self.router.default_approval.describe()
                             if self.router is not None else None),
                "approval_timeout": self.settings.approval_timeout,
                "waiting": len(self.desk.pending()) if self.desk is not None else 0,
            },
            "sessions": (self.session_manager.open_sessions
                         if self.session_manager is not None else 0),
            "clients": self.binding.fanout.describe_sessions() if self.binding else [],
        })
        return out


def end_event_streams() -> None:
    """Tell sse-starlette (the SDK's SSE writer) that the process is stopping: open event
    streams end and its per-loop shutdown watcher exits (it polls every 0.5 s)."""
    with contextlib.suppress(ImportError):
        from sse_starlette.sse import AppStatus

        AppStatus.should_exit = True


async def stop_sse_watchers() -> None:
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
