"""Reading a list result sent as columns (``columns`` = Arrow IPC, see
``cloudg_nb.catalog.frame_columns``) into the DataFrame its rows would have made: text
dictionary-decoded, JSON-text columns parsed back to lists and mappings."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

__all__ = ["ARROW_FORMAT", "decode_columns", "is_columns"]

ARROW_FORMAT = "arrow-ipc"


def is_columns(value: Any) -> bool:
    return isinstance(value, Mapping) and value.get("format") == ARROW_FORMAT and \
        isinstance(value.get("data"), str)


def decode_columns(value: Mapping[str, Any]) -> pandas.DataFrame:
    """The DataFrame of an encoded ``columns`` value (as ``DataFrame.from_records`` of the
    same rows would give)."""
    import pandas
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.ipc.open_stream(base64.b64decode(value["data"])).read_all()
    plain = {name: pc.cast(column, column.type.value_type)
             if pa.types.is_dictionary(column.type) else column
             for name, column in zip(table.column_names, table.columns, strict=True)}
    frame = pa.table(plain).to_pandas() if plain else pandas.DataFrame(
        index=range(int(value.get("rows") or 0)))
    for name in value.get("json_columns") or ():
        frame[name] = pandas.Series([None if v is None or v != v else json.loads(v)
                                     for v in frame[name].tolist()], dtype=object)
    return frame
