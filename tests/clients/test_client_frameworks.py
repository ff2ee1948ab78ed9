"""Every MCP client an assistant may be built on connects to the Jupyter endpoint with an
assistant's own credential, lists the tools, reads, follows progress where it can and hands our
error to its caller. Each runs from its real installed package (``make client-deps``: the
client venvs and tests/clients/node) against one real Jupyter server under /user/alice/, and
the README's compatibility table must say what passed here, version by version."""

from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb.catalog import default_registry
from cloudg_nb.client_config import client_config
from tests.jupyter.server import JupyterServer, jupyter_server

pytestmark = [pytest.mark.server, pytest.mark.clients]

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DRIVERS = HERE / "python"
NODE = HERE / "node"
VENVS = {"clients": ROOT / ".venv-clients", "langchain": ROOT / ".venv-clients-langchain"}
BASE = "/user/alice/"
#: Generous: drivers import heavy frameworks on a loaded 2-core machine.
DRIVER_TIMEOUT = 240

#: The three calls every client makes: a read, a call that reports progress (attack_paths
#: reports each phase of its search), and an error (an asset that does not exist).
CALLS = {
    "read": {"tool": "count_assets", "arguments": {"group_by": "provider"}},
    "progress": {"tool": "attack_paths", "arguments": {"target": "customers-db"}},
    "error": {"tool": "get_asset", "arguments": {"ref": "no-such-asset"}},
}
ERROR_MESSAGE = ("No asset matches the ref; check the close matches in the error data or "
                 "search with find_assets.")


class ClientSetupError(RuntimeError):
    """A client framework the tests drive is not installed."""


def _installed(path: Path) -> Path:
    if not path.exists():
        raise ClientSetupError(
            f"{path.relative_to(ROOT)} is missing: the client framework tests need the client "
            "venvs and npm packages that `make client-deps` installs (make test runs it)")
    return path


def _python(venv: str) -> str:
    return str(_installed(VENVS[venv] / "bin" / "python"))


def _node_bin(name: str) -> str:
    return str(_installed(NODE / "node_modules" / ".bin" / name))


def _node_package_json(package: str) -> Path:
    return _installed(NODE / "node_modules" / package / "package.json")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("clients"), base_url=BASE,
                        other_extensions=False) as started:
        yield started


