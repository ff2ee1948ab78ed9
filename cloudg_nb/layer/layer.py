"""CloudGMCPLayer: the one door every request goes through.

``call_tool``, ``read_resource``, ``get_prompt`` and ``complete`` run the middleware chain,
then a terminal that applies policy, input transforms, validation, the handler (async on the
loop, sync in a thread of the layer's own ``WorkerPool``), timeouts and output transforms.
Arguments are bounded (``InputBounds``) before anything else looks at them; arguments over
the loop budget are checked, admitted, transformed and validated in a worker thread, so one
large request never stalls the serving loop. A cancelled or timed-out call marks its context
so a sync handler stops at its next check. Adapters (MCP, Jupyter, notebook) only ever call
these four methods and the ``*_wire`` listings.
"""

from __future__ import annotations

import asyncio
import fnmatch
import inspect
import logging
import os
import re
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from typing import Any, Protocol, cast, runtime_checkable

from .bounds import InputBounds, check_arguments, check_uri, checked_on_loop
from .calls import CallInfo, Handler, Middleware, argument_work
from .collaborators import (
    ChangeListener,
    IdentifyingWorkspace,
    LayerPolicy,
    LearnsIdentifiers,
    PlannedAccess,
    PlansAccess,
    WatchedWorkspace,
)
from .content import (
    BlobResourceContents,
    PromptResult,
    TextResourceContents,
    ToolResult,
)
from .context import Completion, Principal, ToolContext, maybe_await
from .defaults import PolicySource, default_parts
from .enums import ChangeKind, Outcome, RequestKind
from .errors import (
    AccessDeniedError,
    CallCancelledError,
    InvalidArgumentsError,
    MCPLayerError,
    NotFoundError,
    RateLimitedError,
)
from .listeners import Listeners
from .plan import CallPlan
from .registry import Registry
from .schema import validate_arguments
from .shaping import (
    error_result,
    has_columns,
    prompt_result,
    redacted_error,
    resource_contents,
    tool_result,
)
from .specs import (
    AnySpec,
    PromptSpec,
    ResourceSpec,
    ResourceTemplateSpec,
    ToolSpec,
)
from .version import __version__
from .workers import LIGHT, RunInWorker, WorkerPool

__all__ = ["CloudGMCPLayer", "CallInfo", "Middleware", "ChangeListener", "AttachesToLayer"]

logger = logging.getLogger("cloudg.mcp")

PREFIX_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{0,64}$")
COMPLETION_LIMIT = 100
#: Key under which a prefixed layer looks up names without its prefix: never a valid name.
_UNRESOLVABLE = "\x00"


@runtime_checkable
class AttachesToLayer(Protocol):
    """A middleware that hooks into the layer it is added to (change events, a resource)."""

    def attach(self, layer: CloudGMCPLayer) -> None: ...


def _bind(mw: Middleware, nxt: Handler) -> Handler:
    async def call(info: CallInfo) -> Any:
        return await mw(info, nxt)

    return call


def _caller(principal: Principal | None, context: ToolContext | None) -> Principal:
    """Explicit principal, else the context's, else the local principal."""
    if principal is not None:
        return principal
    if context is not None and context.principal is not None:
        return context.principal
    return Principal.local()


def _listed(plan: CallPlan | PlannedAccess) -> bool:
    """Whether the spec of ``plan`` (the layer's, or the policy's own) is in the caller's
    listings: visible, unless the policy's plan says it is not ``listed``."""
    access = plan.access if isinstance(plan, CallPlan) else plan
    return bool(plan.visible and getattr(access, "listed", True))


