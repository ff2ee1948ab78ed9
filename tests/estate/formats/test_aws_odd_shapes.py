"""Any value in any field of an AWS Config or describe-* file loads or fails with a
DatasetLoadError naming the file, never another exception: every field of the fixtures is
replaced in turn by values of the wrong shape, auto-detected and forced, lenient and strict."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb.estate import DatasetLoadError, internet_exposure, load_path

DATA = Path(__file__).parents[1] / "data"
#: Values of the wrong shape; each field gets two of them in turn (a load costs ~30 ms).
ODD: list[Any] = [None, 7, "x", [], {"a": [1]}, [None, "{\"resourceId\": 1}"]]


def _fixture(kind: str) -> Any:
    """A small document of ``kind``: a security group and an instance with their rules,
    tags, relationships, network interfaces and profile."""
    if kind == "aws-config":
        items = json.loads((DATA / "aws-config-snapshot.json").read_text())["configurationItems"]
        return {"configurationItems": [items[3], items[5]]}
    folder = DATA / "aws-describe"
    groups = json.loads((folder / "describe-security-groups.json").read_text())
    reservations = json.loads((folder / "describe-instances.json").read_text())
    return {"SecurityGroups": groups["SecurityGroups"][:1],
            "Reservations": reservations["Reservations"][:1]}


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key / index path of ``doc`` (the first two items of each list)."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield (*prefix, key)
            yield from _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc[:2]):
            yield (*prefix, i)
            yield from _paths(value, (*prefix, i))


def _replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(doc)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return out


@pytest.mark.parametrize("kind", ["aws-config", "aws-describe"])
def test_any_odd_value_in_any_field_loads_or_names_the_file(kind: str, tmp_path: Path) -> None:
    doc = _fixture(kind)
    target = tmp_path / "inventory.json"
    modes: list[dict[str, Any]] = [{}, {"kind": kind}, {"kind": kind, "strict": True}]
    for n, path in enumerate(_paths(doc)):
        for k, value in enumerate((ODD[n % len(ODD)], ODD[(n + 3) % len(ODD)])):
            target.write_text(json.dumps(_replaced(doc, path, value)))
            try:
                ds = load_path(target, **modes[(n + k) % 3])
            except DatasetLoadError as err:
                assert err.file == "inventory.json", (path, value)
                continue
            internet_exposure(ds)
