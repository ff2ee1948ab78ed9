"""End to end: ``cloudg-nb serve --sample demo`` over stdio (a real subprocess) with the real
catalog and the default policy answers an assistant's question through the official SDK."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]


async def test_assistant_gets_the_attack_path_from_a_served_sample_estate() -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cloudg_nb", "serve", "--sample", "demo"],
        cwd=str(ROOT), env={"CLOUDG_MCP_POLICY": "standard", "PATH": "/usr/bin:/bin"},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        async with Client(params, mode="legacy") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"attack_paths", "blast_radius", "sample_estate"} <= tools
            result = await client.call_tool("attack_paths", {"target": "customers-db"})
    assert not result.is_error
    first = result.structured_content["paths"][0]
    assert [n["name"] for n in first["nodes"]] == [
        "Internet", "web-alb", "web-1", "app-role", "customers-db"]
    assert "cloudg/transforms" in (result.meta or {})  # the default policy's pipeline ran
