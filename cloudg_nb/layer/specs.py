"""The four primitive specs (tool, resource, template, prompt) and their wire shapes.

A spec binds a handler to its name, description, category, sensitivity and capabilities.
Tool specs derive unset annotation hints from capabilities and their input schema from
the handler signature; ``to_wire`` renders the MCP definition every adapter lists.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .content import Annotations, annotations_wire
from .enums import Capability, Sensitivity
from .schema import arguments_model, input_schema
from .wire import CATEGORY_META, SENSITIVITY_META, TAGS_META
from .workers import HEAVY, LANES, LIGHT

__all__ = [
    "NAME_PATTERN",
    "ToolAnnotations",
    "ToolSpec",
    "ResourceSpec",
    "ResourceTemplateSpec",
    "PromptArgument",
    "PromptSpec",
    "AnySpec",
    "validate_name",
    "HEAVY_CATEGORIES",
]

#: Tool categories whose sync handlers run in the heavy worker lane by default.
HEAVY_CATEGORIES = frozenset({"graph", "loaders"})
#: Capabilities that mark a tool as heavy by default (file and cloud I/O, execution).
_HEAVY_CAPABILITIES = frozenset({Capability.READ_FS, Capability.WRITE_FS, Capability.EXEC,
                                 Capability.CLOUD_ACCESS})

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


def validate_name(name: str, what: str = "tool") -> str:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ValueError(
            f"Invalid {what} name: use 1-128 characters from A-Z a-z 0-9 _ . - "
            f"(got {len(name) if isinstance(name, str) else type(name).__name__} characters)"
        )
    return name


def _doc(handler: Callable[..., Any]) -> str:
    return inspect.cleandoc(handler.__doc__) if handler.__doc__ else ""


def _capabilities(value: Iterable[Capability | str] | None) -> frozenset[Capability]:
    if value is None:
        return frozenset({Capability.READ_STATE})
    return frozenset(Capability.parse(v) for v in value)


def _meta(spec: _SpecBase) -> dict[str, Any]:
    meta: dict[str, Any] = {
        CATEGORY_META: spec.category,
        SENSITIVITY_META: spec.sensitivity.value,
    }
    if spec.tags:
        meta[TAGS_META] = sorted(spec.tags)
    meta.update(spec.meta)
    return meta


@dataclass(kw_only=True)
class _SpecBase:
    name: str
    handler: Callable[..., Any]
    title: str | None = None
    description: str = ""
    category: str = "general"
    tags: set[str] = field(default_factory=set)
    sensitivity: Sensitivity = Sensitivity.CONFIDENTIAL
    capabilities: frozenset[Capability] = field(
        default_factory=lambda: frozenset({Capability.READ_STATE})
    )
    meta: dict[str, Any] = field(default_factory=dict)
    icons: list[dict[str, Any]] | None = None
    #: Worker lane of a sync handler: ``light`` (cheap reads, never queued behind heavy work)
    #: or ``heavy``. None picks by kind: resources, templates and prompts are light; tools
    #: are heavy in a HEAVY_CATEGORIES category or with file/cloud/exec capabilities, else
    #: light. Async handlers run on the loop and ignore it.
    lane: str | None = None

    kind: str = field(default="", init=False, repr=False)

    def _common_post_init(self) -> None:
        if not callable(self.handler):
            raise TypeError(f"The handler of {self.kind} {self.name!r} is not callable")
        self.sensitivity = Sensitivity.parse(self.sensitivity)
        self.capabilities = _capabilities(self.capabilities)
        self.tags = set(self.tags)
        if not self.description:
            self.description = _doc(self.handler)
        if self.lane is not None and self.lane not in LANES:
            raise ValueError(f"Unknown lane {self.lane!r} for {self.kind} {self.name!r}; use "
                             f"{' or '.join(LANES)}")

    @property
    def worker_lane(self) -> str:
        """The lane this spec's sync handler runs in (``lane``, or the default by kind)."""
        if self.lane is not None:
            return self.lane
        if self.kind != "tool":
            return LIGHT
        if self.category in HEAVY_CATEGORIES or self.capabilities & _HEAVY_CAPABILITIES:
            return HEAVY
        return LIGHT

    def _wire_common(self, out: dict[str, Any]) -> dict[str, Any]:
        if self.title:
            out["title"] = self.title
        if self.icons:
            out["icons"] = list(self.icons)
        out["_meta"] = _meta(self)
        return out


