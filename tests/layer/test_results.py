"""Tool result values and text: ``to_jsonable`` gives plain, strict JSON with one rule for
missing values (NaN, NA, NaT -> null; ±inf -> "inf"/"-inf"), whatever produced them; the text
is the indented JSON the stdlib writes, character for character, whichever encoder wrote it."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest

from cloudg_nb import Registry
from cloudg_nb.layer.results import render_text, to_jsonable
from tests.layer.fakes import FakePolicy, core_layer


def _stdlib(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


@pytest.mark.parametrize("value", [
    {"small": [1e-5, 1.5e-5, 1e-7, 5e-324, 0.0001, 0.00012]},
    {"large": [1e16, 1.2345e20, 1.5e300, 2**80, -(2**70)], "zero": -0.0},
    {"odd": [float("nan"), float("inf"), float("-inf")]},
    {"text": "\x00\x01\x1f\x7f\u2028é\"\\\n\t", "lone": "\ud800"},
    {"nested": {"empty": {}, "list": [], "deep": [[{"a": None, "b": True}]]}},
    {"looks like a number": "1e-07 0.00001 node-1e-2"},
    [1, {"b": {}}, "c"],
])
def test_text_is_the_stdlib_indented_json(value: Any) -> None:
    assert render_text(value) == _stdlib(value)


@pytest.mark.parametrize("missing", [
    float("nan"), np.float64("nan"), np.float32("nan"), pd.NA, pd.NaT, np.datetime64("NaT"),
], ids=["float", "float64", "float32", "NA", "NaT", "datetime64-NaT"])
def test_a_missing_value_becomes_null(missing: Any) -> None:
    assert to_jsonable({"v": missing, "in": [missing]}) == {"v": None, "in": [None]}


def test_infinities_become_strings_not_nulls() -> None:
    values = [float("inf"), float("-inf"), np.float64("inf"), np.float64("-inf")]
    assert to_jsonable(values) == ["inf", "-inf", "inf", "-inf"]


def test_numpy_scalars_and_arrays_become_python_values() -> None:
    out = to_jsonable({"n": np.int64(7), "b": np.bool_(True), "f": np.float32(1.5),
                       "s": np.str_("x"), "a": np.array([[1.0, np.nan], [2.0, 3.0]])})
    assert out == {"n": 7, "b": True, "f": 1.5, "s": "x", "a": [[1.0, None], [2.0, 3.0]]}
    assert [type(out[k]) for k in ("n", "b", "f", "s")] == [int, bool, float, str]


def test_timestamps_become_iso_text() -> None:
    out = to_jsonable([pd.Timestamp("2025-06-02T09:00:00Z"), np.datetime64("2021-01-01", "ns"),
                       np.datetime64("2021-01-01T08:30:00", "us")])
    assert out == ["2025-06-02T09:00:00+00:00", "2021-01-01T00:00:00.000000000",
                   "2021-01-01T08:30:00"]


def test_converted_values_are_strict_json() -> None:
    frame = pd.DataFrame({"x": [1.0, np.nan], "t": [pd.Timestamp("2025-01-01"), pd.NaT],
                          "n": pd.array([1, None], dtype="Int64")})
    value = {"frame": frame, "rows": frame.to_dict("records"), "set": {3, 1},
             "inf": float("inf"), "nested": ({"k": np.nan},)}
    json.dumps(to_jsonable(value), allow_nan=False)  # raises on NaN / inf or a foreign type


async def test_a_tool_returning_nan_reads_null_in_structured_content_and_text() -> None:
    reg = Registry()

    @reg.tool
    def score(ctx) -> dict:
        return {"cvss": float("nan"), "risk": np.float64("nan"), "max": float("inf")}

    layer = core_layer(reg, policy=FakePolicy("plain"))
    result = await layer.call_tool("score", {})
    assert result.structured == {"cvss": None, "risk": None, "max": "inf"}
    assert json.loads(result.content[0].text) == {"cvss": None, "risk": None, "max": "inf"}
