"""Content blocks, tool results and prompt results, with MCP wire shapes (``to_wire``).

These are plain dataclasses so the core stays framework-free; ``to_wire()`` renders the
camelCase dicts of the MCP schema that every adapter sends unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Union

from .wire import ERROR_CODE_META

__all__ = [
    "Annotations",
    "TextContent",
    "ImageContent",
    "AudioContent",
    "ResourceLink",
    "TextResourceContents",
    "BlobResourceContents",
    "EmbeddedResource",
    "Content",
    "ResourceContents",
    "ToolResult",
    "PromptMessage",
    "PromptResult",
    "annotations_wire",
]

Role = Literal["user", "assistant"]


@dataclass(slots=True)
class Annotations:
    """Content/resource annotations: who it is for, how important, when last changed."""

    audience: list[Role] | None = None
    priority: float | None = None
    last_modified: str | None = None

    def __post_init__(self) -> None:
        if self.priority is not None:
            self.priority = min(1.0, max(0.0, float(self.priority)))

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.audience:
            out["audience"] = list(self.audience)
        if self.priority is not None:
            out["priority"] = self.priority
        if self.last_modified:
            out["lastModified"] = self.last_modified
        return out


def annotations_wire(value: Annotations | dict[str, Any] | None) -> dict[str, Any] | None:
    """Render annotations given as an object or a (snake- or camelCase) dict; None if empty."""
    if value is None:
        return None
    if isinstance(value, dict):
        value = Annotations(
            audience=value.get("audience"),
            priority=value.get("priority"),
            last_modified=value.get("last_modified", value.get("lastModified")),
        )
    return value.to_wire() or None


def _with_common(out: dict[str, Any], annotations: Any, meta: dict[str, Any] | None) -> dict:
    ann = annotations_wire(annotations)
    if ann:
        out["annotations"] = ann
    if meta:
        out["_meta"] = dict(meta)
    return out


@dataclass(slots=True)
class TextContent:
    text: str
    annotations: Annotations | dict[str, Any] | None = None
    meta: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        return _with_common({"type": "text", "text": self.text}, self.annotations, self.meta)


@dataclass(slots=True)
class ImageContent:
    data: str  # base64
    mime_type: str = "image/png"
    annotations: Annotations | dict[str, Any] | None = None
    meta: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        out = {"type": "image", "data": self.data, "mimeType": self.mime_type}
        return _with_common(out, self.annotations, self.meta)


@dataclass(slots=True)
class AudioContent:
    data: str  # base64
    mime_type: str = "audio/wav"
    annotations: Annotations | dict[str, Any] | None = None
    meta: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        out = {"type": "audio", "data": self.data, "mimeType": self.mime_type}
        return _with_common(out, self.annotations, self.meta)


@dataclass(slots=True)
class ResourceLink:
    """A pointer to a resource the client may read later (``ctx.link`` builds these)."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | dict[str, Any] | None = None
    meta: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        if self.title:
            out["title"] = self.title
        if self.description:
            out["description"] = self.description
        if self.mime_type:
            out["mimeType"] = self.mime_type
        if self.size is not None:
            out["size"] = self.size
        return _with_common(out, self.annotations, self.meta)


@dataclass(slots=True)
class TextResourceContents:
    uri: str
    text: str
    mime_type: str | None = None
    meta: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri, "text": self.text}
        if self.mime_type:
            out["mimeType"] = self.mime_type
        if self.meta:
            out["_meta"] = dict(self.meta)
        return out


@dataclass(slots=True)
class BlobResourceContents:
    uri: str
    blob: str  # base64
    mime_type: str | None = None
    meta: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri, "blob": self.blob}
        if self.mime_type:
            out["mimeType"] = self.mime_type
        if self.meta:
            out["_meta"] = dict(self.meta)
        return out


ResourceContents = Union[TextResourceContents, BlobResourceContents]


@dataclass(slots=True)
class EmbeddedResource:
    resource: TextResourceContents | BlobResourceContents
    annotations: Annotations | dict[str, Any] | None = None
    meta: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        out = {"type": "resource", "resource": self.resource.to_wire()}
        return _with_common(out, self.annotations, self.meta)


Content = Union[TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource]


@dataclass(slots=True)
class ToolResult:
    """The outcome of ``call_tool``; errors are results with ``is_error`` (MCP tool errors)."""

    content: list[Content] = field(default_factory=list)
    structured: dict[str, Any] | None = None
    is_error: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """All text blocks joined: handy in notebooks and tests."""
        return "\n".join(c.text for c in self.content if isinstance(c, TextContent))

    @property
    def error_code(self) -> int | str | None:
        return self.meta.get(ERROR_CODE_META)

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "content": [c.to_wire() for c in self.content],
            "isError": self.is_error,
        }
        if self.structured is not None:
            out["structuredContent"] = self.structured
        if self.meta:
            out["_meta"] = dict(self.meta)
        return out


@dataclass(slots=True)
class PromptMessage:
    role: Role
    content: Content

    def __post_init__(self) -> None:
        if self.role not in ("user", "assistant"):
            raise ValueError("A prompt message role must be 'user' or 'assistant'")
        if isinstance(self.content, str):
            self.content = TextContent(self.content)

    def to_wire(self) -> dict[str, Any]:
        return {"role": self.role, "content": self.content.to_wire()}


@dataclass(slots=True)
class PromptResult:
    messages: list[PromptMessage]
    description: str | None = None
    meta: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"messages": [m.to_wire() for m in self.messages]}
        if self.description:
            out["description"] = self.description
        if self.meta:
            out["_meta"] = dict(self.meta)
        return out
