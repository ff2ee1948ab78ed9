"""JSON Schema building blocks for the catalog's output schemas.

Each tool with a stable result shape declares an ``output_schema`` built from these pieces
(the paging envelope, node, asset brief and path records). Objects list the keys a client
can rely on as required and allow extra keys, so adding a field never breaks a client.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "STR", "INT", "NUM", "BOOL", "ANY", "OBJ", "NSTR", "NINT", "NNUM", "nullable", "arr", "obj",
    "str_map", "int_map",
    "NODE", "BRIEF", "PATH", "PATHS", "page_schema", "TABLE",
]

STR: dict[str, Any] = {"type": "string"}
INT: dict[str, Any] = {"type": "integer"}
NUM: dict[str, Any] = {"type": "number"}
BOOL: dict[str, Any] = {"type": "boolean"}
ANY: dict[str, Any] = {}
OBJ: dict[str, Any] = {"type": "object"}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null."""
    kind = schema.get("type")
    if isinstance(kind, str) and len(schema) == 1:
        return {"type": [kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


NSTR = nullable(STR)
NINT = nullable(INT)
NNUM = nullable(NUM)


def arr(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def obj(properties: dict[str, Any], *, required: list[str] | None = None) -> dict[str, Any]:
    """An object whose ``required`` keys (default: all listed) must be present."""
    return {"type": "object", "properties": properties,
            "required": list(properties) if required is None else required}


def str_map(values: dict[str, Any]) -> dict[str, Any]:
    """An object mapping free-form keys to ``values``."""
    return {"type": "object", "additionalProperties": values}


def int_map() -> dict[str, Any]:
    return str_map(INT)


NODE = obj({"id": STR, "name": NSTR, "type": NSTR, "provider": NSTR, "region": NSTR,
            "account_id": NSTR})

BRIEF = obj({"id": STR, "name": NSTR, "type": STR, "provider": STR, "region": NSTR,
             "account_id": NSTR, "arn": NSTR, "internet_exposed": BOOL, "open_findings": INT,
             "max_severity": NSTR, "uri": STR})

PATH_EDGE = obj({"id": NSTR, "edge_type": STR, "from": STR, "to": STR, "virtual": BOOL})
PATH = obj({"hops": INT, "nodes": arr(NODE), "edges": arr(PATH_EDGE)})
PATHS = arr(PATH)

#: Tabular JSON (pandas "split" orient without the index): ``pd.DataFrame(**value)``.
TABLE = obj({"columns": arr(STR), "data": arr(arr(ANY))})


def page_schema(item: dict[str, Any], *, delta: bool = False,
                **extra: dict[str, Any]) -> dict[str, Any]:
    """The paging envelope (plus ``extra`` summary keys) around ``item`` records; ``delta``
    adds the ``delta_base`` every page carries and the optional ``delta`` of a changed-rows
    answer (``conventions.page``)."""
    schema = obj({"dataset": STR, "dataset_version": INT, **extra, "total": INT, "offset": INT,
                  "returned": INT, "next_cursor": NSTR, "truncated": BOOL, "items": arr(item)})
    if delta:
        schema["properties"]["delta_base"] = STR
        schema["required"].append("delta_base")
        schema["properties"]["delta"] = obj({"since": STR, "keys": arr(STR),
                                             "key_columns": arr(STR), "positions": arr(INT)})
    return schema
