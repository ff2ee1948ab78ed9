"""Fakes for tests of the core: a policy and a workspace written from the layer's Protocols
(``cloudg_nb.layer.collaborators``) alone, and ``core_layer``, a layer built from them.

A test of the core builds its layer here, so it loads neither the policy engine and its
profiles, nor a workspace and the estate, nor the catalog: what it asserts is what the core
does. Tests of the assembled application live outside ``tests/layer``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable
from typing import Any

from cloudg_nb.layer import AccessDeniedError, CloudGMCPLayer, RateLimitedError, Registry
from cloudg_nb.layer.context import Principal
from cloudg_nb.layer.pipeline import Pipeline, Transform
from cloudg_nb.layer.specs import AnySpec

__all__ = ["FakePolicy", "FakeWorkspace", "core_layer"]


def _names(spec: AnySpec) -> list[str]:
    """What a pattern may match: the spec's name, and a resource's URI or URI template."""
    return [n for n in (spec.name, getattr(spec, "uri", None), getattr(spec, "uri_template",
                                                                         None)) if n]


class FakePolicy:
    """A ``LayerPolicy``: everything allowed and nothing transformed, unless told otherwise.

    ``denied``: name or URI patterns (``fnmatch``) whose requests are refused with
    ``AccessDeniedError``; with ``hide_denied`` they are invisible instead (listing and
    resolving them look like nothing is there). ``limit``: how many requests it admits before
    it refuses the others with ``RateLimitedError``. ``refuse``: an error every check raises
    from now on. ``input``/``output``: the steps of its pipelines. What the layer tells it is
    recorded: ``checks`` (kind, name, arguments), ``hidden`` (kind, name) and ``rejections``
    (name, error).
    """

    vault = None

    def __init__(
        self,
        name: str = "fake",
        *,
        denied: Iterable[str] = (),
        hide_denied: bool = False,
        limit: int | None = None,
        input: Iterable[Transform] = (),
        output: Iterable[Transform] = (),
    ) -> None:
        self.name = name
        self.denied = list(denied)
        self.hide_denied = hide_denied
        self.limit = limit
        self.refuse: Exception | None = None
        self.input = Pipeline(input)
        self.output = Pipeline(output)
        self.checks: list[tuple[str, str, dict[str, Any]]] = []
        self.hidden: list[tuple[str, str]] = []
        self.rejections: list[tuple[str, Exception]] = []

    def _is_denied(self, spec: AnySpec) -> bool:
        return any(fnmatch.fnmatchcase(n, p) for n in _names(spec) for p in self.denied)

    def is_allowed(self, spec: AnySpec, principal: Principal) -> bool:
        return not (self.hide_denied and self._is_denied(spec))

    def _check(self, spec: AnySpec, kind: str, arguments: dict[str, Any]) -> None:
        self.checks.append((kind, spec.name, dict(arguments)))
        if self.refuse is not None:
            raise self.refuse
        if self._is_denied(spec):
            raise AccessDeniedError(
                f"Access denied by policy '{self.name}': {kind} '{spec.name}' is denied.",
                data={"policy": self.name, "kind": kind})
        if self.limit is not None:
            if self.limit <= 0:
                raise RateLimitedError(f"Rate limit of policy '{self.name}' reached.",
                                       data={"policy": self.name})
            self.limit -= 1

    def check_call(self, spec: AnySpec, principal: Principal, arguments: dict[str, Any]) -> None:
        self._check(spec, spec.kind, arguments or {})

    def check_completion(self, spec: AnySpec, principal: Principal) -> None:
        self._check(spec, "completion", {})

    def input_pipeline(self, spec: AnySpec, principal: Principal) -> Pipeline:
        return self.input

    def output_pipeline(self, spec: AnySpec, principal: Principal) -> Pipeline:
        return self.output

    def record_hidden(self, kind: str, name: str, principal: Principal) -> None:
        self.hidden.append((kind, name))

    def record_rejection(self, spec: AnySpec, principal: Principal, error: Exception) -> None:
        self.rejections.append((spec.name, error))


class FakeWorkspace:
    """A workspace that only reports changes: ``notify(kind, uri)`` reaches every listener
    the layer (or a test) added with ``on_change``; no datasets, no identifiers."""

    def __init__(self) -> None:
        self.listeners: list[Callable[[str, str | None], object]] = []

    def on_change(self, fn: Callable[[str, str | None], object]) -> Callable[[], None]:
        self.listeners.append(fn)
        return lambda: self.listeners.remove(fn)

    def notify(self, kind: str, uri: str | None = None) -> None:
        for fn in list(self.listeners):
            fn(kind, uri)


def core_layer(
    registry: Registry | None = None,
    *,
    policy: Any = None,
    workspace: object = None,
    **options: Any,
) -> CloudGMCPLayer:
    """A layer over ``registry`` (empty by default), a ``FakePolicy`` and a ``FakeWorkspace``
    unless others are given; ``options`` go to the constructor."""
    return CloudGMCPLayer(
        workspace=FakeWorkspace() if workspace is None else workspace,
        policy=FakePolicy() if policy is None else policy,
        registry=Registry() if registry is None else registry,
        **options,
    )
