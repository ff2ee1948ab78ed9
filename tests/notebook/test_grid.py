"""The interactive grid (perspective) of LiveFrames and large results: a DataFrame becomes a
typed perspective table; updates replace its rows in the same widget; a LiveFrame in widget
mode shows its caption above the grid and refreshes it in place; large tables render as a
grid in a kernel and as HTML elsewhere; ``CLOUDG_GRID=html`` or no perspective keeps HTML.
(The grid in a real browser is covered by tests/browser/test_grid_in_browser.py.)"""

from __future__ import annotations

import datetime
import sys
from collections.abc import Callable, Iterator
from functools import partial

import ipywidgets
import pandas as pd
import pytest
from ipywidgets.widgets.widget import _instances

import cloudg_nb
from cloudg_nb.notebook import grid as grid_module
from cloudg_nb.notebook.call_result import Result
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.grid import (
    GRID_ENV,
    LARGE_RESULT_ROWS,
    DataGrid,
    SchemaChanged,
    column_kinds,
    to_arrow,
    use_grid,
)
from cloudg_nb.notebook.live import LiveFrame
from cloudg_nb.notebook.render import Rendered, WidgetRendered, render_result, render_table

from .waiting import wait_for

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_wait_for = partial(wait_for, timeout=5.0, poll=0.005)