def mint(server: JupyterServer, name: str) -> str:
    """A new assistant credential, through the owner API (as `cloudg-nb config` mints one)."""
    body = json.dumps({"name": name, "client": "other"}).encode()
    minted = urllib.request.Request(
        f"{server.url}cloudg/api/assistants", data=body, method="POST",
        headers={"Authorization": f"token {server.token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(minted, timeout=30) as response:
        token = json.loads(response.read())["token"]
    assert token.startswith("cgat_")
    return str(token)


def run_driver(argv: list[str], plan: dict[str, Any], *, cwd: Path,
               env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a driver with ``plan`` on stdin; its report is the last line it prints."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    ran = subprocess.run(argv, input=json.dumps(plan), capture_output=True, text=True, cwd=cwd,
                         env={**base, **(env or {})}, timeout=DRIVER_TIMEOUT)
    lines = ran.stdout.strip().splitlines()
    assert ran.returncode == 0 and lines, (
        f"{' '.join(argv[:2])} exited {ran.returncode}:\n{ran.stderr[-4000:]}")
    return dict(json.loads(lines[-1]))


Report = dict[str, Any]


class ClientReports:
    """``reports(client)``: the report of that client's driver, run once per module."""

    def __init__(self, runs: dict[str, Callable[[], Report]]) -> None:
        self.runs = runs
        self.done: dict[str, Report] = {}

    @property
    def clients(self) -> tuple[str, ...]:
        return tuple(self.runs)

    def __call__(self, client: str) -> Report:
        if client not in self.done:
            self.done[client] = self.runs[client]()
        return self.done[client]


@pytest.fixture(scope="module")
def reports(server: JupyterServer, tmp_path_factory: pytest.TempPathFactory) -> ClientReports:
    def plan(name: str, **extra: Any) -> dict[str, Any]:
        return {"url": server.endpoint, "token": mint(server, name), **CALLS, **extra}

    def python(venv: str, script: str, name: str, env: dict[str, str] | None = None,
               **extra: Any) -> Callable[[], Report]:
        return lambda: run_driver([_python(venv), str(DRIVERS / script)], plan(name, **extra),
                                  cwd=DRIVERS, env=env)

    def typescript() -> Report:
        _node_package_json("@modelcontextprotocol/sdk")
        return run_driver(["node", str(NODE / "ts_sdk_client.mjs")], plan("typescript"),
                          cwd=NODE)

    def mcp_remote() -> Report:
        # The entry `cloudg-nb config --client claude-desktop` prints, with the installed
        # mcp-remote in place of `npx -y mcp-remote`.
        token = mint(server, "desktop")
        entry = json.loads(client_config("claude-desktop", url=server.endpoint, token=token)
                           .text)["mcpServers"]["cloudg"]
        assert entry["command"] == "npx" and entry["args"][:2] == ["-y", "mcp-remote"]
        config_dir = tmp_path_factory.mktemp("mcp-remote")
        bridge = {"command": _node_bin("mcp-remote"), "args": entry["args"][2:],
                  "env": {**entry["env"], "MCP_REMOTE_CONFIG_DIR": str(config_dir)},
                  "package_json": str(_node_package_json("mcp-remote"))}
        return run_driver([_python("clients"), str(DRIVERS / "mcp_remote.py")],
                          {**CALLS, **bridge}, cwd=DRIVERS)

    return ClientReports({
        "mcp legacy": python("clients", "official_mcp.py", "py-legacy", mode="legacy"),
        "mcp stateless": python("clients", "official_mcp.py", "py-stateless", mode="auto"),
        "@modelcontextprotocol/sdk": typescript,
        "mcp-remote": mcp_remote,
        "pydantic-ai-slim": python("clients", "pydantic_ai_client.py", "pydantic-ai"),
        # No traces sent to OpenAI's servers (there is no model run to trace anyway).
        "openai-agents": python("clients", "openai_agents_client.py", "openai-agents",
                                env={"OPENAI_AGENTS_DISABLE_TRACING": "1"}),
        "langchain-mcp-adapters": python("langchain", "langchain_client.py", "langchain"),
        "llama-index-tools-mcp": python("clients", "llama_index_client.py", "llama-index"),
    })


# -- what every client must do ---------------------------------------------------------------


def catalog_tools() -> list[str]:
    """What an assistant under the default ``assistant`` profile lists: the whole catalog
    (the owner-only oversight tools never show to assistants)."""
    return sorted(default_registry().tools)


def assert_connects_lists_reads_and_fails_clearly(report: Report, *, surfaced_as: str,
                                                  progress: bool) -> None:
    assert sorted(report["tools"]) == catalog_tools()

    counted = report["read"]["data"]
    assert counted["total"] == 60  # the demo estate
    assert {g["group"] for g in counted["groups"]} == {"AWS", "AZURE", "GCP"}
    assert sum(g["count"] for g in counted["groups"]) == 60

    paths = report["progress"]["data"]
    assert paths["target"]["name"] == "customers-db"
    assert paths["count"] == len(paths["paths"]) > 0
    seen = report["progress"]["notifications"]
    if progress:
        assert seen, "no progress notification reached the client's progress callback"
        values = [p for p, _, _ in seen]
        assert values == sorted(set(values))  # strictly increasing
        assert seen[-1][0] == seen[-1][1] and seen[-1][2] == "done"
    else:
        assert seen is None  # the framework offers no way to observe progress

    assert report["error"]["surfaced_as"] == surfaced_as
    assert report["error"]["message"] == ERROR_MESSAGE


@pytest.mark.parametrize("era,protocol", [("legacy", "2025-11-25"),
                                          ("stateless", "2026-07-28")])
def test_official_python_sdk_lists_calls_and_reports_errors_in_both_eras(
        reports: ClientReports, era: str, protocol: str) -> None:
    report = reports(f"mcp {era}")
    assert report["protocol"] == protocol
    assert_connects_lists_reads_and_fails_clearly(report, surfaced_as="isError result",
                                                  progress=True)


def test_typescript_sdk_lists_calls_and_reports_errors(
        reports: ClientReports) -> None:
    report = reports("@modelcontextprotocol/sdk")
    assert_connects_lists_reads_and_fails_clearly(report, surfaced_as="isError result",
                                                  progress=True)


def test_mcp_remote_bridges_the_desktop_config_over_stdio(
        reports: ClientReports) -> None:
    # Driven with the args and env `cloudg-nb config --client claude-desktop` prints
    # (--transport http-only, the Authorization header from $AUTH_HEADER).
    report = reports("mcp-remote")
    assert_connects_lists_reads_and_fails_clearly(report, surfaced_as="isError result",
                                                  progress=True)


def test_pydantic_ai_lists_calls_and_reports_errors(reports: ClientReports) -> None:
    report = reports("pydantic-ai-slim")
    assert_connects_lists_reads_and_fails_clearly(report, surfaced_as="ModelRetry",
                                                  progress=True)


def test_openai_agents_strict_mode_accepts_every_tool_schema_and_calls_tools(
        reports: ClientReports) -> None:
    report = reports("openai-agents")
    assert report["not_strict"] == []
    assert_connects_lists_reads_and_fails_clearly(
        report, surfaced_as="tool output text (isError result)", progress=False)


def test_langchain_mcp_adapters_lists_calls_and_reports_errors(
        reports: ClientReports) -> None:
    report = reports("langchain-mcp-adapters")
    assert_connects_lists_reads_and_fails_clearly(report, surfaced_as="ToolMessage status=error",
                                                  progress=True)


def test_llama_index_lists_calls_and_reports_errors(reports: ClientReports) -> None:
    report = reports("llama-index-tools-mcp")
    assert report["error"]["in_tool_output"] is True  # the agent's ToolOutput text has it too
    assert_connects_lists_reads_and_fails_clearly(
        report, surfaced_as="ToolOutput raw_output.is_error", progress=True)


# -- the README says what was tested ---------------------------------------------------------


def readme_table() -> dict[str, dict[str, str]]:
    """The rows of the README's compatibility table, by the package in their first cell."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Compatibility\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows: dict[str, dict[str, str]] = {}
    for line in lines[2:]:
        cells = dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True))
        package = re.fullmatch(r"`([^`]+)`.*", cells["client"])
        assert package, f"the first cell names the package in backticks: {cells['client']!r}"
        rows[package.group(1)] = cells
    return rows


def test_the_readme_compatibility_table_says_what_was_tested(
        reports: ClientReports) -> None:
    table = readme_table()
    by_package: dict[str, list[Report]] = {}
    for client in reports.clients:
        report = reports(client)
        by_package.setdefault(report["package"], []).append(report)
    assert set(table) == set(by_package)
    for package, runs in by_package.items():
        row = table[package]
        assert {r["version"] for r in runs} == {row["version tested"]}, package
        for report in runs:
            if report.get("protocol"):
                assert report["protocol"] in row["transport"], package
            observed = report["progress"]["notifications"] is not None
            assert row["progress"].startswith("yes" if observed else "not observable"), package
            assert report["error"]["surfaced_as"] in row["error"], package
            assert row["list tools"] == f"yes ({len(report['tools'])})", package
            assert row["read call"] == "yes", package
