"""Installing and configuring the extension: enabled by the installed config file, traitlets
documented in ``--help-all``, bad configuration reported in one log line while the server
still starts (the endpoint answers with a clear error), ``enabled = False``, ``show_token``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lanes import starts
from tests.protocol.harness import open_session

from .server import JupyterServer, isolated_env, jupyter_server
from .test_auth import mcp

TRAITLETS = ("enabled", "policy", "prefix", "datasets", "allowed_roots", "output_dir",
             "default_timeout", "max_output_chars", "audit_log", "max_concurrency",
             "reserved_concurrency", "max_concurrency_per_assistant",
             "max_waiting_per_assistant", "cache_ttl", "roles", "default_roles", "registry",
             "show_token", "session_idle_timeout", "max_sessions_per_user", "assistant_policy",
             "assistant_store", "approval_timeout", "require_approval", "activity_size",
             "max_pending_approvals", "assistant_max_datasets", "assistant_max_assets",
             "public_url", "switch_interval")


def _run(tmp_path: Path, *argv: str) -> str:
    done = subprocess.run(argv, env=isolated_env(tmp_path), capture_output=True, text=True,
                          timeout=120, check=True)
    return re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)  # no colours


def _tracebacks(log: str) -> list[str]:
    return [line for line in log.splitlines() if "Traceback" in line]


def test_installed_config_file_enables_the_extension(tmp_path: Path) -> None:
    listing = _run(tmp_path, sys.executable, "-m", "jupyter_server", "extension", "list")
    lines = [" ".join(line.split()) for line in listing.splitlines()]
    at = lines.index("cloudg_jupyter enabled")
    assert lines[at + 1:at + 3] == ["- Validating cloudg_jupyter...", "cloudg_jupyter OK"]


def test_every_setting_is_documented_in_jupyter_cloudg_help_all(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "jupyter-cloudg"
    text = _run(tmp_path, str(script), "--help-all")
    section = text[text.index("CloudGExtension(ExtensionApp) options"):]
    for name in TRAITLETS:
        assert f"--CloudGExtension.{name}=" in section, name


BAD_SETTINGS = {
    "unknown policy": ("policy", "no-such-profile"),
    "registry failing at import": ("registry", "broken_registry:registry"),
    "registry that is no Registry": ("registry", "json:dumps"),
    "unwritable audit log": ("audit_log", "{tmp}/a-file/audit.jsonl"),
    "invalid prefix": ("prefix", "bad prefix!"),
}


@pytest.mark.server
@pytest.mark.parametrize("case", BAD_SETTINGS)
def test_bad_setting_is_one_log_line_and_a_clear_503(tmp_path: Path, case: str) -> None:
    name, value = BAD_SETTINGS[case]
    (tmp_path / "a-file").write_text("not a folder")
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "broken_registry.py").write_text("raise RuntimeError('broken on import')\n")
    env = {"PYTHONPATH": os.pathsep.join([str(modules), isolated_env(tmp_path)["PYTHONPATH"]])}
    setting = f"CloudGExtension.{name}"
    with jupyter_server(tmp_path, extra_args=[f"--{setting}={value.format(tmp=tmp_path)}"],
                        env=env, wait_for_extension=False, other_extensions=False) as server:
        status, _, body = mcp(server, Authorization=f"Bearer {server.token}")
        assert status == 503
        message = json.loads(body)["error"]["message"]
        assert setting in message and "restart" in message
        _, report = server.get_json(server.status_url)
        assert report["ready"] is False and setting in report["problems"][0]
        log = server.log()
    problem_lines = [line for line in log.splitlines() if setting in line]
    assert len(problem_lines) == 1, problem_lines
    assert _tracebacks(log) == []


@pytest.fixture(scope="module")
@starts("server")
def odd_server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Datasets from under the root dir, from outside it and from nowhere, next to the demo;
    the real token shown; no audit log."""
    from cloudg_nb.estate.formats.inventory_map import write_inventory_map
    from cloudg_nb.estate.samples import demo

    tmp = tmp_path_factory.mktemp("odd")
    write_inventory_map(demo(), tmp / "root" / "estate")
    write_inventory_map(demo(), tmp / "elsewhere")
    with jupyter_server(tmp, extra_args=[
        "--CloudGExtension.datasets=demo=sample:demo",
        "--CloudGExtension.datasets=prod=estate/inventory-map.json",
        f"--CloudGExtension.datasets=outside={tmp / 'elsewhere' / 'inventory-map.json'}",
        "--CloudGExtension.datasets=missing=estate/no-such-file.json",
        "--CloudGExtension.show_token=True",
        "--CloudGExtension.audit_log=",
    ], other_extensions=False) as server:
        yield server


