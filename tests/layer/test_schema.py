"""Handler signature -> input schema, and argument validation.

Contract (layer reference §6): the context parameter and ``*args/**kwargs`` are skipped;
``Annotated[..., Field(...)]`` carries constraints and descriptions; the schema is an object
with ``properties`` and ``additionalProperties: false``, without pydantic's ``title``
keywords, with local ``$defs`` inlined unless recursive. Validation coerces, fills defaults,
forbids unknown keys, and its errors never echo the values sent.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from cloudg_nb.layer.errors import InvalidArgumentsError
from cloudg_nb.layer.schema import arguments_model, input_schema, validate_arguments

SECRET = "AKIAIOSFODNN7EXAMPLE-very-secret"


class Filter(BaseModel):
    kind: str
    limit: int = 5


class Doc(BaseModel):
    title: str


class Node(BaseModel):
    name: str
    children: list[Node] = []


def walk(node: Any):
    """Every mapping in a schema, depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def schema_keywords(schema: dict[str, Any]) -> set[str]:
    """Keys used as schema keywords (not property names)."""
    keys: set[str] = set()
    for node in walk(schema):
        for key, value in node.items():
            if key in ("properties", "$defs"):
                keys.update(k for k, v in value.items() if not isinstance(v, dict))
                keys.add(key)
            else:
                keys.add(key)
    return keys


# -- parameters ----------------------------------------------------------------------------


def test_ctx_parameter_is_skipped():
    def fn(ctx, ref: str) -> None: ...

    assert list(input_schema(fn)["properties"]) == ["ref"]


def test_parameter_named_context_is_skipped():
    def fn(context, ref: str) -> None: ...

    assert list(input_schema(fn)["properties"]) == ["ref"]


def test_var_args_and_kwargs_are_skipped():
    def fn(ctx, ref: str, *args, **kwargs) -> None: ...

    assert list(input_schema(fn)["properties"]) == ["ref"]


def test_parameters_without_default_are_required():
    def fn(ctx, ref: str, limit: int = 10) -> None: ...

    schema = input_schema(fn)
    assert schema["required"] == ["ref"]
    assert schema["properties"]["limit"]["default"] == 10


def test_annotated_field_carries_constraints_and_description():
    def fn(ctx, limit: Annotated[int, Field(ge=1, le=500, description="Rows to return")] = 50):
        ...

    prop = input_schema(fn)["properties"]["limit"]
    assert prop["type"] == "integer"
    assert prop["minimum"] == 1
    assert prop["maximum"] == 500
    assert prop["description"] == "Rows to return"


def test_literal_becomes_an_enum():
    def fn(ctx, mode: Literal["fast", "full"] = "fast") -> None: ...

    assert input_schema(fn)["properties"]["mode"]["enum"] == ["fast", "full"]


# -- shape ---------------------------------------------------------------------------------


def test_schema_is_a_closed_object():
    def fn(ctx, ref: str) -> None: ...

    schema = input_schema(fn)
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False


def test_schema_of_a_handler_without_arguments_has_empty_properties():
    def fn(ctx) -> None: ...

    assert input_schema(fn) == {"type": "object", "properties": {}, "additionalProperties": False}


def test_schema_has_no_title_keywords():
    def fn(
        ctx, ref: str, flt: Filter, limit: Annotated[int, Field(ge=1)] = 5,
    ) -> None: ...

    assert "title" not in schema_keywords(input_schema(fn))


def test_property_literally_named_title_is_kept():
    def fn(ctx, title: str, body: str = "") -> None: ...

    schema = input_schema(fn)
    assert list(schema["properties"]) == ["title", "body"]
    assert schema["properties"]["title"] == {"type": "string"}
    assert schema["required"] == ["title"]


def test_nested_model_property_named_title_is_kept():
    def fn(ctx, doc: Doc) -> None: ...

    assert input_schema(fn)["properties"]["doc"]["properties"] == {"title": {"type": "string"}}


def test_default_values_containing_a_title_key_are_kept_intact():
    def fn(ctx, opts: dict = {"title": "Report", "a": 1}) -> None:  # noqa: B006
        ...

    assert input_schema(fn)["properties"]["opts"]["default"] == {"title": "Report", "a": 1}


def test_nested_model_definitions_are_inlined():
    def fn(ctx, flt: Filter) -> None: ...

    schema = input_schema(fn)
    assert "$defs" not in schema
    assert not any("$ref" in node for node in walk(schema))
    flt = schema["properties"]["flt"]
    assert flt["type"] == "object"
    assert flt["properties"] == {"kind": {"type": "string"}, "limit": {"default": 5,
                                                                       "type": "integer"}}
    assert flt["required"] == ["kind"]


