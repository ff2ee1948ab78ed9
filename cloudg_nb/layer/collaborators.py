"""What the layer needs from the policy and the workspace it is given (``typing.Protocol``).

``cloudg_nb.policy.Policy`` and ``cloudg_nb.workspace.Workspace`` satisfy these; the layer
never imports them, not even to type them. Optional hooks are separate runtime-checkable
Protocols, tested with ``isinstance`` where they are used.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Protocol, runtime_checkable

from .enums import ChangeKind
from .pipeline import Pipeline, PseudonymVault
from .principal import Principal
from .specs import AnySpec

__all__ = [
    "LayerPolicy", "PlannedAccess", "PlansAccess", "ChangeListener", "IdentifierSource",
    "WatchedWorkspace", "IdentifyingWorkspace", "LearnsIdentifiers",
]

#: ``fn(kind, uri)``, called on every change of the workspace (or the layer's own events).
ChangeListener = Callable[[ChangeKind, "str | None"], object]

#: ``provider() -> [(key, entity, values), ...]``: identifiers to learn, once per ``key``.
IdentifierSource = Callable[[], list[tuple[Hashable, str, Callable[[], list[str]]]]]


class LayerPolicy(Protocol):
    """Access, rate limits and transforms for one principal and one spec.

    ``check_call`` and ``check_completion`` raise ``AccessDeniedError`` or
    ``RateLimitedError`` (and record the decision); ``record_hidden`` and
    ``record_rejection`` only record, and the layer ignores their failures.
    """

    @property
    def name(self) -> str: ...

    @property
    def vault(self) -> PseudonymVault | None:
        """Handed to every ``TransformContext``: the pseudonym vault (None: no pseudonyms)."""

    def is_allowed(self, spec: AnySpec, principal: Principal) -> bool: ...

    def check_call(
        self, spec: AnySpec, principal: Principal, arguments: dict[str, Any]
    ) -> None: ...

    def check_completion(self, spec: AnySpec, principal: Principal) -> None:
        """Like ``check_call`` for completing an argument of ``spec`` (kind ``completion``)."""

    def input_pipeline(self, spec: AnySpec, principal: Principal) -> Pipeline: ...

    def output_pipeline(self, spec: AnySpec, principal: Principal) -> Pipeline: ...

    def record_hidden(self, kind: str, name: str, principal: Principal) -> None: ...

    def record_rejection(self, spec: AnySpec, principal: Principal, error: Exception) -> None: ...


class PlannedAccess(Protocol):
    """What a policy decided about one spec for one caller, made once and reused: whether it
    is visible, its input and output pipelines, and the check each request passes.

    It may also say ``listed`` (a bool; True when absent): False keeps a visible spec out of
    the caller's listings (outside a smaller tool set), and its ``admit`` says why."""

    @property
    def visible(self) -> bool:
        """Like ``LayerPolicy.is_allowed``: listed and resolvable for the caller."""

    @property
    def input(self) -> Pipeline: ...

    @property
    def output(self) -> Pipeline: ...

    def admit(self, principal: Principal, kind: str, arguments: dict[str, Any]) -> None:
        """Like ``check_call`` (``kind`` the spec's kind) or ``check_completion`` (``kind``
        ``completion``): raise ``AccessDeniedError`` / ``RateLimitedError`` or let it pass,
        and record the decision."""


@runtime_checkable
class PlansAccess(Protocol):
    """A policy that answers everything about a (spec, principal) pair at once: the layer
    asks it once per request instead of asking four ``LayerPolicy`` methods."""

    def access_plan(self, spec: AnySpec, principal: Principal) -> PlannedAccess: ...


@runtime_checkable
class WatchedWorkspace(Protocol):
    """A workspace that reports its changes; the layer forwards them to its listeners."""

    def on_change(self, fn: ChangeListener) -> Callable[[], None]: ...


@runtime_checkable
class IdentifyingWorkspace(Protocol):
    """A workspace that can name the identifiers (account / project ids) in its datasets."""

    def identifier_sources(self) -> list[tuple[Hashable, str, Callable[[], list[str]]]]: ...


@runtime_checkable
class LearnsIdentifiers(Protocol):
    """A vault that learns identifiers from sources before it looks for words."""

    def add_source(self, provider: IdentifierSource) -> None: ...
