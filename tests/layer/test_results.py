"""Tool result text: the indented JSON the stdlib writes, character for character, whichever
encoder produced it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cloudg_nb.layer.results import render_text


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
