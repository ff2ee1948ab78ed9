"""What an assistant writes cannot act in the analyst's notebook: text an assistant stores with
a minted credential (a suppression reason on its own dataset) reaches the analyst's tables only
as text: escaped in cells, in the hover title of a cut cell and in joined lists; markup never
becomes elements or attributes. A real Jupyter server, a real MCP client with a minted
assistant token, and the analyst's own remote client."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser

import pytest

from cloudg_nb.notebook.client import Client, connect
from cloudg_nb.notebook.render import render_error, render_result, render_table
from tests.jupyter.server import JupyterServer, jupyter_server
from tests.lanes import starts
from tests.notebook.assistants import assistant
from tests.notebook.html_cells import tables_in

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

#: Markup in every shape that would act if it reached the page unescaped: an element, an
#: attribute break-out from a single- and a double-quoted attribute, a closing tag.
HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "x' onmouseover='alert(2)' data-x='",
    'x" onmouseover="alert(3)" data-x="',
    "</td></tr></table><script>alert(4)</script>",
]
#: Long enough to be cut in its cell, so the whole value goes into the ``title`` attribute.
LONG = "accepted risk " * 8 + HOSTILE[1] + HOSTILE[0]


class _Elements(HTMLParser):
    """Every element and attribute name a browser would make of some HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)


def elements(html: str) -> _Elements:
    parser = _Elements()
    parser.feed(html)
    return parser


@pytest.fixture(scope="module")
@starts("server")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("display"), other_extensions=False) as started:
        yield started


@pytest.fixture(scope="module")
def reasons(server: JupyterServer) -> dict[str, str]:
    """finding id -> the reason an assistant stored on it, in the assistant's own dataset."""
    stored = dict(zip(["f-001", "f-002", "f-003", "f-004", "f-005"], [*HOSTILE, LONG],
                      strict=True))
    with assistant(server, "display-bot") as bot:
        made = bot.call_tool("sample_estate", {"name": "demo", "dataset_name": "bot-demo",
                                               "activate": False})
        assert not made.is_error, made.content
        for finding, reason in stored.items():
            done = bot.call_tool("suppress_findings", {"ids": [finding], "reason": reason,
                                                       "dataset": "bot-demo"})
            assert not done.is_error, done.content
    return stored


@pytest.fixture(scope="module")
def analyst(server: JupyterServer) -> Iterator[Client]:
    opened = connect(server.url, server.token)
    yield opened
    opened.close()


def _findings_html(analyst: Client) -> str:
    result = analyst.call("list_findings", dataset="bot-demo", include_suppressed=True,
                          progress=False)
    assert not result.is_error, result.error
    return render_table(result.df, result.caption).html


def test_an_assistants_text_shows_as_text_in_the_analysts_table(
        analyst: Client, reasons: dict[str, str]) -> None:
    (table,) = tables_in(_findings_html(analyst))
    shown = dict(zip([c.text for c in table.column("id")],
                     table.column("suppression_reason"), strict=True))
    for finding, reason in reasons.items():
        cell = shown[finding]
        assert cell.text == reason or (cell.title == reason and cell.text.endswith("…"))


def test_markup_from_an_assistant_never_becomes_elements_or_attributes(
        analyst: Client, reasons: dict[str, str]) -> None:
    found = elements(_findings_html(analyst))
    assert found.tags <= {"div", "table", "thead", "tbody", "tr", "th", "td", "span", "code"}
    assert found.attributes <= {"class", "style", "title"}


def test_the_hover_title_of_a_cut_cell_holds_the_whole_text_escaped(
        analyst: Client, reasons: dict[str, str]) -> None:
    html = _findings_html(analyst)
    (table,) = tables_in(html)
    (long_cell,) = [c for c in table.column("suppression_reason") if c.title]
    assert long_cell.title == LONG
    assert "onmouseover='alert" not in html and 'onmouseover="alert' not in html


def test_markup_in_a_joined_list_stays_text(analyst: Client) -> None:
    import pandas

    frame = pandas.DataFrame({"id": ["a"], "resources": [HOSTILE * 3]})
    html = render_table(frame).html
    assert elements(html).tags <= {"div", "table", "thead", "tbody", "tr", "th", "td", "span",
                                   "code"}
    (cell,) = tables_in(html)[0].column("resources")
    assert cell.text == "<img src=x onerror=alert(1)>, +11 more"  # the count always shows
    assert cell.title == ", ".join(HOSTILE * 3)


def test_an_error_shows_the_assistants_markup_as_text(analyst: Client,
                                                      reasons: dict[str, str]) -> None:
    result = analyst.call("get_finding", finding_id=HOSTILE[0], dataset="bot-demo",
                          progress=False)
    assert result.is_error and result.error is not None
    shown = render_result(result)
    assert result.error.name == "not_found" and "[not_found]" in shown.text
    assert elements(shown.html).tags <= {"div", "b", "code", "br", "span"}
    hostile = render_error(result.error.__class__(result.error.code, HOSTILE[3],
                                                  data={"detail": HOSTILE[0]}))
    assert elements(hostile.html).tags <= {"div", "b", "code", "br", "span"}
