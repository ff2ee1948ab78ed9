"""Handler signature -> pydantic model -> MCP input schema, and argument validation.

The model is built once per handler and cached. Validation coerces ("5" -> 5), fills
defaults and forbids unknown keys; its errors name the field and the problem but never
echo the value that was sent (it may be a secret).
"""

from __future__ import annotations

import copy
import inspect
import re
import typing
import weakref
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from .errors import InvalidArgumentsError

__all__ = ["arguments_model", "input_schema", "validate_arguments", "clean_schema"]

_CONTEXT_NAMES = frozenset({"ctx", "context"})
_MODELS: weakref.WeakKeyDictionary[Callable[..., Any], type[BaseModel]] = (
    weakref.WeakKeyDictionary()
)
_MODELS_STRONG: dict[int, tuple[Callable[..., Any], type[BaseModel]]] = {}


#: Arguments models forbid unknown names. A config, not a base class: defining a model class
#: at import would load pydantic's plugins and build a validator (~40 ms) before any tool.
_ARGS_CONFIG = ConfigDict(extra="forbid", arbitrary_types_allowed=True)


def _parameters(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    params = list(inspect.signature(fn).parameters.values())
    if params and params[0].name in _CONTEXT_NAMES:
        params = params[1:]
    elif params and params[0].kind in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        # The first parameter is the context whatever its name (handler(ctx, **arguments)).
        params = params[1:]
    return [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def arguments_model(fn: Callable[..., Any], *, skip_context: bool = True) -> type[BaseModel]:
    """The pydantic model of ``fn``'s arguments (context parameter skipped), cached."""
    try:
        cached = _MODELS.get(fn)
    except TypeError:  # not weak-referenceable (e.g. some builtins / partials)
        entry = _MODELS_STRONG.get(id(fn))
        cached = entry[1] if entry and entry[0] is fn else None
    if cached is not None:
        return cached
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # unresolved forward refs: fall back to raw annotations
        hints = {}
    params = _parameters(fn) if skip_context else [
        p for p in inspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    fields: dict[str, Any] = {}
    for p in params:
        ann = hints.get(p.name, p.annotation)
        if ann is inspect.Parameter.empty:
            ann = Any
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (ann, default)
    name = f"{getattr(fn, '__name__', 'handler')}_arguments"
    model = create_model(name, __config__=_ARGS_CONFIG, **fields)
    try:
        _MODELS[fn] = model
    except TypeError:
        _MODELS_STRONG[id(fn)] = (fn, model)
    return model


_VALUE_KEYWORDS = frozenset({"default", "const", "enum", "examples", "example"})


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's ``title`` keywords and inline local ``$defs`` (unless recursive);
    an inlined enum keeps its values, not its class docstring."""
    schema = copy.deepcopy(schema)
    defs = schema.pop("$defs", None) or {}
    recursive = {name for name in defs if _refers_to(defs[name], name, defs, set())}

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                target = ref.split("/")[-1]
                if target in defs and target not in recursive:
                    merged = {k: v for k, v in node.items() if k != "$ref"}
                    inlined = walk(copy.deepcopy(defs[target]))
                    if "enum" in inlined:  # an enum class's docstring is for developers
                        inlined.pop("description", None)
                    inlined.update(walk(merged))
                    return inlined
            out = {}
            for key, value in node.items():
                if key == "title" and not isinstance(value, dict):
                    continue  # a schema keyword; a *property* named title is a dict
                if key in _VALUE_KEYWORDS:
                    out[key] = copy.deepcopy(value)  # data, not schema: keep as is
                elif key in ("properties", "patternProperties", "$defs"):
                    out[key] = {k: walk(v) for k, v in value.items()}
                else:
                    out[key] = walk(value)
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    result = walk(schema)
    if recursive:
        result["$defs"] = {k: walk(defs[k]) for k in recursive}
    return result


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")


def _field_names(model: type[BaseModel]) -> frozenset[str]:
    """Every field name of ``model`` and of the models nested in its annotations."""
    names: set[str] = set()
    seen: set[type] = set()

    def visit(tp: Any) -> None:
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            if tp in seen:
                return
            seen.add(tp)
            for name, info in tp.model_fields.items():
                names.add(name)
                if info.alias:
                    names.add(info.alias)
                visit(info.annotation)
            return
        for arg in typing.get_args(tp):
            visit(arg)

    visit(model)
    return frozenset(names)


def _loc_part(part: Any, known: frozenset[str]) -> str:
    """Keep list indices and field names; mapping keys are caller input and are withheld."""
    if isinstance(part, int) or part in known:
        return str(part)
    return "(key)"


def _unknown_name(part: Any) -> str:
    """Name an unknown argument only when it looks like an identifier (not like a secret)."""
    text = str(part)
    return text if _IDENTIFIER.fullmatch(text) else "(unrecognised argument name)"


def _refers_to(node: Any, name: str, defs: dict[str, Any], seen: set[str]) -> bool:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = ref.split("/")[-1]
            if target == name:
                return True
            if target not in seen and target in defs:
                seen.add(target)
                if _refers_to(defs[target], name, defs, seen):
                    return True
        return any(_refers_to(v, name, defs, seen) for v in node.values())
    if isinstance(node, list):
        return any(_refers_to(v, name, defs, seen) for v in node)
    return False


def input_schema(fn: Callable[..., Any]) -> dict[str, Any]:
    """The MCP ``inputSchema`` for a handler: an object schema closed to extra keys."""
    schema = clean_schema(arguments_model(fn).model_json_schema())
    schema["type"] = "object"
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    if not schema.get("required"):
        schema.pop("required", None)
    return schema


#: Validation errors listed at most in one refusal (the rest are counted).
MAX_ERRORS_SHOWN = 10


def validate_arguments(
    model: type[BaseModel], arguments: dict[str, Any] | None
) -> dict[str, Any]:
    """Validate and coerce ``arguments``; return keyword arguments for the handler.

    Raises InvalidArgumentsError with ``data=[{loc, msg, type}]`` and no input values.
    """
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise InvalidArgumentsError(
            "Invalid arguments: expected a JSON object of named arguments",
            data=[{"loc": [], "msg": "Input should be an object", "type": "dict_type"}],
        )
    try:
        validated = model.model_validate(arguments)
    except ValidationError as exc:
        known = _field_names(model)
        details = []
        for err in exc.errors(include_url=False, include_input=False, include_context=False):
            loc = [_loc_part(part, known) for part in err["loc"]]
            if err["type"] == "extra_forbidden" and len(err["loc"]) == 1:
                loc = [_unknown_name(err["loc"][0])]
            details.append({"loc": loc, "msg": err["msg"], "type": err["type"]})
        extra = any(d["type"] == "extra_forbidden" for d in details)
        if len(details) > MAX_ERRORS_SHOWN:  # a count, never the whole list
            more = len(details) - MAX_ERRORS_SHOWN
            details = details[:MAX_ERRORS_SHOWN]
            details.append({"loc": [], "msg": f"and {more} more errors like these",
                            "type": "more_errors"})
        if extra:
            details.append(
                {"loc": [], "msg": "Accepted arguments: " + ", ".join(model.model_fields),
                 "type": "accepted_arguments"}
            )
        summary = "; ".join(
            f"{'.'.join(d['loc']) or '(arguments)'}: {d['msg']}" for d in details
        )
        raise InvalidArgumentsError(f"Invalid arguments: {summary}", data=details) from None
    return {name: getattr(validated, name) for name in type(validated).model_fields}
