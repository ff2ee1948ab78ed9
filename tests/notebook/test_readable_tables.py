"""Results read at a glance: the HTML of real %cloudg tables keeps ids whole, shows ``—`` for
missing values, readable times and numbers, no index, each tool's default columns, and says in
words what it leaves out."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pandas
import pytest
from IPython.core.interactiveshell import InteractiveShell

import cloudg_nb
from cloudg_nb.catalog.display import DISPLAY
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.readable_table import CELL_CHARS, TABLE_ROWS, readable_table
from cloudg_nb.notebook.render import render_table

from .html_cells import Table, tables_in
from .magics_shell import CellRun, run_cell, shell_with_extension

_UTC_TIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$")


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    big = opened.call("sample_estate", name="scaled", n=3000, dataset_name="big",
                      activate=False, progress=False)
    assert not big.is_error, big.error
    yield opened
    opened.close()


@pytest.fixture
def ip(client: Client) -> Iterator[InteractiveShell]:
    with shell_with_extension(client) as shell:
        shell.user_ns.pop("df", None)
        yield shell


def _table(run: CellRun) -> Table:
    assert run.result.error_in_exec is None and "Traceback" not in run.text
    (table,) = [t for html in run.htmls for t in tables_in(html) if t.header]
    return table


def _cells(table: Table) -> list[str]:
    return [cell.text for row in table.rows for cell in row]


def test_id_cells_never_wrap(ip: InteractiveShell) -> None:
    table = _table(run_cell(ip, "%cloudg call list_findings"))
    ids = table.column("id")
    assert ids and all("white-space:nowrap" in cell.style for cell in ids)
    assert [c.text for c in ids][:2] == ["f-001", "f-012"]


def test_every_cell_stays_on_one_line(ip: InteractiveShell) -> None:
    table = _table(run_cell(ip, "%cloudg call find_assets limit=20"))
    assert all("white-space:nowrap" in cell.style for row in table.rows for cell in row)


def test_missing_values_show_as_a_dash_never_nan_or_none(ip: InteractiveShell) -> None:
    table = _table(run_cell(ip, "%cloudg call find_assets limit=30"))
    cells = _cells(table)
    assert "—" in [c.text for c in table.column("max_severity")]
    assert not {"NaN", "nan", "None", "NaT", "<NA>", "null"} & set(cells)


def test_epoch_timestamps_read_as_utc_times(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg call dataset_summary")
    (line,) = [line for line in run.text.splitlines() if line.startswith("loaded_at")]
    assert _UTC_TIME.match(line.removeprefix("loaded_at").strip()), line
    frame = pandas.DataFrame({"name": ["demo"], "loaded_at": [1796644497.34]})
    (cell,) = tables_in(render_table(frame).html)[0].column("loaded_at")
    assert cell.text == "2026-12-07 11:54:57 UTC"


def test_iso_timestamps_read_as_utc_times(ip: InteractiveShell) -> None:
    table = _table(run_cell(ip, "%cloudg call list_findings"))
    assert table.column("detected_at")[0].text == "2025-06-02 09:00:00 UTC"


def test_counts_have_thousands_separators(ip: InteractiveShell) -> None:
    table = _table(run_cell(ip, "%cloudg datasets"))
    big = table.columns.index("name")
    (row,) = [r for r in table.rows if r[big].text == "big"]
    assert row[table.columns.index("assets")].text == "3,000"
    assert re.fullmatch(r"\d{1,3}(,\d{3})+", row[table.columns.index("edges")].text)


def test_scores_show_two_decimals_never_scientific(ip: InteractiveShell) -> None:
    table = _table(run_cell(ip, '%cloudg call centrality_top metric="betweenness" '
                                "dataset=big top=5"))
    scores = [c.text for c in table.column("score")]
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*\.\d\d", s) for s in scores), scores
    assert not any("e+" in cell for cell in _cells(table))


def test_text_is_left_aligned_and_numbers_right_aligned(ip: InteractiveShell) -> None:
    table = _table(run_cell(ip, "%cloudg call list_findings"))
    assert all("text-align:left" in c.style for c in table.column("title"))
    assert all("text-align:right" in c.style for c in table.column("risk_score"))
    assert all("text-align:left" in c.style for c in table.header)


def test_no_index_column(ip: InteractiveShell) -> None:
    table = _table(run_cell(ip, "%cloudg call list_findings"))
    assert table.columns == list(DISPLAY["list_findings"][1])
    assert all(len(row) == len(table.columns) for row in table.rows)


def test_list_tools_show_their_default_columns_and_name_the_others(ip: InteractiveShell
                                                                   ) -> None:
    run = run_cell(ip, "%cloudg call find_assets limit=5 -o df")
    table = _table(run)
    assert table.columns == list(DISPLAY["find_assets"][1])
    assert "2 more columns (arn, uri) in -o VAR" in run.text
    assert {"arn", "uri"} <= set(ip.user_ns["df"].columns)


def test_captions_name_what_a_row_is_with_separators(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg call find_assets dataset=big limit=5")
    assert re.search(r"5 of \d,\d{3} assets · dataset big", run.text)


def test_list_cells_are_joined_not_cut_silently() -> None:
    frame = pandas.DataFrame({"id": ["a"], "resources": [[f"bucket-{i}" for i in range(9)]]})
    (cell,) = tables_in(render_table(frame).html)[0].column("resources")
    assert cell.text == "bucket-0, bucket-1, bucket-2, bucket-3, +5 more"
    assert cell.title == ", ".join(f"bucket-{i}" for i in range(9))


def test_long_text_is_cut_with_the_whole_value_on_hover() -> None:
    title = "Role trusts an external account without an ExternalId condition " * 2
    frame = pandas.DataFrame({"id": ["f-1"], "title": [title]})
    (cell,) = tables_in(render_table(frame).html)[0].column("title")
    assert cell.text.endswith("…") and len(cell.text) == CELL_CHARS
    assert cell.title == title


def test_describe_shows_whole_argument_descriptions(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg describe list_findings")
    table = _table(run)
    cursor = next(r for r in table.rows if r[0].text == "cursor")
    description = cursor[table.columns.index("description")]
    assert description.text.endswith("It goes stale when the dataset changes or the "
                                     "filters differ.")
    assert "white-space:normal" in description.style
    assert "…" not in "".join(_cells(table))


def test_a_table_shows_at_most_table_rows_and_says_how_many_there_are() -> None:
    frame = pandas.DataFrame({"id": [f"f-{i}" for i in range(12_431)]})
    shown = render_table(frame, rows="findings")
    assert len(tables_in(shown.html)[0].rows) == TABLE_ROWS
    assert f"showing {TABLE_ROWS} of 12,431 findings — -o VAR stores them all" in shown.text


def test_a_call_asking_for_more_rows_than_a_table_shows_gets_every_row(ip: InteractiveShell,
                                                                        client: Client) -> None:
    total = client.call("list_findings", dataset="big", limit=1, progress=False).data["total"]
    assert total > 500
    run = run_cell(ip, "%cloudg call list_findings dataset=big limit=500 -o df")
    assert len(ip.user_ns["df"]) == total
    assert f"{total:,} findings · dataset big" in run.text
    assert f"showing {TABLE_ROWS} of {total:,} findings — -o VAR stores them all" in run.text
    assert "text cut" not in run.text and "characters" not in run.text


def test_readable_table_keeps_every_row_count_it_was_given() -> None:
    frame = pandas.DataFrame({"n": range(250)})
    table = readable_table(frame)
    assert (table.rows_shown, table.rows_total) == (TABLE_ROWS, 250)


def test_every_display_names_columns_its_tool_returns(client: Client) -> None:
    arguments = {"neighbors": {"ref": "web-1"}, "blast_radius": {"ref": "aws-ec2-web-1"},
                 "centrality_top": {}, "list_tags": {}}
    listed = {t["name"]: t for t in client.tools()}
    for tool, (rows, columns) in DISPLAY.items():
        assert tool in listed, tool
        assert listed[tool]["_meta"]["cloudg/display"]["rows"] == rows
        result = client.call(tool, progress=False, **arguments.get(tool, {}))
        frame = result.df
        assert frame is not None and len(frame), tool
        missing = set(columns) - set(frame.columns)
        assert not missing, (tool, missing)


def test_frames_the_client_made_display_readable_after_load_ext(ip: InteractiveShell,
                                                                 client: Client) -> None:
    frame = client.frame("list_findings", progress=False)
    html = ip.display_formatter.format(frame[["id", "title", "cvss_score"]].head(3))[0][
        "text/html"]
    (table,) = tables_in(html)
    assert table.columns == ["id", "title", "cvss_score"]
    assert [c.text for c in table.column("cvss_score")] == ["10.00", "—", "8.10"]


def test_other_dataframes_keep_pandas_display(ip: InteractiveShell) -> None:
    own = pandas.DataFrame({"a": [1.5, None]})
    assert ip.display_formatter.format(own)[0]["text/html"] == own._repr_html_()


def test_a_result_displays_as_the_magic_shows_it(ip: InteractiveShell, client: Client) -> None:
    result = client.call("find_assets", limit=2, progress=False)
    html = ip.display_formatter.format(result)[0]["text/html"]
    assert tables_in(html)[0].columns == list(result.df.columns)  # no index column
    assert "2 of 60 rows · dataset demo v1" in html


def test_table_shows_any_frame_with_chosen_columns(client: Client) -> None:
    from cloudg_nb.notebook import table

    frame = client.frame("top_risks", progress=False)
    shown = table(frame, ["rank", "name", "score"])
    assert tables_in(shown.html)[0].columns == ["rank", "name", "score"]


def test_a_page_in_the_grid_is_not_called_all_of_the_result(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cloudg_nb.notebook import grid

    monkeypatch.setattr(grid, "kernel_shell", lambda: object())  # as in a kernel
    frame = pandas.DataFrame({"id": [f"a-{i}" for i in range(500)]})
    whole = render_table(frame, rows="assets")
    page = render_table(frame, "500 of 14,000 assets · next page: %cloudg next", rows="assets",
                        complete=False)
    assert "all 500 assets in the grid" in _grid_caption(whole)
    caption = _grid_caption(page)
    assert "all " not in caption and "500 assets in the grid" in caption


def _grid_caption(shown: object) -> str:
    """The caption a kernel shows under the grid."""
    import ipywidgets

    box = shown.make()  # type: ignore[attr-defined]
    assert isinstance(box, ipywidgets.VBox)
    return str(box.children[1].value)


def test_a_list_of_long_items_still_says_how_many_more() -> None:
    frame = pandas.DataFrame({"id": ["a"], "arns": [[f"arn:aws:s3:::bucket-{i}" * 3
                                                     for i in range(5)]]})
    (cell,) = tables_in(render_table(frame).html)[0].column("arns")
    assert cell.text.endswith(", +4 more") and len(cell.text) <= CELL_CHARS


def test_tools_show_each_whole_first_sentence(ip: InteractiveShell) -> None:
    table = _table(run_cell(ip, "%cloudg tools graph"))
    (attack,) = [r for r in table.rows if r[0].text == "attack_paths"]
    description = attack[table.columns.index("description")].text
    assert description.startswith("How an attacker on the internet reaches a target (e.g. a "
                                  "database): the shortest paths")
    assert description.endswith("hop by hop.")


def test_audit_times_read_as_utc_times() -> None:
    frame = pandas.DataFrame({"ts": [1796644497.34], "principal": ["analyst"]})
    (cell,) = tables_in(render_table(frame).html)[0].column("ts")
    assert _UTC_TIME.match(cell.text)