@pytest.fixture
def in_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if running in a kernel (a browser shows widgets)."""
    monkeypatch.setattr(grid_module, "kernel_shell", lambda: object())


@pytest.fixture
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    yield opened
    opened.close()


@pytest.fixture
def live(client: Client) -> Iterator[Callable[..., LiveFrame]]:
    made: list[LiveFrame] = []

    def make(tool: str, **kwargs: object) -> LiveFrame:
        frame = LiveFrame(client, tool, dict(kwargs), widget=True, grid=True)
        made.append(frame)
        return frame

    yield make
    for frame in made:
        frame.close()


def _findings() -> pd.DataFrame:
    return pd.DataFrame({
        "id": ["f-1", "f-2", "f-3"],
        "severity": ["HIGH", "LOW", "HIGH"],
        "risk_score": [7, 2, 9],
        "score": [7.5, None, 9.1],
        "is_suppressed": [False, None, True],
        "tags": [{"env": "prod"}, None, ["a", "b"]],
        "seen": pd.to_datetime(["2026-01-02", "2026-01-03", "2026-01-04"]),
    })


# -- DataFrame -> typed table ----------------------------------------------------------------


def test_columns_get_the_grid_type_that_keeps_their_values() -> None:
    assert column_kinds(_findings()) == {
        "id": "string", "severity": "string", "risk_score": "integer", "score": "float",
        "is_suppressed": "boolean", "tags": "string", "seen": "datetime"}


def test_nested_values_become_json_text_and_missing_values_null() -> None:
    rows = to_arrow(_findings()).to_pylist()
    assert rows[0]["tags"] == '{"env": "prod"}' and rows[2]["tags"] == '["a", "b"]'
    assert rows[1]["tags"] is None and rows[1]["score"] is None
    assert rows[1]["is_suppressed"] is None
    assert rows[0]["seen"] == datetime.datetime(2026, 1, 2)


def test_a_frame_is_fitted_to_a_tables_types_where_its_values_fit() -> None:
    kinds = column_kinds(_findings())
    later = _findings().drop(columns=["tags"]).assign(risk_score=[7.0, None, 9.0])
    rows = to_arrow(later, kinds).to_pylist()
    assert [r["risk_score"] for r in rows] == [7, None, 9]
    assert all(r["tags"] is None for r in rows)  # a column the frame lacks: null


@pytest.mark.parametrize("change", [
    lambda f: f.assign(new_column=1),
    lambda f: f.assign(risk_score=[7.5, 2.0, 9.0]),
    lambda f: f.assign(is_suppressed=["yes", "no", "maybe"]),
])
def test_a_frame_that_does_not_fit_a_tables_types_says_so(
        change: Callable[[pd.DataFrame], pd.DataFrame]) -> None:
    with pytest.raises(SchemaChanged):
        to_arrow(change(_findings()), column_kinds(_findings()))


# -- DataGrid --------------------------------------------------------------------------------


def test_the_grid_holds_the_frames_rows_in_its_table() -> None:
    grid = DataGrid(_findings(), title="findings")
    try:
        assert grid.size == 3 and [r["id"] for r in grid.rows()] == ["f-1", "f-2", "f-3"]
        assert grid.viewer.columns == list(_findings().columns)
        assert grid.viewer.table_name == grid.table.get_name()
        assert grid.viewer.title == "findings" and grid.viewer.plugin == "Datagrid"
        assert grid.widget.children == (grid.viewer,)
    finally:
        grid.close()


def test_showing_a_new_frame_replaces_the_rows_in_the_same_widget_and_table() -> None:
    grid = DataGrid(_findings())
    try:
        viewer, table, before = grid.viewer, grid.table, set(_instances)
        grid.show(_findings().iloc[[2, 0]])
        assert [r["id"] for r in grid.rows()] == ["f-3", "f-1"]
        assert grid.viewer is viewer and grid.table is table and grid.rebuilds == 0
        assert set(_instances) == before
    finally:
        grid.close()


def test_a_frame_with_new_columns_gets_a_new_viewer_in_the_same_container() -> None:
    grid = DataGrid(_findings())
    try:
        container, old = grid.widget, grid.viewer
        old.sort = [["risk_score", "desc"]]
        grid.show(_findings().assign(owner="team-a"))
        assert grid.widget is container and grid.widget.children == (grid.viewer,)
        assert grid.viewer is not old and grid.rebuilds == 1
        assert grid.rows()[0]["owner"] == "team-a"
        assert grid.viewer.sort == [["risk_score", "desc"]]  # what the person set stays
    finally:
        grid.close()


def test_choosing_columns_sets_the_columns_the_viewer_shows() -> None:
    grid = DataGrid(_findings(), columns=["severity", "id", "nope"])
    try:
        assert grid.viewer.columns == ["severity", "id"]
        grid.columns(["id"])
        assert grid.viewer.columns == ["id"]
        grid.columns(None)
        assert grid.viewer.columns == list(_findings().columns)
    finally:
        grid.close()


def test_a_grid_made_empty_is_built_where_it_is_first_shown() -> None:
    grid = DataGrid()
    try:
        assert grid.viewer is None and not grid.update(_findings())
        grid.show_first(_findings, ["id"])
        assert grid.viewer is not None and grid.viewer.columns == ["id"]
        assert grid.update(_findings().iloc[:1]) and grid.size == 1
    finally:
        grid.close()


def test_the_grid_displays_as_its_widget() -> None:
    grid = DataGrid(_findings())
    try:
        bundle = grid._repr_mimebundle_()
        assert bundle[WIDGET_VIEW]["model_id"] == grid.widget.model_id
        assert bundle["text/plain"] == "<DataGrid 3 rows>"
    finally:
        grid.close()


# -- when the grid is used -------------------------------------------------------------------


def test_the_grid_is_used_in_a_kernel_unless_turned_off(
        in_kernel: None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert use_grid() and use_grid(True) and not use_grid(False)
    monkeypatch.setenv(GRID_ENV, "html")
    assert not use_grid() and not use_grid(True)


def test_outside_a_kernel_the_grid_is_used_only_when_asked() -> None:
    assert not use_grid() and use_grid(True)


def test_without_perspective_tables_stay_html(
        in_kernel: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "perspective.widget", None)  # import fails
    assert not use_grid(True)


# -- LiveFrame -------------------------------------------------------------------------------


def test_a_live_frame_shows_its_caption_above_the_grid_of_its_rows(live) -> None:
    lf = live("list_findings", severities=["HIGH"])
    assert lf.widget.children == (lf._caption, lf._grid.widget) and lf._table is None
    bundle = lf._repr_mimebundle_()
    assert bundle[WIDGET_VIEW]["model_id"] == lf.widget.model_id
    assert "dataset demo v1" in bundle["text/plain"]
    assert sorted(r["id"] for r in lf._grid.rows()) == sorted(lf.df["id"])
    assert lf._grid.viewer.title == "list_findings"


def test_a_live_frames_grid_is_updated_in_place_on_a_change(client: Client, live) -> None:
    lf = live("list_findings", severities=["HIGH"])
    lf._repr_mimebundle_()  # displayed: the viewer exists
    grid, viewer, table_name = lf._grid, lf._grid.viewer, lf._grid.viewer.table_name
    before = set(_instances)
    gone = str(lf.df["id"].iloc[0])
    assert not client.call("suppress_findings", ids=[gone], progress=False).is_error
    assert _wait_for(lambda: gone not in {r["id"] for r in grid.rows()})
    assert sorted(r["id"] for r in grid.rows()) == sorted(lf.df["id"]) and len(lf.df) == 3
    assert lf._grid is grid and grid.viewer is viewer and viewer.table_name == table_name
    assert set(_instances) == before
    assert _wait_for(lambda: "dataset demo v2 · 3 rows" in lf._caption.value)


def test_a_change_before_the_frame_is_shown_is_in_the_grid_when_shown(
        client: Client, live) -> None:
    lf = live("list_findings", severities=["HIGH"])
    gone = str(lf.df["id"].iloc[0])
    assert not client.call("suppress_findings", ids=[gone], progress=False).is_error
    assert _wait_for(lambda: len(lf.df) == 3)
    assert lf._grid.viewer is None  # rows arrived on the loop thread: nothing built there
    lf._repr_mimebundle_()
    assert sorted(r["id"] for r in lf._grid.rows()) == sorted(lf.df["id"])


def test_a_live_frames_chosen_columns_are_the_grids_columns(live) -> None:
    lf = live("list_findings", severities=["HIGH"])
    lf._repr_mimebundle_()
    lf.columns = ["id", "severity", "title"]
    assert lf._grid.viewer.columns == ["id", "severity", "title"]
    assert "uri" in lf.df.columns and "uri" in lf._grid.rows()[0]


def test_turning_the_grid_off_keeps_the_html_table(
        client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(GRID_ENV, "html")
    lf = LiveFrame(client, "list_findings", {"severities": ["HIGH"]}, widget=True, grid=True)
    try:
        assert lf._grid is None and isinstance(lf._table, ipywidgets.HTML)
        assert "<table" in lf._table.value
    finally:
        lf.close()
    lf = LiveFrame(client, "list_findings", {"severities": ["HIGH"]}, widget=True, grid=False)
    try:
        assert lf._grid is None and "<table" in lf._table.value
    finally:
        lf.close()


# -- large results ---------------------------------------------------------------------------


def _big(rows: int) -> pd.DataFrame:
    return pd.DataFrame({"id": [f"a-{i}" for i in range(rows)], "n": range(rows)})


def test_a_large_table_outside_a_kernel_is_the_html_table() -> None:
    shown = render_table(_big(LARGE_RESULT_ROWS + 1), "1001 rows")
    assert isinstance(shown, WidgetRendered)
    bundle = shown._repr_mimebundle_()
    assert WIDGET_VIEW not in bundle and "<table" in bundle["text/html"]
    assert "1001 rows" in bundle["text/html"] and "1001 rows" in bundle["text/plain"]


def test_a_large_table_in_a_kernel_is_a_grid_of_every_row(in_kernel: None) -> None:
    frame = _big(5000)
    bundle = render_table(frame, "5000 rows · dataset demo")._repr_mimebundle_()
    box = _instances[bundle[WIDGET_VIEW]["model_id"]]
    container, caption = box.children
    (viewer,) = container.children
    assert viewer.table.size() == 5000 and "5000 rows · dataset demo" in caption.value
    assert "5000 rows" in bundle["text/plain"]


def test_a_small_table_stays_a_plain_table_in_a_kernel(in_kernel: None) -> None:
    shown = render_table(_big(LARGE_RESULT_ROWS), "1000 rows")
    assert type(shown) is Rendered and "<table" in shown.html


def test_a_large_list_result_in_a_kernel_shows_as_a_grid(in_kernel: None) -> None:
    items = [{"id": f"a-{i}", "risk": i} for i in range(2500)]
    result = Result(tool="find_assets", arguments={},
                    data={"items": items, "total": 2500, "dataset": "big"})
    bundle = render_result(result)._repr_mimebundle_()
    box = _instances[bundle[WIDGET_VIEW]["model_id"]]
    (viewer,) = box.children[0].children
    assert viewer.table.size() == 2500
    assert "2,500 rows · dataset big" in box.children[1].value


# -- the page's theme ------------------------------------------------------------------------------


def test_the_viewers_module_follows_the_pages_theme_around_perspectives_widget() -> None:
    viewer = grid_module._viewer_class()
    module = viewer._esm
    assert "function cloudgFollowTheme(widget)" in module
    ours = module.rindex("// cloudg grid theme")
    exports = module[module.rindex("export {", 0, ours):ours]  # perspective's, bar its default
    assert "as ready" in exports and "as worker" in exports
    assert " as default" not in exports
    assert module.rstrip().splitlines()[-1].startswith("export default cloudgFollowTheme(")
    assert 'perspective-viewer[theme="Pro Dark"]' in viewer._css


def test_a_perspective_bundle_laid_out_otherwise_is_left_as_it_is() -> None:
    for bundle in ("export default render;", "const a = 1;\nexport { a };",
                   "export { a as default, b as default };"):
        assert grid_module.follow_theme(bundle) == bundle
    wrapped = grid_module.follow_theme("var w={render(){}};export{w as default,r as ready};\n"
                                       "//# sourceMappingURL=x.js.map\n")
    assert wrapped.startswith("var w={render(){}};export {r as ready};\n")
    assert wrapped.endswith("export default cloudgFollowTheme(w);\n")


def _browser_client(viewer: object) -> object:
    """A perspective client speaking to ``viewer`` as the browser's viewer does: each request
    a ``binary_msg`` through the widget's message handler, each answer what the widget sends
    back (here handed straight to the client instead of over a comm)."""
    import perspective

    client: perspective.Client | None = None

    def answer(content: dict[str, object], buffers: list[bytes]) -> None:
        assert client is not None and content["type"] == "binary_msg"
        client.handle_response(bytes(buffers[0]))

    viewer.send = answer  # type: ignore[attr-defined]
    viewer.handle_message(viewer, {"type": "connect", "client_id": "browser"}, [])  # type: ignore[attr-defined]
    client = perspective.Client(lambda request: viewer.handle_message(  # type: ignore[attr-defined]
        viewer, {"type": "binary_msg", "client_id": "browser"}, [request]))
    return client


def test_the_viewer_never_reads_a_table_halfway_through_a_replace() -> None:
    """A LiveFrame replaces the grid's rows on its client's loop thread while the kernel's
    thread serves the viewer's reads: a read never sees the table emptied by the replace."""
    import threading

    frames = [pd.DataFrame({"id": [f"f-{i:03d}" for i in range(n)], "score": range(n)})
              for n in (200, 199)]
    grid = DataGrid(frames[0])
    client = _browser_client(grid.viewer)
    view = client.open_table(grid.table.get_name()).view()  # type: ignore[attr-defined]
    stop = threading.Event()

    def replacing() -> None:
        while not stop.is_set():
            for frame in frames:
                grid.show(frame)

    writer = threading.Thread(target=replacing, daemon=True)
    writer.start()
    try:
        seen = [view.num_rows() for _ in range(2000)]
    finally:
        stop.set()
        writer.join(30)
    assert set(seen) <= {199, 200}, sorted(set(seen))
    grid.close()