class CloudGMCPLayer:
    """A governed MCP layer over a workspace and a registry of tools, resources and prompts."""

    def __init__(
        self,
        config: object = None,
        *,
        workspace: object = None,
        policy: LayerPolicy | PolicySource = None,
        registry: Registry | None = None,
        include_categories: Iterable[str] | None = None,
        exclude_categories: Iterable[str] | None = None,
        include_tools: Iterable[str] | None = None,
        exclude_tools: Iterable[str] | None = None,
        prefix: str = "",
        middleware: Sequence[Middleware] = (),
        default_timeout: float | None = 300.0,
        max_output_chars: int | None = 200_000,
        name: str = "cloudg",
        version: str | None = None,
        instructions: str | None = None,
        light_workers: int = 4,
        heavy_workers: int = 2,
        workers_per_caller: int | None = None,
        input_bounds: InputBounds | None = None,
        is_guest: Callable[[Principal], bool] | None = None,
    ) -> None:
        """``config``: the settings of the default workspace (a ``CloudGConfig``), handed to
        the registered default parts (``layer.defaults``) with whatever else is missing.
        ``light_workers``/``heavy_workers``: threads of the two worker lanes for sync
        handlers (see ``ToolSpec.lane``); ``workers_per_caller``: how many threads of a lane
        one principal may hold (default half the lane); ``input_bounds``: argument caps;
        ``is_guest(principal)``: which principals are guests (assistants: the package decides
        by role), whose work never takes the threads kept for the others (``WorkerPool``)."""
        # A policy given as a profile name, file, document or None is loaded by the defaults.
        if (workspace is None or registry is None or policy is None
                or isinstance(policy, str | os.PathLike | Mapping)):
            # The core builds none of them: the package registers what makes them (the
            # workspace, the policy engine and the catalog live above the core).
            workspace, policy, registry = default_parts(
                config, workspace=workspace, policy=policy, registry=registry)
        self.workspace = workspace
        self.policy = policy
        self.registry = self._filter_registry(
            registry,
            include_categories=include_categories,
            exclude_categories=exclude_categories,
            include_tools=include_tools,
            exclude_tools=exclude_tools,
        )
        self.prefix = prefix  # validated by the property setter
        self.middleware: list[Middleware] = []
        self.default_timeout = default_timeout
        self.max_output_chars = max_output_chars
        self.name = name
        self.version = __version__ if version is None else version
        self.instructions = instructions
        self.workers = WorkerPool(light_workers=light_workers, heavy_workers=heavy_workers,
                                  per_owner=workers_per_caller, is_guest=is_guest)
        self.input_bounds = input_bounds or InputBounds()
        self._listeners = Listeners(logger, "change listener")
        self._chains: dict[tuple[Any, ...], Handler] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        for mw in middleware:
            self.use(mw)
        if isinstance(workspace, WatchedWorkspace):
            workspace.on_change(self.notify_change)
        # Identifiers a pseudonymising policy must also find written bare (a GCP project id
        # in a title or a group key) are learned from the workspace's datasets.
        vault = getattr(self.policy, "vault", None)
        if isinstance(workspace, IdentifyingWorkspace) and isinstance(vault, LearnsIdentifiers):
            vault.add_source(workspace.identifier_sources)

    def __repr__(self) -> str:
        return f"CloudGMCPLayer(name={self.name!r}, prefix={self.prefix!r}, {self.registry!r})"

    # -- construction helpers ------------------------------------------------------------

    @staticmethod
    def _filter_registry(
        registry: Registry,
        *,
        include_categories: Iterable[str] | None = None,
        exclude_categories: Iterable[str] | None = None,
        include_tools: Iterable[str] | None = None,
        exclude_tools: Iterable[str] | None = None,
    ) -> Registry:
        """Without filters, ``registry`` itself; else a new Registry of the specs that pass.

        Category filters apply to every kind; tool filters (names or globs) only to tools.
        """
        inc_c = list(include_categories) if include_categories is not None else None
        exc_c = list(exclude_categories or ())
        inc_t = list(include_tools) if include_tools is not None else None
        exc_t = list(exclude_tools or ())
        if inc_c is None and not exc_c and inc_t is None and not exc_t:
            return registry

        def matches(value: str, patterns: list[str]) -> bool:
            return any(fnmatch.fnmatchcase(value, p) for p in patterns)

        filtered = Registry()
        for spec in registry:
            if inc_c is not None and not matches(spec.category, inc_c):
                continue
            if exc_c and matches(spec.category, exc_c):
                continue
            if isinstance(spec, ToolSpec):
                if inc_t is not None and not matches(spec.name, inc_t):
                    continue
                if exc_t and matches(spec.name, exc_t):
                    continue
            filtered.add(spec)
        return filtered

    @property
    def policy(self) -> LayerPolicy:
        """Asked about every request: once (``access_plan``) when it ``PlansAccess``, else
        through the four ``LayerPolicy`` questions."""
        return self._policy

    @policy.setter
    def policy(self, value: LayerPolicy) -> None:
        self._policy = value
        self._planner: PlansAccess | None = value if isinstance(value, PlansAccess) else None

    @property
    def prefix(self) -> str:
        return self._prefix

    @prefix.setter
    def prefix(self, value: str) -> None:
        if not isinstance(value, str) or not PREFIX_PATTERN.fullmatch(value):
            raise ValueError(
                "Invalid prefix: use at most 64 characters from A-Z a-z 0-9 _ . - "
                "(for example 'cloudg_')"
            )
        self._prefix = value

    def use(self, mw: Middleware) -> CloudGMCPLayer:
        """Append ``mw`` as the innermost middleware; it applies from the next request on."""
        self.middleware.append(mw)
        if isinstance(mw, AttachesToLayer):
            mw.attach(self)
        return self

    # -- names ---------------------------------------------------------------------------

    def exposed_name(self, name: str) -> str:
        return f"{self._prefix}{name}"

    def internal_name(self, exposed: str) -> str:
        """Strip the prefix; with a prefix set, an unprefixed name resolves to nothing."""
        prefix = self._prefix
        if not prefix:
            return exposed
        if isinstance(exposed, str) and exposed.startswith(prefix):
            return exposed[len(prefix) :]
        return _UNRESOLVABLE

    # -- change events -------------------------------------------------------------------

    def on_change(self, fn: ChangeListener) -> Callable[[], None]:
        """Call ``fn(kind, uri)`` on every change; returns a function that unsubscribes."""
        return self._listeners.add(fn)

    def notify_change(self, kind: ChangeKind, uri: str | None = None) -> None:
        """Report a change from any thread; listeners run on the serving loop's thread."""
        loop = self._loop
        if loop is not None and loop.is_running():
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is not loop:
                try:
                    loop.call_soon_threadsafe(self._dispatch_change, kind, uri)
                    return
                except RuntimeError:  # closed between the check and the call
                    pass
        self._dispatch_change(kind, uri)

    def _dispatch_change(self, kind: ChangeKind, uri: str | None) -> None:
        self._listeners.emit(kind, uri)

    # -- contexts ------------------------------------------------------------------------

    def context(self, principal: Principal | None = None, **fields: Any) -> ToolContext:
        """A handler context for ``principal`` (the local principal by default)."""
        return ToolContext(layer=self, principal=principal or Principal.local(), **fields)

    def _request_context(
        self, context: ToolContext | None, principal: Principal, kind: str, name: str,
        plan: CallPlan,
    ) -> ToolContext:
        """The adapter's context (filled in for this request) or a fresh one; progress
        messages and log data it sends go through the plan's output pipeline."""
        if context is None:
            context = ToolContext(layer=self, principal=principal, kind=kind, name=name)
        else:
            context.layer = context.layer or self
            context.principal, context.kind, context.name = principal, kind, name
        context.outbound = plan.reporting(None)
        return context

    def _remember_loop(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop = loop
        return loop

    async def _check_off_loop(self, arguments: Any, principal: Principal) -> None:
        """``check_arguments`` for arguments over the loop budget, in a worker thread."""
        await self.workers.run(LIGHT, principal, check_arguments, arguments,
                               self.input_bounds)

    async def _invoke(self, fn: Callable[..., Any], ctx: ToolContext, kwargs: dict,
                      lane: str = LIGHT, *, inline: Callable[..., Any] | None = None) -> Any:
        """Coroutine functions run on the loop; plain functions in a thread of ``lane``,
        unless their ``inline`` fast path answers on the loop (it raises ``RunInWorker``
        when it cannot; progress it reported is delivered before its result).

        A cancellation (timeout, client cancel or disconnect) marks the context: progress
        and logs stop, and the thread stops at its next ``ctx.check_cancelled()``.
        """
        ctx.loop = self._remember_loop()
        if inspect.iscoroutinefunction(fn):
            try:
                return await fn(ctx, **kwargs)
            except asyncio.CancelledError:
                ctx.cancel()
                raise
        if inline is not None:
            try:
                result = inline(ctx, **kwargs)
            except RunInWorker:
                pass  # progress already reported is not repeated (values must increase)
            else:
                if ctx._pending:
                    await ctx.flush_progress()
                return result
        try:
            result = await self.workers.run(lane, ctx.principal, fn, ctx, **kwargs)
        except asyncio.CancelledError:
            ctx.cancel()
            raise
        except Exception:
            if ctx._pending:
                await ctx.flush_progress()  # progress precedes the error result too
            raise
        if ctx._pending:
            await ctx.flush_progress()  # progress the thread reported precedes the result
        return await maybe_await(result)

    async def _run_chain(self, info: CallInfo, terminal: Handler) -> Any:
        """Run ``info`` through every middleware (``middleware[0]`` outermost) to ``terminal``.

        The chain reflects ``self.middleware`` as it is now, so ``use(mw)`` (or editing the
        list) applies from the next request; built chains are reused while it is unchanged.
        Adjacent recorders (audit, metrics, ...) run as one, which records each request once.
        """
        key = (terminal.__name__, *map(id, self.middleware))
        chain = self._chains.get(key)
        if chain is None:
            from .middleware.recorder import fuse_recorders  # adjacent recorders: one record

            chain = terminal
            for mw in reversed(fuse_recorders(self.middleware)):
                chain = _bind(mw, chain)
            if len(self._chains) > 64:
                self._chains.clear()
            self._chains[key] = chain
        return await chain(info)

    # -- visibility and listings ---------------------------------------------------------

    def _visible(self, spec: AnySpec, principal: Principal) -> bool:
        return bool(self.policy.is_allowed(spec, principal))

    def _listed(self, spec: AnySpec, principal: Principal) -> bool:
        """Visible, and not left out of the listings by the policy's plan (a spec outside a
        smaller tool set stays resolvable: its plan refuses a request and says why)."""
        planner = self._planner
        if planner is None:
            return self._visible(spec, principal)
        return _listed(planner.access_plan(spec, principal))

    def _record_hidden(self, kind: str, name: str, principal: Principal) -> None:
        try:
            self.policy.record_hidden(kind, name, principal)
        except Exception:
            logger.debug("policy.record_hidden failed", exc_info=True)

    def list_tools(self, principal: Principal | None = None) -> list[ToolSpec]:
        p = principal or Principal.local()
        return [s for s in self.registry.tools.values() if self._listed(s, p)]

    def list_resources(self, principal: Principal | None = None) -> list[ResourceSpec]:
        p = principal or Principal.local()
        return [s for s in self.registry.resources.values() if self._listed(s, p)]

    def list_templates(self, principal: Principal | None = None) -> list[ResourceTemplateSpec]:
        p = principal or Principal.local()
        return [s for s in self.registry.templates.values() if self._listed(s, p)]

    def list_prompts(self, principal: Principal | None = None) -> list[PromptSpec]:
        p = principal or Principal.local()
        return [s for s in self.registry.prompts.values() if self._listed(s, p)]

    def tools_wire(self, principal: Principal | None = None) -> list[dict[str, Any]]:
        """Tool definitions; ``outputSchema`` is withheld when outputs get transformed."""
        p = principal or Principal.local()
        plans = ((spec, self.plan(spec, p)) for spec in self.registry.tools.values())
        return [
            spec.to_wire(self.exposed_name(spec.name), output_schema=not plan.output)
            for spec, plan in plans if _listed(plan)
        ]

    def resources_wire(self, principal: Principal | None = None) -> list[dict[str, Any]]:
        return [spec.to_wire() for spec in self.list_resources(principal)]

    def templates_wire(self, principal: Principal | None = None) -> list[dict[str, Any]]:
        return [spec.to_wire() for spec in self.list_templates(principal)]

    def prompts_wire(self, principal: Principal | None = None) -> list[dict[str, Any]]:
        return [
            spec.to_wire(self.exposed_name(spec.name)) for spec in self.list_prompts(principal)
        ]

    # -- transforms ----------------------------------------------------------------------

    def plan(self, spec: AnySpec, principal: Principal) -> CallPlan:
        """What the policy decided about one request: visibility, admission, transforms
        (one ``access_plan`` when the policy ``PlansAccess``, else its four answers)."""
        policy, planner = self._policy, self._planner
        if planner is not None:
            access = planner.access_plan(spec, principal)
            return CallPlan(spec, principal, access.input, access.output, policy.vault,
                            access.visible, policy, access)
        return CallPlan(spec, principal, policy.input_pipeline(spec, principal),
                        policy.output_pipeline(spec, principal), policy.vault,
                        bool(policy.is_allowed(spec, principal)), policy)

    def _visible_plan(self, spec: AnySpec | None, principal: Principal) -> CallPlan | None:
        """The plan of a request to ``spec``; None when there is no such spec or the
        caller may not see it."""
        if spec is None:
            return None
        plan = self.plan(spec, principal)
        return plan if plan.visible else None

    def _plan_of(self, info: CallInfo) -> CallPlan:
        """``info.plan``, made now for a request that arrived without one."""
        plan = info.plan
        if plan is None:
            plan = info.plan = self.plan(info.spec, info.principal)
        return plan

    def _checked_untransform(self, arguments: dict[str, Any], info: CallInfo) -> dict[str, Any]:
        """Input pipeline; a refusal is recorded with the policy and re-raised."""
        plan = self._plan_of(info)
        try:
            value, _ = plan.transform(arguments, "input")
            return value
        except MCPLayerError as exc:
            info.outcome = Outcome.REJECTED
            try:
                self.policy.record_rejection(plan.spec, plan.principal, exc)
            except Exception:
                logger.debug("policy.record_rejection failed", exc_info=True)
            raise

    def _check_call(self, args: dict[str, Any], info: CallInfo) -> None:
        """Admit the request through its plan (a completion is checked as one); a refusal
        is marked on ``info`` for audit and metrics, and re-raised."""
        try:
            self._plan_of(info).admit(info.kind, args)
        except RateLimitedError:
            info.outcome = Outcome.RATE_LIMITED
            raise
        except AccessDeniedError:
            info.outcome = Outcome.DENIED
            raise

    # -- tools ---------------------------------------------------------------------------

    def get_tool(self, name: str, principal: Principal | None = None) -> ToolSpec:
        """The visible tool named ``name`` (exposed name); NotFoundError otherwise."""
        p = principal or Principal.local()
        spec = self.registry.tools.get(self.internal_name(name))
        if spec is None or not self._visible(spec, p):
            raise self._unknown_tool(name, p)
        return spec

    def _unknown_tool(self, name: str, principal: Principal) -> NotFoundError:
        self._record_hidden("tool", name, principal)
        return NotFoundError(
            # The name is not echoed: callers can send anything there, secrets included.
            "Unknown tool. List the available tools (tools/list) and call one of those names.",
            data={"kind": "tool"},
        )

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        principal: Principal | None = None,
        context: ToolContext | None = None,
    ) -> ToolResult:
        """Run a tool through the whole chain; failures come back as error results.

        Only an unknown or hidden tool name raises (NotFoundError), before the chain runs.
        """
        p = _caller(principal, context)
        plan = self._visible_plan(self.registry.tools.get(self.internal_name(name)), p)
        if plan is None:
            raise self._unknown_tool(name, p)
        spec = plan.spec
        started = time.monotonic()
        try:
            large = not checked_on_loop(arguments, self.input_bounds)
            if large:
                await self._check_off_loop(arguments, p)
        except MCPLayerError as exc:
            return error_result(exc.message, plan, exc.code, exc.data, started)
        ctx = self._request_context(context, p, "tool", spec.name, plan)
        info = CallInfo(RequestKind.TOOL, spec.name, spec, dict(arguments or {}), p, ctx,
                        plan=plan, large=large)
        try:
            return await self._run_chain(info, self._tool_terminal)
        except MCPLayerError as exc:
            return error_result(exc.message, plan, exc.code, exc.data, info.started)

    async def _tool_terminal(self, info: CallInfo) -> ToolResult:
        spec = cast(ToolSpec, info.spec)  # call_tool put it there
        ctx, plan = info.context, self._plan_of(info)
        kwargs = (await argument_work(info, self._tool_arguments, spec, info) if info.large
                  else self._tool_arguments(spec, info))
        timeout = spec.timeout_seconds or self.default_timeout
        exposed = self.exposed_name(spec.name)
        scope = asyncio.timeout(timeout) if timeout else nullcontext()
        try:
            async with scope:
                raw = await self._invoke(spec.handler, ctx, kwargs, spec.worker_lane,
                                         inline=spec.inline)
        except MCPLayerError:
            raise
        except CallCancelledError as exc:  # cancelled from elsewhere (e.g. the adapter)
            ctx.cancel(exc.reason)
            return _cancelled(exposed, exc, plan, info.started)
        except TimeoutError as exc:
            if timeout and getattr(scope, "expired", lambda: False)():
                ctx.cancel_reason = "timed out"  # _invoke marked it "cancelled" on the way out
                return error_result(
                    f"Tool {exposed} timed out after {timeout:g} s. Narrow the request "
                    "(filters, a smaller limit or depth) or try again later.",
                    plan, "timeout", {"timeout_seconds": timeout}, info.started,
                )
            return self._handler_error(exposed, exc, plan, info.started)
        except Exception as exc:
            return self._handler_error(exposed, exc, plan, info.started)
        if has_columns(raw):  # every distinct value through the policy: not on the loop
            base = ctx._last_progress or 0  # reports go on from the handler's last one

            def progress(step: float, total: float | None, message: str | None) -> None:
                ctx.report_progress_sync(base + step, None, message)

            try:
                return cast(ToolResult, await self.workers.run(
                    spec.worker_lane, ctx.principal, tool_result, raw, plan, ctx.links,
                    info.started, self.max_output_chars, progress))
            except CallCancelledError as exc:  # cancelled from elsewhere while encoding
                return _cancelled(exposed, exc, plan, info.started)
            finally:
                if ctx._pending:
                    await ctx.flush_progress()  # the reports precede the result
        return tool_result(raw, plan, ctx.links, info.started, self.max_output_chars)

    def _tool_arguments(self, spec: ToolSpec, info: CallInfo) -> dict[str, Any]:
        """The handler's keyword arguments: the call admitted, its arguments through the
        input pipeline, then validated."""
        self._check_call(info.arguments, info)
        arguments = self._checked_untransform(info.arguments, info)
        return validate_arguments(spec.arguments_model, arguments)  # type: ignore[arg-type]

    def _handler_error(
        self, exposed: str, exc: Exception, plan: CallPlan, started: float,
    ) -> ToolResult:
        # The model sees a fixed message and an id; what went wrong (type, message,
        # traceback) may hold data the policy never saw, so it goes to the server log only,
        # under the same id (a note on the traceback and the record's ``error_id``).
        error_id = secrets.token_hex(6)
        exc.add_note(f"cloudg error id: {error_id}")
        logger.exception("Tool %s failed", exposed, exc_info=exc,
                         extra={"error_id": error_id})
        return error_result(
            f"Tool {exposed} failed unexpectedly (error id {error_id}). The details are in "
            "the server log under this id; try again, or report the id to whoever runs the "
            "server.", plan, "handler_error", {"error_id": error_id}, started,
        )

    # -- resources -----------------------------------------------------------------------

    def _resolve_resource(self, uri: str, principal: Principal) -> tuple[CallPlan, dict[str, str]]:
        spec: ResourceSpec | ResourceTemplateSpec | None = self.registry.resources.get(uri)
        variables: dict[str, str] = {}
        if spec is None and isinstance(uri, str):
            found = self.registry.find_template(uri)
            if found is not None:
                spec, variables = found
        plan = self._visible_plan(spec, principal)
        if plan is None:
            self._record_hidden("resource", uri, principal)
            raise NotFoundError(
                "Unknown resource. List resources and resource templates "
                "(resources/list, resources/templates/list) for URIs that can be read.",
                data={"kind": "resource"},
            )
        return plan, variables

    async def read_resource(
        self,
        uri: str,
        *,
        principal: Principal | None = None,
        context: ToolContext | None = None,
    ) -> list[TextResourceContents | BlobResourceContents]:
        """Read a resource by URI (exact match first, then templates). Errors propagate."""
        p = _caller(principal, context)
        check_uri(uri, self.input_bounds)
        plan, variables = self._resolve_resource(uri, p)
        spec = plan.spec
        ctx = self._request_context(context, p, "resource", uri, plan)
        ctx.meta["uri"] = uri
        info = CallInfo(RequestKind.RESOURCE, uri, spec, dict(variables), p, ctx, plan=plan)
        try:
            return await self._run_chain(info, self._resource_terminal)
        except MCPLayerError as exc:
            raise redacted_error(exc, plan) from None

    async def _resource_terminal(self, info: CallInfo) -> list[Any]:
        spec = cast(ResourceSpec | ResourceTemplateSpec, info.spec)  # read_resource put it there
        ctx, uri, plan = info.context, info.name, self._plan_of(info)
        self._check_call(info.arguments, info)
        variables = info.arguments
        if isinstance(spec, ResourceTemplateSpec):
            variables = self._checked_untransform(variables, info)
        raw = await self._invoke(spec.handler, ctx, dict(variables), spec.worker_lane)
        return resource_contents(raw, uri, spec.mime_type, plan)

    # -- prompts -------------------------------------------------------------------------

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        principal: Principal | None = None,
        context: ToolContext | None = None,
    ) -> PromptResult:
        """Render a prompt. Missing required arguments are checked first. Errors propagate."""
        p = _caller(principal, context)
        spec = self.registry.prompts.get(self.internal_name(name))
        plan = self._visible_plan(spec, p)
        if spec is None or plan is None:
            self._record_hidden("prompt", name, p)
            raise NotFoundError(
                "Unknown prompt. List the available prompts (prompts/list) and use one of "
                "those names.",
                data={"kind": "prompt"},
            )
        large = not checked_on_loop(arguments, self.input_bounds)
        if large:
            await self._check_off_loop(arguments, p)
        arguments = dict(arguments or {})
        missing = [a.name for a in spec.arguments if a.required and a.name not in arguments]
        if missing:
            raise InvalidArgumentsError(
                f"Missing required prompt arguments: {', '.join(missing)}",
                data={"missing": missing},
            )
        ctx = self._request_context(context, p, "prompt", spec.name, plan)
        info = CallInfo(RequestKind.PROMPT, spec.name, spec, arguments, p, ctx, plan=plan,
                        large=large)
        try:
            return await self._run_chain(info, self._prompt_terminal)
        except MCPLayerError as exc:
            raise redacted_error(exc, plan) from None

    async def _prompt_terminal(self, info: CallInfo) -> PromptResult:
        spec = cast(PromptSpec, info.spec)  # get_prompt put it there
        ctx = info.context
        arguments = (await argument_work(info, self._prompt_arguments, info) if info.large
                     else self._prompt_arguments(info))
        declared = {a.name for a in spec.arguments}
        kwargs = {k: v for k, v in arguments.items() if k in declared}
        raw = await self._invoke(spec.handler, ctx, kwargs, spec.worker_lane)
        return prompt_result(raw, self.exposed_name(spec.name), self._plan_of(info))

    def _prompt_arguments(self, info: CallInfo) -> dict[str, Any]:
        """The prompt's arguments: the request admitted, then through the input pipeline."""
        self._check_call(info.arguments, info)
        return self._checked_untransform(info.arguments, info)

    # -- completions ---------------------------------------------------------------------

    def _completion_target(
        self, ref: dict[str, Any], argument_name: str, principal: Principal
    ) -> tuple[CallPlan, str, Callable[..., Any]] | None:
        kind = ref.get("type")
        spec: PromptSpec | ResourceTemplateSpec
        fn: Callable[..., Any] | None
        if kind == "ref/prompt":
            prompt = self.registry.prompts.get(self.internal_name(str(ref.get("name", ""))))
            if prompt is None:
                return None
            arg = prompt.argument(argument_name)
            fn = arg.completion if arg is not None else None
            spec, target_name = prompt, prompt.name
        elif kind == "ref/resource":
            uri = ref.get("uri")
            template = self.registry.templates.get(uri) if isinstance(uri, str) else None
            if template is None:
                return None
            fn = template.completions.get(argument_name)
            spec, target_name = template, template.uri_template
        else:
            return None
        if fn is None:
            return None
        plan = self._visible_plan(spec, principal)
        if plan is None:
            return None
        return plan, target_name, fn

    async def complete(
        self,
        ref: dict[str, Any],
        argument: dict[str, Any],
        *,
        principal: Principal | None = None,
        context_arguments: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Complete an argument of a prompt or a template variable.

        Returns ``{"values": [...<=100], "total": n, "hasMore": bool}``. An unknown or hidden
        ref gives empty values without running the chain; a policy refusal raises.
        """
        p = principal or Principal.local()
        empty: dict[str, Any] = {"values": [], "total": 0, "hasMore": False}
        argument_name = str(argument.get("name", ""))
        target = self._completion_target(ref or {}, argument_name, p)
        if target is None:
            return empty
        plan, target_name, fn = target
        checked = {"value": argument.get("value", ""), "context": context_arguments or {}}
        large = not checked_on_loop(checked, self.input_bounds)
        if large:
            await self._check_off_loop(checked, p)
        ctx = ToolContext(layer=self, principal=p, kind="completion", name=target_name,
                          completion=Completion(argument_name, fn))
        info = CallInfo(
            RequestKind.COMPLETION,
            target_name,
            plan.spec,
            {
                "argument": argument_name,
                "value": argument.get("value", ""),
                "context": dict(context_arguments or {}),
            },
            p,
            ctx,
            plan=plan,
            large=large,
        )
        return await self._run_chain(info, self._completion_terminal)

    async def _completion_terminal(self, info: CallInfo) -> dict[str, Any]:
        ctx = info.context
        argument_name = info.arguments["argument"]
        restored = (await argument_work(info, self._completion_arguments, info) if info.large
                    else self._completion_arguments(info))
        request = ctx.completion
        assert request is not None, "complete() sets the completion on its context"
        filled = dict(restored.get("arguments") or {})
        ctx.completion = request = Completion(request.argument, request.function, filled)
        fn = request.function
        try:
            raw = await self._invoke(fn, ctx, {"partial": str(restored.get("partial") or "")})
            values = [str(v) for v in (raw or ())]
        except Exception:
            logger.debug("completion for %s failed", info.name, exc_info=True)
            return {"values": [], "total": 0, "hasMore": False}
        plan = self._plan_of(info)
        if plan.output:
            out = []
            for v in values:
                wrapped, _ = plan.transform({argument_name: v})
                kept = wrapped.get(argument_name) if isinstance(wrapped, dict) else None
                if kept not in (None, ""):  # a value the policy dropped is omitted
                    out.append(str(kept))
            values = out
        total = len(values)
        return {
            "values": values[:COMPLETION_LIMIT],
            "total": total,
            "hasMore": total > COMPLETION_LIMIT,
        }

    def _completion_arguments(self, info: CallInfo) -> dict[str, Any]:
        """The partial value and the other arguments, the request admitted, through the
        input pipeline."""
        self._check_call({}, info)
        return self._checked_untransform(
            {"partial": info.arguments["value"], "arguments": info.arguments["context"]}, info)


def _cancelled(exposed: str, exc: CallCancelledError, plan: CallPlan,
               started: float) -> ToolResult:
    """The result of a call cancelled from elsewhere (the adapter, a disconnect)."""
    return error_result(f"Tool {exposed} was cancelled before it finished.", plan,
                        "cancelled", {"reason": exc.reason}, started)
