"""Errors in the notebook read with the README's names, show the details their message refers
to, and name the setting that fits where the layer runs (here in process: the environment)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import cloudg_nb
from cloudg_nb.layer.wire import ACCESS_DENIED, ERROR_NAMES, INVALID_PARAMS, RATE_LIMITED
from cloudg_nb.notebook.call_result import ErrorInfo
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.render import render_error, render_result


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    yield opened
    opened.close()


def _shown(client: Client, tool: str, **arguments: object) -> str:
    result = client.call(tool, progress=False, **arguments)
    assert result.is_error
    return render_result(result).text


def test_a_bad_argument_value_is_invalid_arguments_never_a_number(client: Client) -> None:
    text = _shown(client, "find_assets", limit="x")
    assert text.startswith("Error [invalid_arguments] in find_assets:")
    assert "Error [-32602]" not in text


def test_an_unknown_thing_is_not_found(client: Client) -> None:
    assert _shown(client, "get_finding", finding_id="f-999").startswith(
        "Error [not_found] in get_finding:")
    assert _shown(client, "get_asset", ref="no-such-asset").startswith(
        "Error [not_found] in get_asset:")


def test_a_refusal_is_access_denied_with_the_policys_reason(client: Client) -> None:
    text = _shown(client, "reveal_token", token="abc")
    assert text.startswith("Error [access_denied] in reveal_token:")
    assert "  reason: needs capability reveal" in text.splitlines()


def test_an_unreadable_file_shows_what_is_wrong_where(client: Client) -> None:
    text = _shown(client, "load_dataset",
                  path="notebooks/data/broken-prowler-output.ocsf.json", name="broken")
    lines = text.splitlines()
    assert "  line: 5" in lines and "  column: 1" in lines


def test_the_error_data_a_message_refers_to_is_shown_under_it(client: Client) -> None:
    text = _shown(client, "load_dataset", path="/etc/passwd", name="secrets")
    assert "error data" not in text
    assert "use a path under one of the roots below" in text
    assert "  roots: ., cloudg-output" in text.splitlines()


def test_a_path_outside_the_roots_names_the_environment_in_process(client: Client) -> None:
    text = _shown(client, "load_dataset", path="/etc/passwd", name="secrets")
    assert "the environment variable CLOUDG_MCP_ALLOWED_ROOTS allows more" in text
    assert "CloudGExtension" not in text


def test_close_matches_and_allowed_values_are_told_apart(client: Client) -> None:
    lines = _shown(client, "count_assets", group_by="type").splitlines()
    assert "  did you mean: asset_type, original_type" in lines
    assert any(line.startswith("  allowed: asset_type, provider") for line in lines)


def test_the_json_rpc_number_stays_visible_as_a_detail(client: Client) -> None:
    assert "  code: -31001 (JSON-RPC)" in _shown(client, "reveal_token", token="x").splitlines()


@pytest.mark.parametrize(("code", "name"), [
    (ACCESS_DENIED, "access_denied"), (RATE_LIMITED, "rate_limited"),
    (INVALID_PARAMS, "invalid_arguments"), (-32603, "internal_error"),
])
def test_every_numeric_code_has_its_readme_name(code: int, name: str) -> None:
    assert ERROR_NAMES[code] == name
    assert render_error(ErrorInfo(code, "x")).text.startswith(f"Error [{name}]: x")


def test_a_code_without_a_name_shows_its_number() -> None:
    assert render_error(ErrorInfo(-1234, "odd")).text.startswith("Error [-1234]: odd")


def test_rate_limits_show_when_to_try_again() -> None:
    shown = render_error(ErrorInfo(RATE_LIMITED, "Too many calls.",
                                   data={"retry_after": 2.5}), "find_assets")
    assert "  retry_after: 2.50" in shown.text.splitlines()
    assert "retry_after:</span> <code>2.50</code>" in shown.html  # visible, not in a tooltip


@pytest.mark.parametrize(("outcome", "code", "shown"), [
    ("error", INVALID_PARAMS, "error (invalid_arguments / not_found)"),
    ("denied", ACCESS_DENIED, "denied"),
    ("rate_limited", RATE_LIMITED, "rate_limited"),
    ("error", "timeout", "error (timeout)"),
    ("ok", None, "ok"),
])
def test_the_activity_feed_names_error_codes(outcome: str, code: object, shown: str) -> None:
    from cloudg_nb.notebook.activity_feed import row_html

    row = row_html({"outcome": outcome, "error_code": code, "kind": "tool", "name": "x",
                    "principal": "analyst", "time": 0})
    assert f">{shown}</span>" in row
    assert "-3260" not in row and "-3100" not in row
