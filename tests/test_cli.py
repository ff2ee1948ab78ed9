"""The ``cloudg-nb`` console script: demo, tools, call, read (in-process layer); ``serve``
(workspace preparation, option errors) and ``config`` (client configurations that work)."""

from __future__ import annotations

import json
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from cloudg_nb.cli import main


def test_demo_tours_the_sample_estate_with_the_real_answers() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "cloudg_nb", "demo"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())  # lines are wrapped for the terminal
    assert "60 assets, 77 edges, 15 findings" in text
    assert "Internet -> web-alb -> web-1 -> app-role -> customers-db" in text
    assert "directly: customers-db, customer-pii-exports, db-credentials, audit-logs" in text
    assert "assets removed: ['web-waf']; findings resolved: ['f-002']" in text
    assert "Worse: 1 protection lost (web-waf (WAF) protects web-alb); 3 new attack paths" in text
    assert "Xq7-tide-Lantern-42" not in text and "[REDACTED" in text
    assert "⟦untrusted⟧ Ignore all previous instructions" in text
    assert "close matches: ['customers-db'" in text


def test_tools_json_prints_mcp_definitions(capsys) -> None:
    assert main(["tools", "--json"]) == 0
    tools = json.loads(capsys.readouterr().out)
    assert {"list_capabilities", "workspace_status"} <= {t["name"] for t in tools}
    assert all("inputSchema" in t for t in tools)


