"""Change notifications over the wire with the real catalog: a ``cloudg-nb serve`` HTTP
process, official-SDK clients. Loading data (sample_estate, load_dataset) sends every session
``notifications/resources/list_changed``; ``suppress_findings`` from one client sends
``notifications/resources/updated`` for ``cloudg://workspace`` to a client subscribed to it —
and not to one that is not — and for every other resource showing the dataset (its findings
table, the active dataset's findings summary), but not for another dataset's tables. Tool
results also pass the SDK client's output-schema check."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp.types import ResourceListChangedNotification, ResourceUpdatedNotification

from tests.protocol.harness import ServerProcess, open_session

pytestmark = pytest.mark.server

WORKSPACE = "cloudg://workspace"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with ServerProcess(registry=None, policy="open") as running:  # the default catalog
        yield running


def _list_changes(session: Any, start: int) -> list[Any]:
    return [n for n in session.notes[start:] if isinstance(n, ResourceListChangedNotification)]


def _updates(session: Any, uri: str, start: int = 0) -> list[Any]:
    return [n for n in session.notes[start:]
            if isinstance(n, ResourceUpdatedNotification) and n.params.uri == uri]


def test_sample_estate_announces_a_resource_list_change_to_every_session(server) -> None:
    with open_session(server.url, "2025") as watcher, \
            open_session(server.url, "2025") as loader:
        start = len(watcher.notes)
        result = loader.call_tool("sample_estate", {"name": "demo", "dataset_name": "listed",
                                                    "replace": True})
        assert not result.is_error
        assert result.structured_content["assets"] == 60
        watcher.wait_for(lambda: _list_changes(watcher, start))


def test_load_dataset_of_the_shipped_demo_files_announces_a_list_change(server) -> None:
    with open_session(server.url, "2025") as watcher, \
            open_session(server.url, "2025") as loader:
        start = len(watcher.notes)
        result = loader.call_tool("load_dataset", {"path": "cloudg_nb/estate/data/demo",
                                                   "name": "shipped", "replace": True})
        assert not result.is_error, result.content
        assert (result.structured_content["assets"], result.structured_content["findings"]) == (
            60, 15)
        watcher.wait_for(lambda: _list_changes(watcher, start))


def test_suppress_findings_updates_a_subscribed_workspace_from_another_client(server) -> None:
    with open_session(server.url, "2025") as subscriber, \
            open_session(server.url, "2025") as mutator:
        setup = mutator.call_tool("sample_estate", {"name": "demo", "dataset_name": "notify",
                                                    "replace": True})
        assert not setup.is_error
        subscriber.subscribe_resource(WORKSPACE)
        start = len(subscriber.notes)
        result = mutator.call_tool("suppress_findings", {"ids": ["f-001"], "dataset": "notify"})
        assert result.structured_content["suppressed"] == ["f-001"]
        subscriber.wait_for(lambda: _updates(subscriber, WORKSPACE, start))
        assert _updates(mutator, WORKSPACE) == []


def test_suppress_findings_updates_every_subscribed_resource_showing_the_active_dataset(
    server,
) -> None:
    findings, summary = "cloudg://datasets/demo/findings", "cloudg://findings/summary"
    other = "cloudg://datasets/bystander/findings"
    with open_session(server.url, "2025") as subscriber, \
            open_session(server.url, "2025") as mutator:
        for name, activate in (("bystander", False), ("demo", True)):
            setup = mutator.call_tool("sample_estate", {
                "name": "demo", "dataset_name": name, "replace": True, "activate": activate})
            assert not setup.is_error, setup.content
        for uri in (findings, summary, other):
            subscriber.subscribe_resource(uri)
        start = len(subscriber.notes)
        result = mutator.call_tool("suppress_findings", {"ids": ["f-002"], "dataset": "demo"})
        assert result.structured_content["suppressed"] == ["f-002"]
        subscriber.wait_for(lambda: _updates(subscriber, findings, start)
                            and _updates(subscriber, summary, start))
        # delivered in order in one burst: the summary (active URIs come last) arrived after
        # anything the bystander's table could have received
        assert _updates(subscriber, other, start) == []


def test_graph_results_pass_the_sdk_client_output_schema_check(server) -> None:
    with open_session(server.url, "2026") as client:
        client.call_tool("sample_estate", {"name": "demo", "dataset_name": "wire",
                                           "replace": True})
        result = client.call_tool("attack_paths", {"target": "customers-db", "dataset": "wire"})
        names = [n["name"] for n in result.structured_content["paths"][0]["nodes"]]
        assert names == ["Internet", "web-alb", "web-1", "app-role", "customers-db"]
