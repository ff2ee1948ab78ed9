"""The ``cloudg-nb`` console script: demo, tools, call, read (in-process layer)."""

from __future__ import annotations

import json
import subprocess
import sys

from cloudg_nb.cli import main


def test_demo_walks_through_every_section() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "cloudg_nb", "demo"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    for heading in ("== Tools", "progress", "Timeout -> error result", "Completion", "Audit"):
        assert heading in out.stdout


def test_tools_json_prints_mcp_definitions(capsys) -> None:
    assert main(["tools", "--json"]) == 0
    tools = json.loads(capsys.readouterr().out)
    assert {"list_capabilities", "workspace_status"} <= {t["name"] for t in tools}
    assert all("inputSchema" in t for t in tools)


def test_call_prints_the_structured_result(capsys) -> None:
    assert main(["--policy", "open", "call", "list_capabilities"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["isError"] is False
    assert result["structuredContent"]["server"]["policy"] == "open"


def test_call_with_invalid_json_arguments_exits_2_without_echoing_them(capsys) -> None:
    assert main(["call", "list_capabilities", "--args", "{sk-secret"]) == 2
    err = capsys.readouterr().err
    assert "not valid JSON" in err and "sk-secret" not in err


def test_call_of_unknown_tool_exits_2(capsys) -> None:
    assert main(["call", "no_such_tool"]) == 2
    assert "Unknown tool" in capsys.readouterr().err


def test_read_prints_resource_contents(capsys) -> None:
    assert main(["read", "cloudg://workspace"]) == 0
    contents = json.loads(capsys.readouterr().out)
    assert json.loads(contents[0]["text"]) == {"datasets": [], "active": None}
