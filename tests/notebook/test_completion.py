"""Tab completion of %cloudg lines through IPython's own completer, local mode."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from IPython.core.completer import provisionalcompleter
from IPython.core.interactiveshell import InteractiveShell

import cloudg_nb
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.completion import MagicCompleter
from cloudg_nb.notebook.magics import SUBCOMMANDS

from .magics_shell import shell_with_extension

DEMO_CUSTOMER_REFS = {"customers-db", "customer-pii-exports", "aws-rds-customers",
                      "aws-s3-customer-pii"}


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    yield opened
    opened.close()


@pytest.fixture
def ip(client: Client) -> Iterator[InteractiveShell]:
    with shell_with_extension(client) as shell:
        yield shell


def complete(ip: InteractiveShell, text: str) -> list[tuple[str, str]]:
    """(replaced text, completion) pairs IPython offers at the end of ``text``."""
    with provisionalcompleter():
        found = list(ip.Completer.completions(text, len(text)))
    return [(text[c.start:c.end], c.text) for c in found]


def texts(ip: InteractiveShell, text: str) -> list[str]:
    return [t for _, t in complete(ip, text)]


def test_subcommands_complete_after_the_magic_name(ip: InteractiveShell) -> None:
    assert texts(ip, "%cloudg ") == list(SUBCOMMANDS)
    assert texts(ip, "%cloudg de") == ["describe", "deny"]


def test_tool_names_complete_after_call(ip: InteractiveShell) -> None:
    assert complete(ip, "%cloudg call find_a") == [("find_a", "find_assets")]
    assert "list_findings" in texts(ip, "%cloudg live list_")
    assert "get_asset" in texts(ip, "%cloudg describe get_")


def test_argument_names_come_from_the_input_schema(ip: InteractiveShell) -> None:
    assert texts(ip, "%cloudg call get_asset ") == ["ref=", "dataset="]


def test_argument_names_already_given_are_not_offered_again(ip: InteractiveShell) -> None:
    assert texts(ip, "%cloudg call get_asset ref=web-1 ") == ["dataset="]


def test_ref_values_are_demo_asset_refs(ip: InteractiveShell) -> None:
    found = complete(ip, "%cloudg call get_asset ref=cust")
    assert {fragment for fragment, _ in found} == {"cust"}
    values = [t for _, t in found]
    assert set(values) >= DEMO_CUSTOMER_REFS
    assert values[0].startswith("cust")


@pytest.mark.filterwarnings("ignore:`Completer.complete` is pending deprecation")
def test_ref_values_through_the_legacy_complete_api(ip: InteractiveShell) -> None:
    line = "%cloudg call blast_radius ref=cust"
    fragment, matches = ip.complete("", line, len(line))
    assert fragment == "cust"
    assert set(matches) >= DEMO_CUSTOMER_REFS


def test_arn_values_complete_across_colons(ip: InteractiveShell) -> None:
    found = complete(ip, "%cloudg call get_asset ref=arn:aws:rds")
    assert found == [("arn:aws:rds", "arn:aws:rds:us-east-1:111122223333:db:customers-db")]


def test_asset_arguments_with_other_names_complete_refs(ip: InteractiveShell) -> None:
    assert "web-1" in texts(ip, "%cloudg call find_paths source=internet target=web")


def test_dataset_values_are_loaded_datasets(ip: InteractiveShell) -> None:
    assert texts(ip, "%cloudg call find_assets dataset=") == ["demo"]
    assert texts(ip, "%cloudg call diff_datasets target=de") == ["demo"]
    assert texts(ip, "%cloudg use d") == ["demo"]


def test_finding_ids_complete(ip: InteractiveShell) -> None:
    values = texts(ip, "%cloudg call get_finding finding_id=f-00")
    assert values and all(v.startswith("f-00") for v in values)


def test_severities_complete_inside_a_json_list(ip: InteractiveShell) -> None:
    assert complete(ip, '%cloudg call list_findings severities=["HI') == [("HI", "HIGH")]
    assert texts(ip, "%cloudg call find_assets min_severity=CR") == ["CRITICAL"]


def test_boolean_arguments_offer_true_and_false(ip: InteractiveShell) -> None:
    assert texts(ip, "%cloudg call find_assets internet_exposed=") == ["true", "false"]


def test_categories_complete_after_tools(ip: InteractiveShell) -> None:
    assert texts(ip, "%cloudg tools gr") == ["graph"]


def test_prompt_argument_values_complete(ip: InteractiveShell) -> None:
    assert set(texts(ip, "%cloudg prompt investigate_asset ref=cust")) >= DEMO_CUSTOMER_REFS


def test_cell_body_keys_and_values_complete(ip: InteractiveShell) -> None:
    assert texts(ip, "%%cloudg call find_assets\nlim") == ["limit: "]
    assert set(texts(ip, "%%cloudg call get_asset\nref: cust")) >= DEMO_CUSTOMER_REFS


def test_load_leaves_paths_to_the_file_completer(ip: InteractiveShell) -> None:
    assert "/tmp/" in texts(ip, "%cloudg load /tm")


def test_python_lines_get_no_cloudg_completions(ip: InteractiveShell) -> None:
    with provisionalcompleter():
        found = list(ip.Completer.completions("import o", 8))
    assert found and not any(c._origin == MagicCompleter.matcher_identifier for c in found)


def test_unload_removes_the_completer(client: Client) -> None:
    with shell_with_extension(client) as shell:
        assert any(isinstance(m, MagicCompleter) for m in shell.Completer.custom_matchers)
    assert not any(isinstance(m, MagicCompleter) for m in shell.Completer.custom_matchers)


def test_a_magic_line_inside_a_longer_cell_completes(ip: InteractiveShell) -> None:
    cell = "x = 1\n%cloudg call get_asset ref=cust"
    assert set(texts(ip, cell)) >= DEMO_CUSTOMER_REFS


# -- only real candidates (no keywords, magics or files on a %cloudg line) ----------------------


def test_subcommands_are_the_only_candidates_after_the_magic_name(ip: InteractiveShell) -> None:
    assert texts(ip, "%cloudg ") == list(SUBCOMMANDS)


def test_tool_names_are_the_only_candidates_after_call(ip: InteractiveShell,
                                                       client: Client) -> None:
    assert texts(ip, "%cloudg call ") == [t["name"] for t in client.tools()]


@pytest.mark.parametrize("line", [
    "%cloudg call find_assets -o ", "%cloudg describe find_assets ", "%cloudg status ",
    "%cloudg datasets ", "%cloudg next ", "%cloudg read ", "%cloudg nosuchsub ",
    "%cloudg call find_assets limit=5 -o d", "%cloudg connect --token ",
])
def test_a_cloudg_word_with_nothing_to_offer_offers_nothing(ip: InteractiveShell,
                                                            line: str) -> None:
    assert texts(ip, line) == []


def test_python_completion_still_works_beside_the_magic(ip: InteractiveShell) -> None:
    assert "os" in texts(ip, "import o")
