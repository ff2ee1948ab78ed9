"""Applying an output transform to every text-bearing surface of content blocks.

The layer calls these with ``tr(value) -> value`` (its output pipeline for one spec and
principal). They copy on write and never fall back to an original value the transform
removed: a dropped link URI drops the link, a dropped field becomes None, a dropped
completion value is omitted. Binary payloads (image/audio data, blobs) are left as they are.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .content import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

__all__ = [
    "BoundTransform",
    "WITHHELD",
    "transform_block",
    "transform_link",
    "transform_meta",
    "transform_resource_contents",
    "transform_keyed",
]

#: A pipeline bound to one call's context (``pipeline.Transform`` also takes the context).
BoundTransform = Callable[[Any], Any]

#: Stands in for a required text the policy removed entirely.
WITHHELD = "[withheld by the privacy policy]"

def transform_keyed(value: dict[str, Any], tr: BoundTransform) -> dict[str, Any]:
    """Transform a dict as one value (so key-based rules see the keys); missing keys in the
    result mean the policy dropped them, and they stay missing."""
    out = tr(dict(value))
    return out if isinstance(out, dict) else {}


def transform_meta(meta: dict[str, Any] | None, tr: BoundTransform) -> dict[str, Any] | None:
    if not meta:
        return meta
    return transform_keyed(meta, tr)


def transform_link(link: ResourceLink, tr: BoundTransform) -> ResourceLink | None:
    """uri, name, title and description as one dict, plus meta; None when the uri is gone."""
    fields = {"uri": link.uri, "name": link.name, "title": link.title,
              "description": link.description}
    new = transform_keyed(fields, tr)
    meta = transform_meta(link.meta, tr)
    if new == fields and meta is link.meta:
        return link
    uri = new.get("uri")
    if not uri:
        return None
    clone = copy.copy(link)
    clone.uri = str(uri)
    clone.name = str(new.get("name") or WITHHELD)
    clone.title = new.get("title")
    clone.description = new.get("description")
    clone.meta = meta
    return clone


def transform_resource_contents(
    item: TextResourceContents | BlobResourceContents, tr: BoundTransform
) -> TextResourceContents | BlobResourceContents:
    """Text, uri and meta of text contents; uri and meta of blobs (the blob stays as is)."""
    clone = copy.copy(item)
    if isinstance(clone, TextResourceContents):
        text = tr(clone.text)
        clone.text = text if isinstance(text, str) else ""
    uri = tr(clone.uri)
    clone.uri = uri if isinstance(uri, str) and uri else WITHHELD
    clone.meta = transform_meta(clone.meta, tr)
    return clone


def transform_block(block: Any, tr: BoundTransform) -> Any:
    """One content block of a tool result or prompt message; None when it must be dropped."""
    if isinstance(block, ResourceLink):
        return transform_link(block, tr)
    clone = copy.copy(block)
    if isinstance(clone, TextContent):
        text = tr(clone.text)
        clone.text = text if isinstance(text, str) else ""
    elif isinstance(clone, EmbeddedResource):
        clone.resource = transform_resource_contents(clone.resource, tr)
    elif not isinstance(clone, (ImageContent, AudioContent)):
        return block
    clone.meta = transform_meta(getattr(clone, "meta", None), tr)
    return clone
