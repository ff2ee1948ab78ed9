"""Dataset specs as ``cloudg-nb --dataset`` and ``CloudGExtension.datasets`` take them
(``cloudg_nb.dataset_specs``): ``NAME=PATH`` loads an estate file, ``NAME=sample:KIND`` a
generated sample estate, both through the layer's own tools (under its name prefix)."""

from __future__ import annotations

import pytest

from cloudg_nb.assembly import build_layer
from cloudg_nb.dataset_specs import DatasetSpec, DatasetSpecError, parse_dataset_spec


def test_name_equals_path_loads_that_file_under_that_name() -> None:
    spec = parse_dataset_spec("prod=estate/prod.json")
    assert spec == DatasetSpec("prod", "estate/prod.json")
    assert (spec.tool, spec.arguments()) == (
        "load_dataset", {"path": "estate/prod.json", "name": "prod"})


def test_a_sample_prefix_generates_that_sample_estate_under_that_name() -> None:
    spec = parse_dataset_spec("mine=sample:drifted")
    assert spec == DatasetSpec("mine", "drifted", sample=True)
    assert (spec.tool, spec.arguments()) == (
        "sample_estate", {"name": "drifted", "dataset_name": "mine"})


def test_the_path_is_everything_after_the_first_equals_sign() -> None:
    assert parse_dataset_spec("odd=folder/a=b.json").source == "folder/a=b.json"


@pytest.mark.parametrize("text", ["", "just-a-path.json", "=estate.json", "prod=", "="])
def test_a_spec_without_a_name_and_a_path_is_refused(text: str) -> None:
    with pytest.raises(DatasetSpecError, match="NAME=PATH"):
        parse_dataset_spec(text)


async def test_a_spec_loads_through_the_layers_tool_under_its_prefix() -> None:
    layer = build_layer(policy="open", prefix="cg_")
    result = await parse_dataset_spec("mine=sample:demo").load(layer)
    assert not result.is_error, result.text
    assert "mine" in layer.workspace.names()
