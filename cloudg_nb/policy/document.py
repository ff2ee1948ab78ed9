"""Reading policy documents: built-in profile names, YAML/JSON files, dicts, inline JSON.

Documents are validated (unknown keys, bad globs and ``extends`` cycles are errors that name
the key and the source) and merged along ``extends``: scalars of the child win, mappings
merge, deny lists are united, allow lists are replaced.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

__all__ = ["PolicyError", "load_document", "profile_names", "KNOWN_KEYS"]

ENV_VAR = "CLOUDG_MCP_POLICY"
DEFAULT_PROFILE = "standard"

_ACCESS_LISTS = (
    "allow_tools", "deny_tools", "allow_resources", "deny_resources",
    "allow_prompts", "deny_prompts", "allow_categories", "deny_categories",
    "allow_capabilities", "deny_capabilities",
)
_SCALARS = ("name", "description", "extends", "hide_denied", "audit", "audit_size",
            "max_sensitivity")
KNOWN_KEYS = frozenset(_ACCESS_LISTS + _SCALARS)


class PolicyError(ValueError):
    """A policy document could not be read; the message names the source and the key."""


def profile_names() -> list[str]:
    folder = resources.files("cloudg_nb.policy") / "profiles"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def _read_profile(name: str) -> dict[str, Any]:
    path = resources.files("cloudg_nb.policy") / "profiles" / f"{name}.yaml"
    if not path.is_file():
        raise PolicyError(
            f"Unknown policy profile {name!r}; built-in profiles: "
            f"{', '.join(profile_names())} (or give a YAML/JSON file path, a dict or JSON)"
        )
    return _parse_yaml(path.read_text(encoding="utf-8"), f"profile {name}")


def _parse_yaml(text: str, source: str) -> dict[str, Any]:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise PolicyError(f"Policy {source}: not valid YAML/JSON{where}") from None
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise PolicyError(f"Policy {source}: the document must be a mapping of keys")
    return doc


def _read_source(source: Any) -> tuple[dict[str, Any], str]:
    """Return (raw document, label) for a profile name, path, dict or inline JSON."""
    if isinstance(source, dict):
        return dict(source), "document"
    if isinstance(source, Path) or (isinstance(source, str) and source.strip()):
        text = str(source).strip()
        if text.startswith("{"):
            return _parse_yaml(text, "inline JSON"), "inline JSON"
        path = Path(text).expanduser()
        if path.suffix.lower() in (".yaml", ".yml", ".json") or path.exists():
            if not path.is_file():
                raise PolicyError(f"Policy file {path.name!r} does not exist")
            return _parse_yaml(path.read_text(encoding="utf-8"), f"file {path.name}"), str(path)
        return _read_profile(text), f"profile {text}"
    raise PolicyError(
        "A policy is a profile name, a YAML/JSON file path, a dict or an inline JSON object"
    )


def _validate(doc: dict[str, Any], label: str) -> None:
    for key in doc:
        if key not in KNOWN_KEYS:
            raise PolicyError(
                f"Policy {label}: unknown key {key!r}; known keys: {', '.join(sorted(KNOWN_KEYS))}"
            )
    for key in _ACCESS_LISTS:
        value = doc.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise PolicyError(f"Policy {label}: {key!r} must be a list of non-empty strings")
        for pattern in value:
            if pattern.count("[") != pattern.count("]"):
                raise PolicyError(f"Policy {label}: {key!r} has a malformed glob (unbalanced [])")
    for key in ("hide_denied", "audit"):
        if key in doc and not isinstance(doc[key], bool):
            raise PolicyError(f"Policy {label}: {key!r} must be true or false")
    if "audit_size" in doc and (
        not isinstance(doc["audit_size"], int) or isinstance(doc["audit_size"], bool)
        or doc["audit_size"] < 1
    ):
        raise PolicyError(f"Policy {label}: 'audit_size' must be a positive integer")
    if "max_sensitivity" in doc:
        from ..layer.enums import Sensitivity

        try:
            Sensitivity.parse(doc["max_sensitivity"])
        except ValueError as exc:
            raise PolicyError(f"Policy {label}: 'max_sensitivity': {exc}") from None


def _merge(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    out = dict(parent)
    for key, value in child.items():
        if key.startswith("deny_") and isinstance(value, list):
            out[key] = list(dict.fromkeys(list(parent.get(key) or []) + value))
        elif isinstance(value, dict) and isinstance(parent.get(key), dict):
            out[key] = {**parent[key], **value}
        else:
            out[key] = value
    out.pop("extends", None)
    return out


def load_document(source: Any = None, _seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """The merged, validated document for ``source`` (None: $CLOUDG_MCP_POLICY or standard)."""
    if source is None:
        source = os.environ.get(ENV_VAR) or DEFAULT_PROFILE
    doc, label = _read_source(source)
    _validate(doc, label)
    parent_ref = doc.get("extends")
    if parent_ref is None:
        return doc
    if not isinstance(parent_ref, str):
        raise PolicyError(f"Policy {label}: 'extends' must name one profile or file")
    if parent_ref in _seen or parent_ref == source:
        chain = " -> ".join((*_seen, str(source), parent_ref))
        raise PolicyError(f"Policy {label}: 'extends' forms a cycle ({chain})")
    parent = load_document(parent_ref, (*_seen, str(source)))
    merged = _merge(parent, doc)
    if "name" not in doc:
        merged["name"] = label.removeprefix("profile ")
    return merged


def to_json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True)