@dataclass(slots=True)
class ToolAnnotations:
    """Behaviour hints for clients; ``None`` means not stated."""

    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

    def to_wire(self) -> dict[str, Any]:
        pairs = (
            ("title", self.title),
            ("readOnlyHint", self.read_only),
            ("destructiveHint", self.destructive),
            ("idempotentHint", self.idempotent),
            ("openWorldHint", self.open_world),
        )
        return {k: v for k, v in pairs if v is not None}


@dataclass(kw_only=True)
class ToolSpec(_SpecBase):
    input_schema: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    annotations: ToolAnnotations | dict[str, Any] | None = None
    transform_hints: dict[str, Any] = field(default_factory=dict)
    timeout_seconds: float | None = None
    arguments_model: type[BaseModel] | None = field(default=None, repr=False)
    #: A sync tool's fast path: ``inline(ctx, **arguments)`` runs on the event loop first
    #: (no thread hop) and answers from cached reads, or raises ``RunInWorker`` before doing
    #: anything slow; then ``handler`` runs in its worker lane as usual.
    inline: Callable[..., Any] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.kind = "tool"
        validate_name(self.name, "tool")
        self._common_post_init()
        ann = self.annotations
        if ann is None:
            ann = ToolAnnotations()
        elif isinstance(ann, dict):
            ann = ToolAnnotations(**ann)
        else:
            ann = dataclasses.replace(ann)  # never write hints into the caller's object
        if self.title:
            ann.title = self.title
        caps = self.capabilities
        writes = bool({Capability.WRITE_STATE, Capability.WRITE_FS, Capability.EXEC} & caps)
        outward = bool({Capability.CLOUD_ACCESS, Capability.EXEC} & caps)
        if ann.read_only is None:
            ann.read_only = not writes
        if ann.destructive is None:
            ann.destructive = False
        if ann.open_world is None:
            ann.open_world = outward
        if ann.idempotent is None and ann.read_only and not outward:
            ann.idempotent = True
        self.annotations = ann
        if self.arguments_model is None:
            self.arguments_model = arguments_model(self.handler)
        if self.input_schema is None:
            self.input_schema = input_schema(self.handler)
        if self.timeout_seconds is not None and self.timeout_seconds <= 0:
            raise ValueError("timeout_seconds must be positive (or None for the default)")

    @property
    def read_only(self) -> bool:
        return bool(self.annotations.read_only)  # type: ignore[union-attr]

    @property
    def idempotent(self) -> bool:
        return bool(self.annotations.idempotent)  # type: ignore[union-attr]

    def to_wire(self, exposed_name: str | None = None, *, output_schema: bool = True) -> dict:
        name = validate_name(exposed_name or self.name, "tool")
        out: dict[str, Any] = {
            "name": name,
            "description": self.description or "",
            "inputSchema": self.input_schema,
        }
        if output_schema and self.output_schema:
            out["outputSchema"] = self.output_schema
        hints = self.annotations.to_wire()  # type: ignore[union-attr]
        if hints:
            out["annotations"] = hints
        return self._wire_common(out)


@dataclass(kw_only=True)
class ResourceSpec(_SpecBase):
    uri: str
    mime_type: str = "application/json"
    annotations: Annotations | dict[str, Any] | None = None
    size: int | None = None

    def __post_init__(self) -> None:
        self.kind = "resource"
        if not self.uri or any(ch.isspace() for ch in self.uri):
            raise ValueError("A resource URI must be non-empty and contain no whitespace")
        self._common_post_init()

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri, "name": self.name, "mimeType": self.mime_type}
        if self.description:
            out["description"] = self.description
        if self.size is not None:
            out["size"] = self.size
        ann = annotations_wire(self.annotations)
        if ann:
            out["annotations"] = ann
        return self._wire_common(out)


