"""Shared workspace events through the Jupyter endpoint: one client's mutating call reaches the
others as ``resources/updated`` (subscribers) and ``list_changed`` (where lists change); the
2026-07-28 era receives the same events over ``subscriptions/listen``.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp.types import ResourceListChangedNotification, ResourceUpdatedNotification

from tests.protocol.harness import ClientSession, make_client

from .server import JupyterServer

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

SUMMARY = "cloudg://datasets/demo/summary"
#: Resources whose content also depends on the (active) demo dataset.
DEPENDENT = ("cloudg://datasets/demo/findings", "cloudg://findings/summary")


async def _from_another_client(jupyter: JupyterServer, era: str, tool: str,
                               arguments: dict[str, Any]) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers=jupyter.headers) as http:
        other: Client = make_client(streamable_http_client(jupyter.endpoint, http_client=http),
                                    era)
        async with other:
            result = await other.call_tool(tool, arguments)
            assert result.is_error is False, result.content


def _first_open_finding(session: ClientSession) -> str:
    listed = session.call_tool("list_findings", {"limit": 1}).structured_content
    return str(listed["items"][0]["id"])


def test_subscriber_gets_resources_updated_after_another_clients_suppression(
    jupyter: JupyterServer, session: ClientSession,
) -> None:
    era = session.era  # type: ignore[attr-defined]
    finding = _first_open_finding(session)
    suppress = {"ids": [finding], "reason": f"accepted risk ({era})"}
    if era == "2025":
        session.subscribe_resource(SUMMARY)
        start = len(session.notes)
        session.run(lambda _c: _from_another_client(jupyter, era, "suppress_findings", suppress))
        updated = session.wait_for(lambda: [
            n for n in session.notes[start:]
            if isinstance(n, ResourceUpdatedNotification) and n.params.uri == SUMMARY])
        assert updated
    else:
        async def listen(client: Any) -> Any:
            async with client.listen(resource_subscriptions=[SUMMARY]) as sub:
                await _from_another_client(jupyter, era, "suppress_findings", suppress)
                async for event in sub:
                    if getattr(event, "uri", None) == SUMMARY:
                        return event
            return None

        assert session.run(listen).uri == SUMMARY
    session.call_tool("unsuppress_findings", {"ids": [finding]})


def test_every_subscribed_resource_showing_the_dataset_is_updated_after_a_suppression(
    jupyter: JupyterServer, session: ClientSession,
) -> None:
    era = session.era  # type: ignore[attr-defined]
    finding = _first_open_finding(session)
    suppress = {"ids": [finding], "reason": f"accepted risk ({era}, tables)"}
    if era == "2025":
        for uri in DEPENDENT:
            session.subscribe_resource(uri)
        start = len(session.notes)
        session.run(lambda _c: _from_another_client(jupyter, era, "suppress_findings", suppress))
        session.wait_for(lambda: {
            n.params.uri for n in session.notes[start:]
            if isinstance(n, ResourceUpdatedNotification)} >= set(DEPENDENT))
        for uri in DEPENDENT:
            session.unsubscribe_resource(uri)
    else:
        async def listen(client: Any) -> set[str]:
            seen: set[str] = set()
            async with client.listen(resource_subscriptions=list(DEPENDENT)) as sub:
                await _from_another_client(jupyter, era, "suppress_findings", suppress)
                async for event in sub:
                    seen.add(str(getattr(event, "uri", "")))
                    if seen >= set(DEPENDENT):
                        break
            return seen

        assert session.run(listen) >= set(DEPENDENT)
    session.call_tool("unsuppress_findings", {"ids": [finding]})


def test_list_changed_reaches_clients_after_another_client_loads_a_dataset(
    jupyter: JupyterServer, session: ClientSession,
) -> None:
    era = session.era  # type: ignore[attr-defined]
    load = {"name": "drifted", "dataset_name": f"drifted{era}", "activate": False}
    if era == "2025":
        start = len(session.notes)
        session.run(lambda _c: _from_another_client(jupyter, era, "sample_estate", load))
        assert session.wait_for(lambda: [
            n for n in session.notes[start:] if isinstance(n, ResourceListChangedNotification)])
    else:
        async def listen(client: Any) -> set[str]:
            async with client.listen(resources_list_changed=True) as sub:
                await _from_another_client(jupyter, era, "sample_estate", load)
                async for event in sub:
                    return {type(event).__name__}
            return set()

        assert session.run(listen) == {"ResourcesListChanged"}
