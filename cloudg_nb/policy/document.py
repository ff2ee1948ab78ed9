"""Reading policy documents: built-in profile names, YAML/JSON files, dicts, inline JSON.

Every document is validated on its own (unknown keys, bad globs, bad rates, unknown
transforms, ``extends`` cycles are errors naming the source and the place, e.g.
``rules[1].match.names``) and merged along ``extends``: scalars of the child win, mappings
merge (recursively), deny lists are united, rules / detectors / rate limits are
concatenated, transforms, allow lists and the tool set are replaced. A relative ``extends``
path is resolved against the extending file's folder. ``tool_set`` (tool names or globs) is
the smaller set of tools a profile lists, for clients that take only so many.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ..layer.enums import Capability, Sensitivity

__all__ = ["PolicyError", "load_document", "profile_names", "validate_document", "KNOWN_KEYS"]

ENV_VAR = "CLOUDG_MCP_POLICY"
DEFAULT_PROFILE = "standard"

ACCESS_LISTS = (
    "allow_tools", "deny_tools", "allow_resources", "deny_resources",
    "allow_prompts", "deny_prompts", "allow_categories", "deny_categories",
)
CAPABILITY_LISTS = ("allow_capabilities", "deny_capabilities")
ACCESS_KEYS = (*ACCESS_LISTS, *CAPABILITY_LISTS, "max_sensitivity")
RULE_KEYS = frozenset(
    (*ACCESS_KEYS, "name", "description", "match", "transforms", "input_transforms", "mode",
     "rate_limits")
)
ROLE_KEYS = RULE_KEYS - {"match"}
MATCH_KEYS = ("roles", "principals", "names", "categories", "tags", "kinds", "sensitivity",
              "capabilities")
VAULT_KEYS = ("key", "key_env", "path", "namespace", "max_entries")
APPROVAL_KEYS = ("tools", "capabilities", "timeout")
KNOWN_KEYS = frozenset(
    (*ACCESS_KEYS, "name", "description", "extends", "hide_denied", "audit", "audit_size",
     "tool_set", "transforms", "input_transforms", "transform_options", "detectors",
     "disabled_detectors", "roles", "rules", "rate_limits", "vault", "approval")
)
_CONCATENATED = ("rules", "detectors", "rate_limits", "disabled_detectors")
_REPLACED = ("transforms", "input_transforms", "tool_set")


class PolicyError(ValueError):
    """A policy document could not be read; the message names the source and the place."""


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


def _read_source(source: Any, base: Path | None = None) -> tuple[dict[str, Any], str, str]:
    """(raw document, label, identity) for a profile name, path, dict or inline JSON."""
    if isinstance(source, dict):
        return dict(source), "document", f"dict:{id(source)}"
    if isinstance(source, Path) or (isinstance(source, str) and source.strip()):
        text = str(source).strip()
        if text.startswith("{"):
            return _parse_yaml(text, "inline JSON"), "inline JSON", f"json:{text}"
        path = Path(text).expanduser()
        if base is not None and not path.is_absolute():
            path = base / path
        if path.suffix.lower() in (".yaml", ".yml", ".json") or path.exists():
            if not path.is_file():
                raise PolicyError(f"Policy file {path.name!r} does not exist")
            doc = _parse_yaml(path.read_text(encoding="utf-8"), f"file {path.name}")
            return doc, f"file {path.name}", str(path.resolve())
        return _read_profile(text), f"profile {text}", f"profile:{text}"
    raise PolicyError(
        "A policy is a profile name, a YAML/JSON file path, a dict or an inline JSON object"
    )


# -- validation ------------------------------------------------------------------------------


def _fail(label: str, place: str, message: str) -> PolicyError:
    where = f"{place}: " if place else ""
    return PolicyError(f"Policy {label}: {where}{message}")


def _string_list(value: Any, label: str, place: str, *, globs: bool = False) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _fail(label, "", f"{place!r} must be a list of non-empty strings")
    if globs:
        for pattern in value:
            if pattern.count("[") != pattern.count("]"):
                raise _fail(label, "", f"{place!r} has a malformed glob (unbalanced [])")
    return value


def _validate_access(doc: dict[str, Any], label: str, prefix: str) -> None:
    for key in ACCESS_LISTS:
        if doc.get(key) is not None:
            _string_list(doc[key], label, prefix + key, globs=True)
    for key in CAPABILITY_LISTS:
        if doc.get(key) is not None:
            for cap in _string_list(doc[key], label, prefix + key):
                try:
                    Capability.parse(cap)
                except ValueError as exc:
                    raise _fail(label, prefix + key, f"{cap!r}: {exc}") from None
    if doc.get("max_sensitivity") is not None:
        try:
            Sensitivity.parse(doc["max_sensitivity"])
        except ValueError as exc:
            raise _fail(label, f"{prefix}max_sensitivity", str(exc)) from None


def _unknown(doc: dict[str, Any], known: frozenset[str] | tuple[str, ...], label: str,
             place: str) -> None:
    for key in doc:
        if key not in known:
            where = f"{place}: " if place else ""
            raise PolicyError(
                f"Policy {label}: {where}unknown key {key!r}; known keys: "
                f"{', '.join(sorted(known))}"
            )


def _validate_rule(doc: Any, label: str, place: str, *, role: bool) -> None:
    if not isinstance(doc, dict):
        raise _fail(label, place, "must be a mapping of rule keys")
    _unknown(doc, ROLE_KEYS if role else RULE_KEYS, label, place)
    _validate_access(doc, label, f"{place}.")
    if not role and "match" in doc:
        match = doc["match"]
        if not isinstance(match, dict):
            raise _fail(label, f"{place}.match", "must be a mapping")
        _unknown(match, MATCH_KEYS, label, f"{place}.match")
        for key in ("roles", "principals", "names", "categories", "tags", "kinds",
                    "capabilities"):
            if match.get(key) is not None:
                _string_list(match[key], label, f"{place}.match.{key}",
                             globs=key in ("principals", "names", "categories"))
        if "sensitivity" in match:
            from .rules import sensitivity_holds

            levels = match["sensitivity"]
            for level in [levels] if isinstance(levels, str) else levels or []:
                try:
                    sensitivity_holds(Sensitivity.PUBLIC, str(level))
                except ValueError as exc:
                    raise _fail(label, f"{place}.match.sensitivity", str(exc)) from None
        for cap in match.get("capabilities") or ():
            try:
                Capability.parse(cap)
            except ValueError as exc:
                raise _fail(label, f"{place}.match.capabilities", str(exc)) from None
    if "mode" in doc and doc["mode"] not in ("append", "prepend", "replace"):
        raise _fail(label, f"{place}.mode", "use append, prepend or replace")
    _validate_steps(doc, label, f"{place}.")
    _validate_limits(doc.get("rate_limits"), label, f"{place}.rate_limits")


def _validate_steps(doc: dict[str, Any], label: str, prefix: str) -> None:
    from ..transforms.builder import normalize_steps

    try:
        if "transforms" in doc:
            normalize_steps(doc["transforms"], f"{prefix}transforms")
        if "input_transforms" in doc:
            normalize_steps(doc["input_transforms"], f"{prefix}input_transforms", "input")
    except ValueError as exc:
        raise _fail(label, "", str(exc)) from None


def _validate_limits(value: Any, label: str, place: str) -> None:
    from .ratelimit import RateLimit

    if value is None:
        return
    if not isinstance(value, list):
        raise _fail(label, place, "must be a list of rate limits")
    for i, entry in enumerate(value):
        try:
            RateLimit.parse(entry, f"{place}[{i}]")
        except ValueError as exc:
            raise _fail(label, "", str(exc)) from None


def validate_document(doc: dict[str, Any], label: str = "document") -> None:
    """Raise PolicyError for the first problem in one (unmerged) document."""
    _unknown(doc, KNOWN_KEYS, label, "")
    _validate_access(doc, label, "")
    if doc.get("tool_set") is not None:
        _string_list(doc["tool_set"], label, "tool_set", globs=True)
    for key in ("hide_denied", "audit"):
        if key in doc and not isinstance(doc[key], bool):
            raise _fail(label, "", f"{key!r} must be true or false")
    if "audit_size" in doc and (
        not isinstance(doc["audit_size"], int) or isinstance(doc["audit_size"], bool)
        or doc["audit_size"] < 1
    ):
        raise _fail(label, "", "'audit_size' must be a positive integer")
    for key in ("name", "description"):
        if key in doc and not isinstance(doc[key], str):
            raise _fail(label, key, "must be a string")
    _validate_steps(doc, label, "")
    options = doc.get("transform_options")
    if options is not None:
        from ..transforms.builder import validate_options

        if not isinstance(options, dict):
            raise _fail(label, "transform_options", "must map transform names to options")
        for step, opts in options.items():
            try:
                validate_options(step, opts, f"transform_options.{step}")
            except ValueError as exc:
                raise _fail(label, "", str(exc)) from None
    if doc.get("detectors") is not None:
        from ..transforms.detectors import custom_detector

        if not isinstance(doc["detectors"], list):
            raise _fail(label, "detectors", "must be a list of detector mappings")
        for i, spec in enumerate(doc["detectors"]):
            if not isinstance(spec, dict):
                raise _fail(label, f"detectors[{i}]", "must be a mapping")
            try:
                custom_detector(spec, f"detectors[{i}]")
            except ValueError as exc:
                raise _fail(label, "", str(exc)) from None
    if doc.get("disabled_detectors") is not None:
        _string_list(doc["disabled_detectors"], label, "disabled_detectors")
    roles = doc.get("roles")
    if roles is not None:
        if not isinstance(roles, dict):
            raise _fail(label, "roles", "must map role names to rules")
        for role, body in roles.items():
            _validate_rule(body if body is not None else {}, label, f"roles.{role}", role=True)
    rules = doc.get("rules")
    if rules is not None:
        if not isinstance(rules, list):
            raise _fail(label, "rules", "must be a list of rules")
        for i, rule in enumerate(rules):
            _validate_rule(rule, label, f"rules[{i}]", role=False)
    _validate_limits(doc.get("rate_limits"), label, "rate_limits")
    vault = doc.get("vault")
    if vault is not None:
        if not isinstance(vault, dict):
            raise _fail(label, "vault", "must be a mapping (key, key_env, path, namespace)")
        _unknown(vault, VAULT_KEYS, label, "vault")
        for key in ("key", "key_env", "path", "namespace"):
            if key in vault and vault[key] is not None and not isinstance(vault[key], str):
                raise _fail(label, f"vault.{key}", "must be a string")
        if "max_entries" in vault and (
            not isinstance(vault["max_entries"], int) or vault["max_entries"] < 1
        ):
            raise _fail(label, "vault.max_entries", "must be a positive integer")
    if "extends" in doc and not isinstance(doc["extends"], str):
        raise _fail(label, "", "'extends' must name one profile or file")
    _validate_approval(doc.get("approval"), label)


def _validate_approval(approval: Any, label: str) -> None:
    """``approval``: which assistant calls wait for the analyst (``tools``: names or globs,
    ``capabilities``) and for how long (``timeout``, seconds)."""
    if approval is None:
        return
    if not isinstance(approval, dict):
        raise _fail(label, "approval", "must be a mapping (tools, capabilities, timeout)")
    _unknown(approval, APPROVAL_KEYS, label, "approval")
    if approval.get("tools") is not None and approval["tools"] != []:
        _string_list(approval["tools"], label, "approval.tools", globs=True)
    for cap in _string_list(approval.get("capabilities") or [], label,
                            "approval.capabilities") if approval.get("capabilities") else ():
        try:
            Capability.parse(cap)
        except ValueError as exc:
            raise _fail(label, "approval.capabilities", f"{cap!r}: {exc}") from None
    timeout = approval.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or not 0 < timeout <= 86_400):
        raise _fail(label, "approval.timeout", "must be a number of seconds, above 0 and at "
                    "most 86400")


# -- merging ---------------------------------------------------------------------------------


def _merge(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    out = dict(parent)
    for key, value in child.items():
        old = parent.get(key)
        if key.startswith("deny_") and isinstance(value, list):
            out[key] = list(dict.fromkeys(list(old or []) + value))
        elif key in _CONCATENATED and isinstance(value, list):
            out[key] = list(old or []) + value
        elif key in _REPLACED or key.startswith("allow_"):
            out[key] = value
        elif isinstance(value, dict) and isinstance(old, dict):
            out[key] = _merge(old, value)
        else:
            out[key] = value
    out.pop("extends", None)
    return out


def load_document(source: Any = None, _seen: tuple[str, ...] = (),
                  _base: Path | None = None) -> dict[str, Any]:
    """The merged, validated document for ``source`` (None: $CLOUDG_MCP_POLICY or standard)."""
    if source is None:
        source = os.environ.get(ENV_VAR) or DEFAULT_PROFILE
    doc, label, identity = _read_source(source, _base)
    validate_document(doc, label)
    parent_ref = doc.get("extends")
    if parent_ref is None:
        return doc
    chain = (*_seen, identity)
    base = Path(identity).parent if label.startswith("file ") else None
    _, _, parent_identity = _read_source(parent_ref, base)
    if parent_identity in chain:
        names = [Path(c).name if os.sep in c else c.removeprefix("profile:") for c in chain]
        names.append(Path(parent_identity).name if os.sep in parent_identity
                     else parent_identity.removeprefix("profile:"))
        raise PolicyError(
            f"Policy {label}: 'extends' forms a cycle ({' -> '.join(names)}); remove one of "
            "the extends"
        )
    parent = load_document(parent_ref, chain, base)
    merged = _merge(parent, doc)
    if "name" not in doc:
        merged["name"] = label.removeprefix("profile ").removeprefix("file ")
    if "description" not in doc:
        merged.pop("description", None)
    return merged


def to_json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True)