_VAR = re.compile(r"\{(\+?)([A-Za-z_][A-Za-z0-9_]*)\}")


def compile_template(uri_template: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """``{var}`` matches one path segment, ``{+var}`` matches across ``/``; anchored."""
    parts: list[str] = []
    names: list[str] = []
    pos = 0
    for m in _VAR.finditer(uri_template):
        parts.append(re.escape(uri_template[pos : m.start()]))
        plus, var = m.group(1), m.group(2)
        if var in names:
            raise ValueError(f"Template variable {var!r} appears twice in {uri_template!r}")
        names.append(var)
        parts.append(f"(?P<{var}>.+)" if plus else f"(?P<{var}>[^/?]+)")
        pos = m.end()
    parts.append(re.escape(uri_template[pos:]))
    return re.compile(r"\A" + "".join(parts) + r"\Z"), tuple(names)


@dataclass(kw_only=True)
class ResourceTemplateSpec(_SpecBase):
    uri_template: str
    mime_type: str = "application/json"
    annotations: Annotations | dict[str, Any] | None = None
    completions: dict[str, Callable[..., Any]] = field(default_factory=dict)
    pattern: re.Pattern[str] = field(init=False, repr=False)
    variables: tuple[str, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.kind = "template"
        self._common_post_init()
        self.pattern, self.variables = compile_template(self.uri_template)
        unknown = set(self.completions) - set(self.variables)
        if unknown:
            raise ValueError(
                f"Completions for {sorted(unknown)} name no variable of {self.uri_template!r}"
            )

    def match(self, uri: str) -> dict[str, str] | None:
        from urllib.parse import unquote

        m = self.pattern.match(uri)
        if m is None:
            return None
        return {k: unquote(v) for k, v in m.groupdict().items()}

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "uriTemplate": self.uri_template,
            "name": self.name,
            "mimeType": self.mime_type,
        }
        if self.description:
            out["description"] = self.description
        ann = annotations_wire(self.annotations)
        if ann:
            out["annotations"] = ann
        return self._wire_common(out)


@dataclass(slots=True)
class PromptArgument:
    name: str
    description: str = ""
    required: bool = False
    completion: Callable[..., Any] | None = None
    title: str | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "required": self.required}
        if self.title:
            out["title"] = self.title
        if self.description:
            out["description"] = self.description
        return out


@dataclass(kw_only=True)
class PromptSpec(_SpecBase):
    sensitivity: Sensitivity = Sensitivity.INTERNAL
    arguments: list[PromptArgument] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.kind = "prompt"
        validate_name(self.name, "prompt")
        self._common_post_init()
        self.arguments = [
            a if isinstance(a, PromptArgument) else PromptArgument(**a) for a in self.arguments
        ]
        if not self.arguments:
            self.arguments = _prompt_arguments_from(self.handler)

    def argument(self, name: str) -> PromptArgument | None:
        return next((a for a in self.arguments if a.name == name), None)

    def to_wire(self, exposed_name: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": validate_name(exposed_name or self.name, "prompt"),
            "description": self.description or "",
            "arguments": [a.to_wire() for a in self.arguments],
        }
        return self._wire_common(out)


def _prompt_arguments_from(handler: Callable[..., Any]) -> list[PromptArgument]:
    """Derive prompt arguments from the handler signature: no default means required."""
    params = list(inspect.signature(handler).parameters.values())[1:]
    return [
        PromptArgument(name=p.name, required=p.default is inspect.Parameter.empty)
        for p in params
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


AnySpec = ToolSpec | ResourceSpec | ResourceTemplateSpec | PromptSpec