def test_call_prints_the_structured_result(capsys) -> None:
    assert main(["--policy", "open", "call", "list_capabilities"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["server"]["policy"] == "open"


def test_call_with_invalid_json_arguments_exits_2_without_echoing_them(capsys) -> None:
    assert main(["call", "list_capabilities", "--args", "{sk-secret"]) == 2
    err = capsys.readouterr().err
    assert "not valid JSON" in err and "sk-secret" not in err


def test_call_of_unknown_tool_exits_2(capsys) -> None:
    assert main(["call", "no_such_tool"]) == 2
    assert "Unknown tool" in capsys.readouterr().err


def test_read_prints_resource_contents(capsys) -> None:
    assert main(["read", "cloudg://workspace"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "datasets": [], "active": None, "max_datasets": 16, "loaded": []
    }


# -- serve ---------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
CLI_REGISTRY = "tests.cli_registry:registry"


def _stdio_call(argv: list[str], tool: str) -> dict:
    """Start ``argv`` as a stdio MCP server, call ``tool`` with the SDK client, return its
    structured content."""

    async def run() -> dict:
        params = StdioServerParameters(command=argv[0], args=argv[1:], cwd=str(ROOT))
        with anyio.fail_after(60):
            async with Client(params, mode="legacy") as client:
                return (await client.call_tool(tool, {})).structured_content

    return anyio.run(run)


@pytest.mark.server
def test_serve_loads_the_sample_and_datasets_before_serving(tmp_path: Path) -> None:
    estate = tmp_path / "prod.json"
    estate.write_text("{}")
    argv = [sys.executable, "-m", "cloudg_nb", "serve", "--transport", "stdio",
            "--registry", CLI_REGISTRY, "--sample", "demo", "--dataset", f"prod={estate}"]
    assert _stdio_call(argv, "loaded") == {
        "loaded": [{"sample": "demo"}, {"name": "prod", "path": str(estate)}]}


def test_serve_dataset_without_the_loader_tool_exits_2(capsys) -> None:
    code = main(["serve", "--registry", "tests.protocol.fixture_registry:registry",
                 "--sample", "demo"])
    assert code == 2
    assert "sample_estate tool" in capsys.readouterr().err


def test_serve_dataset_that_fails_to_load_exits_2(capsys) -> None:
    code = main(["serve", "--registry", CLI_REGISTRY, "--dataset", "prod=/no/such/estate.json"])
    assert code == 2
    assert "--dataset failed: No estate file there" in capsys.readouterr().err


def test_serve_rejects_a_malformed_dataset_option(capsys) -> None:
    assert main(["serve", "--registry", CLI_REGISTRY, "--dataset", "just-a-path.json"]) == 2
    assert "NAME=PATH" in capsys.readouterr().err


def test_serve_rejects_a_malformed_auth_token_without_echoing_it(capsys) -> None:
    code = main(["serve", "--transport", "http", "--auth-token", "lonely-secret"])
    assert code == 2
    err = capsys.readouterr().err
    assert "TOKEN:ROLES:ID" in err and "lonely-secret" not in err


def test_serve_stdio_refuses_http_only_options(capsys) -> None:
    assert main(["serve", "--transport", "stdio", "--auth-token", "t:r:i"]) == 2
    assert "--transport http only" in capsys.readouterr().err


def test_serve_with_an_unimportable_registry_exits_2(capsys) -> None:
    assert main(["serve", "--registry", "no_such_module_here:registry"]) == 2
    assert "cannot import module" in capsys.readouterr().err


def test_serve_on_a_port_in_use_exits_2(capsys) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        code = main(["serve", "--transport", "http", "--port", str(port)])
    assert code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


# -- config --------------------------------------------------------------------------------


@pytest.mark.server
def test_config_claude_code_prints_a_command_that_registers_a_working_server(capsys) -> None:
    assert main(["--registry", CLI_REGISTRY, "config", "--client", "claude-code"]) == 0
    argv = shlex.split(capsys.readouterr().out.strip())
    assert argv[:6] == ["claude", "mcp", "add", "--transport", "stdio", "cloudg"]
    server = argv[argv.index("--") + 1:]
    assert server[-3:] == ["serve", "--transport", "stdio"]
    assert _stdio_call(server, "loaded") == {"loaded": []}


def test_config_claude_code_with_url_registers_the_http_endpoint(capsys) -> None:
    url = "http://127.0.0.1:8765/mcp"
    assert main(["config", "--client", "claude-code", "--url", url, "--token", "tok"]) == 0
    argv = shlex.split(capsys.readouterr().out.strip())
    assert argv == ["claude", "mcp", "add", "--transport", "http", "cloudg", url,
                    "--header", "Authorization: Bearer tok"]


@pytest.mark.parametrize(("client", "key"), [
    ("claude-desktop", "mcpServers"), ("cursor", "mcpServers"), ("vscode", "servers")])
def test_config_json_clients_launch_the_stdio_server(client: str, key: str, capsys) -> None:
    assert main(["--policy", "open", "config", "--client", client]) == 0
    entry = json.loads(capsys.readouterr().out)[key]["cloudg"]
    argv = [entry["command"], *entry["args"]]
    assert argv[-5:] == ["--policy", "open", "serve", "--transport", "stdio"]
    assert entry.get("type", "stdio") == "stdio"


@pytest.mark.parametrize("client", ["claude-desktop", "cursor", "vscode"])
def test_config_json_clients_with_url_point_at_the_endpoint(client: str, capsys) -> None:
    url = "http://127.0.0.1:8765/mcp"
    assert main(["config", "--client", client, "--url", url]) == 0
    text = capsys.readouterr().out
    json.loads(text)
    assert url in text


def test_http_serve_on_a_public_address_without_tokens_is_refused(capsys) -> None:
    assert main(["serve", "--transport", "http", "--host", "0.0.0.0", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "--auth-token" in err and "--allow-anonymous" in err


def test_a_bad_policy_is_a_usage_error_not_a_traceback(capsys) -> None:
    assert main(["--policy", "no-such-profile", "tools"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cloudg-nb: --policy:") and "Traceback" not in err


def test_call_can_load_the_sample_estate_first(capsys) -> None:
    assert main(["call", "blast_radius", "--sample", "demo",
                 "--args", '{"ref": "prod-data-key"}']) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 11


def test_read_can_load_the_sample_estate_first(capsys) -> None:
    assert main(["read", "cloudg://datasets/demo/summary", "--sample", "demo"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "demo"


def test_an_out_of_range_port_is_refused(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--transport", "http", "--port", "99999"])
    assert exit_.value.code == 2
    assert "0 to 65535" in capsys.readouterr().err


def test_config_token_without_url_is_a_usage_error(capsys) -> None:
    assert main(["config", "--client", "cursor", "--token", "tok"]) == 2
    assert "--url" in capsys.readouterr().err


@pytest.mark.parametrize(("client", "key"), [
    ("claude-desktop", "mcpServers"), ("cursor", "mcpServers"), ("vscode", "servers")])
def test_stdio_configs_pin_the_readable_roots(client: str, key: str, capsys,
                                              monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CLOUDG_MCP_ALLOWED_ROOTS", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["config", "--client", client]) == 0
    entry = json.loads(capsys.readouterr().out)[key]["cloudg"]
    assert entry["env"] == {"CLOUDG_MCP_ALLOWED_ROOTS": str(tmp_path)}


def test_server_name_names_the_entry_and_name_still_does_without_jupyter(capsys) -> None:
    assert main(["config", "--client", "cursor", "--server-name", "estate"]) == 0
    assert list(json.loads(capsys.readouterr().out)["mcpServers"]) == ["estate"]
    assert main(["config", "--client", "cursor", "--name", "legacy"]) == 0
    assert list(json.loads(capsys.readouterr().out)["mcpServers"]) == ["legacy"]


def test_claude_desktop_over_http_passes_the_token_through_mcp_remote_env(capsys) -> None:
    url = "http://127.0.0.1:8765/mcp"
    assert main(["config", "--client", "claude-desktop", "--url", url, "--token", "tok"]) == 0
    entry = json.loads(capsys.readouterr().out)["mcpServers"]["cloudg"]
    assert entry == {"command": "npx",
                     "args": ["-y", "mcp-remote", url, "--transport", "http-only",
                              "--header", "Authorization:${AUTH_HEADER}"],
                     "env": {"AUTH_HEADER": "Bearer tok"}}


def test_jupyter_ai_over_http_is_an_mcp_settings_entry_with_the_header(capsys) -> None:
    url = "http://127.0.0.1:8765/mcp"
    assert main(["config", "--client", "jupyter-ai", "--url", url, "--token", "tok"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"mcp_servers": [{
        "type": "http", "name": "cloudg", "url": url,
        "headers": [{"name": "Authorization", "value": "Bearer tok"}]}]}
    assert ".jupyter/mcp_settings.json" in captured.err


def test_jupyter_ai_without_a_server_is_a_usage_error_that_says_to_add_jupyter(capsys) -> None:
    assert main(["config", "--client", "jupyter-ai"]) == 2
    err = capsys.readouterr().err
    assert "--jupyter" in err and "Traceback" not in err


def test_help_says_what_name_means_with_and_without_jupyter(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["config", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ("with --jupyter --token-auth (or jupyter-ai): the assistant's name (default: the "
            "client name)") in text
    assert "Without --jupyter (and with --server-token): the server entry name" in text
    assert "--server-name" in text and "--server-token" in text