def _problems(server: JupyterServer) -> dict[str, str]:
    _, report = server.get_json(server.status_url)
    return {p.split(":", 1)[0]: p for p in report["problems"]}


def test_datasets_load_from_under_the_server_root_dir(odd_server: JupyterServer) -> None:
    _, report = odd_server.get_json(odd_server.status_url)
    loaded = {d["name"]: d["assets"] for d in report["datasets"]}
    assert loaded == {"demo": 60, "prod": 60}


def test_dataset_outside_the_root_dir_is_refused(odd_server: JupyterServer) -> None:
    problem = _problems(odd_server)["outside"]
    assert "CloudGExtension.allowed_roots" in problem
    assert str(odd_server.root_dir.parent) not in problem  # no absolute paths echoed


def test_a_load_outside_the_roots_tells_the_caller_the_trait_to_set_not_the_cli_variable(
        odd_server: JupyterServer) -> None:
    with open_session(odd_server.endpoint, "2025", headers=odd_server.headers) as session:
        refused = session.call_tool("load_dataset", {"path": "/etc/passwd", "name": "x"})
    text = refused.content[0].text
    assert refused.is_error and "outside the allowed folders" in text
    assert "CloudGExtension.allowed_roots" in text and "CLOUDG_MCP_ALLOWED_ROOTS" not in text


def test_unreadable_dataset_is_one_log_line_and_the_rest_is_served(
    odd_server: JupyterServer,
) -> None:
    assert set(_problems(odd_server)) == {"outside", "missing"}
    lines = [line for line in odd_server.log().splitlines() if "not loaded: missing" in line]
    assert len(lines) == 1
    assert _tracebacks(odd_server.log()) == []


def test_show_token_prints_the_real_token_in_the_client_command(
    odd_server: JupyterServer,
) -> None:
    assert f'--header "Authorization: Bearer {odd_server.token}"' in odd_server.log()


@pytest.fixture(scope="module")
@starts("server")
def jupyter_default(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    with jupyter_server(tmp_path_factory.mktemp("default"), other_extensions=False) as server:
        yield server


def test_audit_log_goes_to_the_jupyter_data_dir_with_owner_only_access(
    jupyter_default: JupyterServer,
) -> None:
    mcp(jupyter_default, Authorization=f"Bearer {jupyter_default.token}")
    audit = Path(jupyter_default.env["JUPYTER_DATA_DIR"]) / "cloudg" / "audit.jsonl"
    assert audit.is_file()
    assert audit.stat().st_mode & 0o777 == 0o600


@pytest.mark.server
def test_disabled_extension_serves_no_endpoint(tmp_path: Path) -> None:
    with jupyter_server(tmp_path, extra_args=["--CloudGExtension.enabled=False"],
                        wait_for_extension=False, other_extensions=False) as server:
        status, _, _ = mcp(server, Authorization=f"Bearer {server.token}")
        assert status == 404
        assert "MCP endpoint disabled" in server.log()


@pytest.mark.server
def test_session_cap_per_user_reclaims_that_users_longest_idle_session(tmp_path: Path) -> None:
    with jupyter_server(tmp_path, extra_args=["--CloudGExtension.max_sessions_per_user=2"],
                        other_extensions=False) as server:
        auth = f"Bearer {server.token}"
        sessions = []
        for _ in range(3):
            status, headers, _ = mcp(server, Authorization=auth)
            assert status == 200
            sessions.append(headers["mcp-session-id"][0])
        _, report = server.get_json(server.status_url)
        assert report["sessions"] == 2
        # The first (longest idle) session made room for the third: its id is gone.
        status, _, _ = mcp(server, "DELETE", Authorization=auth,
                           **{"Mcp-Session-Id": sessions[0]})
        assert status == 404
        status, _, _ = mcp(server, "DELETE", Authorization=auth,
                           **{"Mcp-Session-Id": sessions[2]})
        assert status == 200
