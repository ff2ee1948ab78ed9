"""The %cloudg / %%cloudg magics in an in-process IPython shell, local mode (no server)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas
import pytest
from IPython.core.interactiveshell import InteractiveShell

import cloudg_nb
from cloudg_nb.notebook.client import Client

from .magics_shell import magics, run_cell, shell_with_extension


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    yield opened
    opened.close()


@pytest.fixture
def ip(client: Client) -> Iterator[InteractiveShell]:
    with shell_with_extension(client) as shell:
        for name in ("df", "res", "bad", "frame", "page"):
            shell.user_ns.pop(name, None)
        yield shell


def _ok(run: object) -> None:
    result = run.result  # type: ignore[attr-defined]
    assert result.error_in_exec is None and result.error_before_exec is None
    assert "Traceback" not in run.text  # type: ignore[attr-defined]


# -- call and -o -------------------------------------------------------------------------------


def test_call_with_o_stores_the_dataframe_of_a_list_result(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg call find_assets internet_exposed=true -o df")
    _ok(run)
    df = ip.user_ns["df"]
    assert isinstance(df, pandas.DataFrame)
    assert len(df) > 0 and df["internet_exposed"].all()
    assert "aws-ec2-bastion" in run.text


def test_call_with_o_stores_the_dict_of_a_dict_result(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, "%cloudg call get_asset ref=customers-db -o res"))
    assert isinstance(ip.user_ns["res"], dict)
    assert ip.user_ns["res"]["name"] == "customers-db"


def test_list_result_shows_caption_with_next_page_hint(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg call find_assets limit=3")
    _ok(run)
    assert "3 of 60 assets · dataset demo v1 · next page: %cloudg next" in run.text


def test_values_parse_as_json_lists(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, '%cloudg call list_findings severities=["HIGH","CRITICAL"] -o df'))
    assert set(ip.user_ns["df"]["severity"]) == {"HIGH", "CRITICAL"}


def test_dollar_name_and_braces_expand_as_ipython_does(ip: InteractiveShell) -> None:
    ip.user_ns["n"] = 2
    ip.user_ns["sev"] = ["HIGH"]
    _ok(run_cell(ip, "%cloudg call find_assets limit=$n -o df"))
    assert len(ip.user_ns["df"]) == 2
    _ok(run_cell(ip, "%cloudg call find_assets limit={n + 1} -o df"))
    assert len(ip.user_ns["df"]) == 3
    _ok(run_cell(ip, "%cloudg call list_findings severities=$sev -o df"))
    assert set(ip.user_ns["df"]["severity"]) == {"HIGH"}


def test_unknown_tool_prints_close_matches_and_no_traceback(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg call find_asets -o bad")
    _ok(run)
    assert "Unknown tool 'find_asets'" in run.text
    assert "did you mean: find_assets" in run.text
    assert "bad" not in ip.user_ns


def test_bad_argument_names_the_argument_and_stores_nothing(ip: InteractiveShell) -> None:
    ip.user_ns["df"] = "before"
    run = run_cell(ip, '%cloudg call list_findings severities=["HIGHH"] -o df')
    _ok(run)
    assert "argument: severities" in run.text
    assert "did you mean: HIGH" in run.text
    assert ip.user_ns["df"] == "before"


def test_usage_error_is_a_short_message(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg call find_assets limit=[1, 2")
    _ok(run)
    assert "Error [usage]" in run.text and "close it with ']'" in run.text


def test_o_needs_a_variable_name(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg call find_assets -o 1x")
    _ok(run)
    assert "Python variable name" in run.text


def test_unknown_subcommand_suggests_a_close_one(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg describ find_assets")
    _ok(run)
    assert "Unknown subcommand 'describ'" in run.text and "describe" in run.text


# -- %%cloudg call -----------------------------------------------------------------------------


def test_cell_body_in_json_gives_the_arguments(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, '%%cloudg call list_findings -o df\n{"severities": ["CRITICAL"], '
                     '"limit": 5}\n'))
    assert set(ip.user_ns["df"]["severity"]) == {"CRITICAL"}


def test_cell_body_in_yaml_gives_the_arguments(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, "%%cloudg call find_assets -o df\ninternet_exposed: true\nlimit: 2\n"))
    df = ip.user_ns["df"]
    assert len(df) == 2 and df["internet_exposed"].all()


def test_cell_body_and_line_arguments_combine(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, "%%cloudg call find_assets limit=1 -o df\ninternet_exposed: true\n"))
    assert len(ip.user_ns["df"]) == 1


def test_argument_on_line_and_in_body_is_refused(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%%cloudg call find_assets limit=1 -o df\nlimit: 2\n")
    _ok(run)
    assert "limit given on the line and in the cell" in run.text
    assert "df" not in ip.user_ns


# -- paging ------------------------------------------------------------------------------------


def test_next_fetches_the_following_page(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, "%cloudg call find_assets limit=2 -o df"))
    first = list(ip.user_ns["df"]["id"])
    run = run_cell(ip, "%cloudg next -o page")
    _ok(run)
    second = list(ip.user_ns["page"]["id"])
    assert len(second) == 2 and not set(first) & set(second)


def test_next_after_the_last_page_says_so(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, "%cloudg call find_assets internet_exposed=true limit=3"))
    _ok(run_cell(ip, "%cloudg next"))
    run = run_cell(ip, "%cloudg next")
    _ok(run)
    assert "That was the last page of find_assets" in run.text


def test_next_before_any_list_call_says_what_to_do(ip: InteractiveShell) -> None:
    magics(ip).last_paged = None
    run = run_cell(ip, "%cloudg next")
    _ok(run)
    assert "Nothing to page yet" in run.text


# -- the other subcommands ---------------------------------------------------------------------


def test_tools_lists_every_tool(ip: InteractiveShell, client: Client) -> None:
    _ok(run_cell(ip, "%cloudg tools -o df"))
    assert set(ip.user_ns["df"]["name"]) == {t["name"] for t in client.tools()}


def test_tools_of_a_category(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, "%cloudg tools findings -o df"))
    df = ip.user_ns["df"]
    assert "list_findings" in set(df["name"]) and set(df["category"]) == {"findings"}


def test_tools_of_an_unknown_category_suggests_one(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg tools grap")
    _ok(run)
    assert "Unknown category 'grap'" in run.text and "did you mean: graph" in run.text


def test_describe_shows_the_argument_table(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg describe get_asset -o df")
    _ok(run)
    df = ip.user_ns["df"]
    assert list(df["argument"]) == ["ref", "dataset"]
    assert df.set_index("argument").loc["ref", "required"]
    assert "get_asset" in run.text


def test_describe_unknown_tool_suggests_close_matches(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg describe get_aset")
    _ok(run)
    assert "Unknown tool 'get_aset'" in run.text and "get_asset" in run.text


def test_read_shows_a_resource(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg read cloudg://datasets/demo/summary -o res")
    _ok(run)
    assert ip.user_ns["res"]["assets"] == 60
    assert "cloudg://datasets/demo/summary" in run.text


def test_read_of_a_table_resource_stores_a_dataframe(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, "%cloudg read cloudg://datasets/demo/findings -o df"))
    assert isinstance(ip.user_ns["df"], pandas.DataFrame) and len(ip.user_ns["df"]) == 15


def test_read_unknown_resource_is_a_short_error(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg read cloudg://nope -o res")
    _ok(run)
    assert "Error [" in run.text and "res" not in ip.user_ns


def test_prompt_shows_its_messages(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg prompt investigate_asset ref=customers-db -o res")
    _ok(run)
    assert ip.user_ns["res"][0]["role"] == "user"
    assert "customers-db" in run.text


def test_datasets_lists_the_loaded_datasets(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, "%cloudg datasets -o df"))
    assert list(ip.user_ns["df"]["name"]) == ["demo"]


def test_status_says_local_mode(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg status -o res")
    _ok(run)
    assert ip.user_ns["res"]["mode"] == "local"
    assert "local: in-process layer" in run.text


def test_policy_shows_the_policy_in_force(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg policy -o res")
    _ok(run)
    assert ip.user_ns["res"]["policy"] == "standard"


def test_audit_shows_the_last_entries(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, "%cloudg call find_asets"))  # an unknown tool is audited
    run = run_cell(ip, "%cloudg audit 1 -o res")
    _ok(run)
    assert "1 of" in run.text or "1 rows" in run.text


def test_audit_count_must_be_a_number(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg audit many")
    _ok(run)
    assert "N must be a whole number" in run.text


def test_help_lists_every_subcommand(ip: InteractiveShell) -> None:
    from cloudg_nb.notebook.magics import SUBCOMMANDS

    run = run_cell(ip, "%cloudg help")
    _ok(run)
    for usage, _ in SUBCOMMANDS.values():
        assert usage in run.text


def test_question_mark_shows_the_same_help(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg?")
    _ok(run)
    assert "call TOOL key=value ... [-o VAR]" in run.text


# -- workspace-changing subcommands (their own client) ----------------------------------------


@pytest.fixture
def own_ip() -> Iterator[InteractiveShell]:
    opened = cloudg_nb.local()
    try:
        with shell_with_extension(opened) as shell:
            yield shell
    finally:
        opened.close()


def test_load_as_name_then_use_switches_the_active_dataset(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDG_MCP_ALLOWED_ROOTS", str(tmp_path))
    monkeypatch.setenv("CLOUDG_MCP_OUTPUT_DIR", str(tmp_path))
    client = cloudg_nb.local()
    try:
        with shell_with_extension(client) as ip:
            exported = client.call("export_dataset", progress=False)
            assert not exported.is_error, exported.text
            assert (tmp_path / exported.data["folder"]).is_dir()
            _ok(run_cell(ip, f"%cloudg load {exported.data['folder']} as copy -o res"))
            assert ip.user_ns["res"]["name"] == "copy"
            assert set(client.datasets()["name"]) == {"demo", "copy"}
            _ok(run_cell(ip, "%cloudg use demo"))
            assert client.read("cloudg://workspace")["active"] == "demo"
            _ok(run_cell(ip, "%cloudg use copy"))
            assert client.read("cloudg://workspace")["active"] == "copy"
    finally:
        client.close()


def test_use_unknown_dataset_is_a_short_error(own_ip: InteractiveShell) -> None:
    run = run_cell(own_ip, "%cloudg use nope")
    _ok(run)
    assert "Error [" in run.text and "select_dataset" in run.text


def test_local_with_policy_switches_the_client(own_ip: InteractiveShell) -> None:
    run = run_cell(own_ip, "%cloudg local --policy strict")
    _ok(run)
    assert "policy strict" in run.text
    _ok(run_cell(own_ip, "%cloudg policy -o res"))
    assert own_ip.user_ns["res"]["policy"] == "strict"
    magics(own_ip).client.close()


def test_local_with_unknown_policy_is_a_short_error(own_ip: InteractiveShell) -> None:
    run = run_cell(own_ip, "%cloudg local --policy nonsense")
    _ok(run)
    assert "Error [" in run.text


def test_connect_without_a_server_says_what_to_do(own_ip: InteractiveShell) -> None:
    run = run_cell(own_ip, "%cloudg connect http://127.0.0.1:9/ --token t")
    _ok(run)
    assert "Error [" in run.text
    assert magics(own_ip).client.mode == "local"


def test_a_word_that_is_not_key_value_is_refused_with_usage(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg call find_assets 5 -o df")
    _ok(run)
    assert "Arguments are key=value words" in run.text
    assert "df" not in ip.user_ns


def test_call_without_a_tool_shows_usage(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg call")
    _ok(run)
    assert "Usage: %cloudg call TOOL key=value" in run.text


def test_cell_body_that_is_neither_json_nor_yaml_says_so(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%%cloudg call find_assets -o df\nlimit: [1\n  bad: }\n")
    _ok(run)
    assert "neither JSON nor YAML" in run.text
    assert "df" not in ip.user_ns


def test_bare_magic_shows_the_help(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg")
    _ok(run)
    assert "Usage: %cloudg SUBCOMMAND" in run.text


def test_subcommand_may_be_followed_by_a_tab(ip: InteractiveShell) -> None:
    _ok(run_cell(ip, "%cloudg call\tget_asset ref=web-1 -o res"))
    assert ip.user_ns["res"]["name"] == "web-1"
