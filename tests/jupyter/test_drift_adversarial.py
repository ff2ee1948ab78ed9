"""Attacks on the drift report by assistants holding minted tokens against a real Jupyter
server: planting a snapshot so the analyst's "since my last review" shows nothing worse,
borrowing the analyst's baseline, names that are not datasets (unknown, the same one twice,
too long, path-like) and a limit past the cap. The analyst's review must compare with the
analyst's own baseline, and every refusal say what to do without echoing the input. (Markup in
estate names is escaped by the notebook's report: tests/notebook/test_magics_diff.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cloudg_nb.layer.wire import ERROR_DATA_META
from tests.notebook.assistants import mint
from tests.protocol.harness import open_session

from .server import JupyterServer, jupyter_server

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("drift"), other_extensions=False, extra_args=[
            "--CloudGExtension.datasets=prod=sample:demo"]) as started:
        yield started


@pytest.fixture(scope="module")
def analyst(server: JupyterServer) -> Iterator[Any]:
    with open_session(server.endpoint, "2025", headers=server.headers) as session:
        yield session


def bot(server: JupyterServer, name: str) -> Any:
    return open_session(server.endpoint, "2025",
                        headers={"Authorization": f"Bearer {mint(server, name)}"})


def data(result: Any) -> Any:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def text(result: Any) -> str:
    return str(result.content[0].text) if result.content else ""


def error_data(result: Any) -> Any:
    """The error's data: a dict, or the list of validation errors for bad arguments."""
    return (result.meta or {}).get(ERROR_DATA_META) or {}


@pytest.fixture
def reviewed(analyst: Any) -> Iterator[None]:
    """The analyst reviewed ``prod`` (snapshot ``monday``); then ``prod`` was reloaded a week
    later (the drifted estate: its WAF gone). Undone afterwards."""
    data(analyst.call_tool("snapshot_dataset", {"dataset": "prod", "name": "monday"}))
    data(analyst.call_tool("sample_estate", {"name": "drifted", "dataset_name": "prod",
                                             "replace": True}))
    yield
    data(analyst.call_tool("unload_dataset", {"name": "monday"}))
    data(analyst.call_tool("sample_estate", {"name": "demo", "dataset_name": "prod",
                                             "replace": True}))


def test_an_assistants_later_snapshot_does_not_become_the_analysts_baseline(
        server: JupyterServer, analyst: Any, reviewed: None) -> None:
    with bot(server, "planter") as planter:
        planted = data(planter.call_tool("snapshot_dataset", {"dataset": "prod",
                                                              "name": "fresh-baseline"}))
        assert planted["snapshot"] == "fresh-baseline"
        out = data(analyst.call_tool("diff_datasets", {"target": "prod"}))
        data(planter.call_tool("unload_dataset", {"name": "fresh-baseline"}))
    assert out["base"]["name"] == "monday" and out["since_snapshot"] is True
    assert out["headline"].startswith("Worse: 1 protection lost (web-waf (WAF) protects "
                                      "web-alb)")


def test_the_analyst_without_a_snapshot_of_their_own_is_told_so_not_given_the_assistants(
        server: JupyterServer, analyst: Any) -> None:
    with bot(server, "planter-2") as planter:
        data(planter.call_tool("snapshot_dataset", {"dataset": "prod", "name": "planted"}))
        refused = analyst.call_tool("diff_datasets", {"target": "prod"})
        data(planter.call_tool("unload_dataset", {"name": "planted"}))
    assert refused.is_error and "No snapshot of 'prod' of yours" in text(refused)
    assert error_data(refused)["others_snapshots"] == {"planted": "assistant:planter-2"}


def test_an_assistant_does_not_borrow_the_analysts_baseline_either(
        server: JupyterServer, reviewed: None) -> None:
    with bot(server, "borrower") as borrower:
        refused = borrower.call_tool("diff_datasets", {"target": "prod"})
        named = borrower.call_tool("diff_datasets", {"base": "monday", "target": "prod"})
    assert refused.is_error and "of yours" in text(refused)
    assert error_data(refused)["others_snapshots"] == {"monday": "analyst"}
    assert not named.is_error  # naming a dataset it may read is an ordinary diff
    assert named.structured_content["worse"]["lost_protections"]


@pytest.mark.parametrize("arguments,expected", [
    ({"base": "prdo", "target": "prod"}, "close_matches"),
    ({"base": "prod", "target": "prdo"}, "close_matches"),
    ({"base": "prod", "target": "prod"}, "same dataset ('prod')"),
    ({"base": "../../etc/passwd", "target": "prod"}, "close_matches"),
    ({"base": "p" * 65, "target": "prod"}, "base"),
])
def test_names_that_cannot_be_compared_are_refused_saying_why_without_echoing_them(
        server: JupyterServer, arguments: dict[str, str], expected: str) -> None:
    with bot(server, "prober") as prober:
        result = prober.call_tool("diff_datasets", arguments)
    assert result.is_error
    said = text(result) + str(error_data(result))
    assert expected in said
    for value in arguments.values():
        if value != "prod":
            assert value not in text(result)


def test_a_huge_limit_is_refused_by_the_schema(server: JupyterServer, analyst: Any) -> None:
    data(analyst.call_tool("snapshot_dataset", {"dataset": "prod", "name": "tiny"}))
    try:
        with bot(server, "greedy") as greedy:
            result = greedy.call_tool("diff_datasets", {"base": "tiny", "target": "prod",
                                                        "limit": 10**9})
    finally:
        data(analyst.call_tool("unload_dataset", {"name": "tiny"}))
    assert result.is_error and "limit" in text(result) + str(error_data(result))