def test_inlined_model_keeps_the_fields_own_description():
    def fn(ctx, flt: Annotated[Filter, Field(description="Which assets")]) -> None: ...

    flt = input_schema(fn)["properties"]["flt"]
    assert flt["description"] == "Which assets"
    assert set(flt["properties"]) == {"kind", "limit"}


class Colour(StrEnum):
    """Developer notes that a model need not read."""

    RED = "red"
    BLUE = "blue"


def test_inlined_enum_lists_its_values_without_its_class_docstring():
    def fn(ctx, colours: list[Colour], colour: Annotated[Colour, Field(
            description="Which colour")] = Colour.RED) -> None: ...

    props = input_schema(fn)["properties"]
    assert props["colours"]["items"] == {"enum": ["red", "blue"], "type": "string"}
    assert props["colour"]["description"] == "Which colour"
    assert props["colour"]["enum"] == ["red", "blue"]


def test_recursive_model_keeps_its_definitions():
    def fn(ctx, root: Node) -> None: ...

    schema = input_schema(fn)
    assert set(schema["$defs"]) == {"Node"}
    assert schema["properties"]["root"] == {"$ref": "#/$defs/Node"}
    node = schema["$defs"]["Node"]
    assert node["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert "title" not in schema_keywords(schema)


def test_arguments_model_is_cached_per_handler():
    def fn(ctx, ref: str) -> None: ...

    assert arguments_model(fn) is arguments_model(fn)


# -- validation ----------------------------------------------------------------------------


def _model():
    def fn(ctx, ref: str, limit: int = 50, deep: bool = False) -> None: ...

    return arguments_model(fn)


def test_validation_coerces_numeric_strings():
    assert validate_arguments(_model(), {"ref": "a", "limit": "5"})["limit"] == 5


def test_validation_fills_defaults():
    assert validate_arguments(_model(), {"ref": "a"}) == {"ref": "a", "limit": 50, "deep": False}


def test_validation_accepts_none_as_no_arguments():
    def fn(ctx, limit: int = 3) -> None: ...

    assert validate_arguments(arguments_model(fn), None) == {"limit": 3}


def test_validation_forbids_unknown_keys():
    with pytest.raises(InvalidArgumentsError) as info:
        validate_arguments(_model(), {"ref": "a", "extra": 1})
    assert info.value.code == -32602
    assert info.value.data[0]["loc"] == ["extra"]


def test_validation_reports_a_missing_required_argument():
    with pytest.raises(InvalidArgumentsError, match=r"^Invalid arguments: ref: "):
        validate_arguments(_model(), {})


def test_validation_error_data_lists_loc_msg_and_type():
    with pytest.raises(InvalidArgumentsError) as info:
        validate_arguments(_model(), {"ref": "a", "limit": "many"})
    (detail,) = info.value.data
    assert set(detail) == {"loc", "msg", "type"}
    assert detail["loc"] == ["limit"]
    assert detail["type"] == "int_parsing"


def test_validation_errors_never_contain_the_bad_value():
    with pytest.raises(InvalidArgumentsError) as info:
        validate_arguments(_model(), {"ref": "a", "limit": SECRET, "deep": SECRET})
    assert SECRET not in info.value.message
    assert SECRET not in str(info.value)
    assert SECRET not in json.dumps(info.value.data)
    assert len(info.value.data) == 2


def test_validation_errors_never_contain_the_value_of_an_unknown_key():
    with pytest.raises(InvalidArgumentsError) as info:
        validate_arguments(_model(), {"ref": "a", "password": SECRET})
    assert SECRET not in info.value.message
    assert SECRET not in json.dumps(info.value.data)


def test_validation_errors_never_contain_nested_bad_values():
    def fn(ctx, flt: Filter) -> None: ...

    with pytest.raises(InvalidArgumentsError) as info:
        validate_arguments(arguments_model(fn), {"flt": {"kind": "vm", "limit": SECRET}})
    assert info.value.data[0]["loc"] == ["flt", "limit"]
    assert SECRET not in info.value.message + json.dumps(info.value.data)


def test_non_mapping_arguments_are_refused():
    with pytest.raises(InvalidArgumentsError) as info:
        validate_arguments(_model(), [SECRET])  # type: ignore[arg-type]
    assert SECRET not in info.value.message + json.dumps(info.value.data)
