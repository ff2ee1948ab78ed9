"""How results look: tables with a caption, readable dicts, short errors, the policy note."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

import cloudg_nb
from cloudg_nb.notebook.call_result import ErrorInfo, Result
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.render import (
    MAX_TEXT_CHARS,
    render,
    render_error,
    render_note,
    render_result,
    render_value,
    table_of,
)


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def strict_client() -> Iterator[Client]:
    opened = cloudg_nb.local(policy="strict")
    yield opened
    opened.close()


def test_list_result_renders_as_table_with_caption(client: Client) -> None:
    result = client.call("find_assets", limit=3, progress=False)
    shown = render_result(result)
    assert "<table" in shown.html
    assert f"3 of {result.data['total']} rows · dataset demo v1" in shown.text
    assert "next page: <code>%cloudg next</code>" in shown.html
    assert shown.text.splitlines()[-1] == result.caption


def test_list_result_bundle_has_html_and_text(client: Client) -> None:
    bundle = render(client.call("find_assets", limit=2, progress=False))._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert "aws-" in bundle["text/plain"]


def test_dict_result_renders_as_key_value_lines(client: Client) -> None:
    shown = render_result(client.call("get_asset", ref="customers-db", progress=False))
    lines = shown.text.splitlines()
    assert any(line.split() == ["name", "customers-db"] for line in lines)
    assert any(line.split() == ["is_internet_exposed", "false"] for line in lines)
    assert "<table class='cloudg-dict'>" in shown.html


def test_nested_values_of_a_dict_render_as_indented_yaml() -> None:
    shown = render_value({"edges": {"outgoing": {"REFERENCES": 1}}, "ok": True})
    assert "edges:\n  outgoing:\n    REFERENCES: 1" in shown.text
    assert "ok" in shown.text and "true" in shown.text


def test_error_renders_code_message_and_hints_without_traceback(client: Client) -> None:
    shown = render_result(client.call("find_asets", progress=False))
    assert shown.text.startswith("Error [not_found] in find_asets: Unknown tool 'find_asets'")
    assert "did you mean: find_assets" in shown.text
    assert "Traceback" not in shown.text and "Traceback" not in shown.html
    assert "cloudg-error" in shown.html


def test_bad_argument_error_names_the_argument(client: Client) -> None:
    shown = render_result(client.call("list_findings", severities=["HIGHH"], progress=False))
    assert "Error [invalid_arguments] in list_findings" in shown.text
    assert "argument: severities" in shown.text
    assert "did you mean: HIGH" in shown.text


def test_error_text_is_html_escaped() -> None:
    shown = render_error(ErrorInfo(code="x", message="<script>alert(1)</script>"))
    assert "<script>" not in shown.html
    assert "&lt;script&gt;" in shown.html


def test_policy_transforms_show_as_a_note(strict_client: Client) -> None:
    result = strict_client.call("find_assets", limit=5, progress=False)
    assert result.transform_note
    shown = render_result(result)
    assert shown.text.splitlines()[-1] == f"privacy policy: {result.transform_note}"
    assert "pseudonymized" in shown.text
    assert "cloudg-transforms" in shown.html


def test_nothing_changed_means_no_policy_note(client: Client) -> None:
    shown = render_result(client.call("find_assets", limit=2, progress=False))
    assert "policy:" not in shown.text


def test_long_text_is_cut_with_a_note_saying_how_to_get_it() -> None:
    shown = render_value("x" * (MAX_TEXT_CHARS + 50))
    assert "50 more characters" in shown.text
    assert "-o VAR" in shown.text


def test_result_without_structured_data_shows_its_text() -> None:
    shown = render_result(Result(tool="t", arguments={}, text="plain words"))
    assert shown.text == "plain words"


def test_split_table_resource_becomes_a_dataframe(client: Client) -> None:
    frame = table_of(client.read("cloudg://datasets/demo/assets"))
    assert frame is not None
    assert len(frame) == 60
    assert "arn" in frame.columns


def test_unknown_argument_error_names_it_and_suggests_the_close_one(client: Client) -> None:
    shown = render_result(client.call("find_assets", limt=3, progress=False))
    assert "argument: limt" in shown.text
    assert "did you mean: limit" in shown.text


def colours_in(html: str) -> list[tuple[str, str]]:
    """(property, value) of every colour, background and border in the inline styles."""
    styles = ";".join(re.findall(r"style=[\"']([^\"']*)[\"']", html))
    return re.findall(r"(?<![-\w])(background(?:-color)?|color|border(?:-\w+)?):([^;]+)", styles)


def test_results_take_their_colours_from_the_notebooks_theme(
        client: Client, strict_client: Client) -> None:
    shown = "".join(r.html for r in (
        render_result(strict_client.call("find_assets", limit=3, progress=False)),  # + note
        render_result(client.call("find_asets", progress=False)),  # an error
        render_note("stored as df")))
    found = colours_in(shown)
    assert {name for name, _ in found} >= {"color", "background", "border-left"}
    # a theme's variable (JupyterLab's, then VS Code's, then a light page's), or a tint that
    # shows the page through it; never a fixed colour
    fixed = [(name, value) for name, value in found
             if not re.sub(r"^\d+px \w+ ", "", value).startswith(("var(--jp-", "rgba("))]
    assert fixed == []
    assert all(not re.search(r"rgba\([^)]*,\s*(1|1\.0)\)", value) for _, value in found)
