"""Approval prompts reach the assistant's client (issue 39, item 6), on a real Jupyter server
under a non-root base_url with real MCP SDK clients holding minted credentials, in both
protocol eras: a client that declared URL-mode elicitation is offered the approval page (its
public address), one without is told in progress where the analyst approves; the client's
own answer — accept, decline, cancel — never decides the call; only the analyst does
(``POST {base}cloudg/api/approvals/ID``), after which a 2025-11-25 client is told the
elicitation is complete.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pytest
from mcp import MCPError
from mcp_types import INVALID_PARAMS

from tests.protocol.harness import TIMEOUT, open_session

from .oversight_client import BASE, FINDING, api, unsuppress
from .server import FIXTURE_REGISTRY, JupyterServer, jupyter_server
from .test_assistants import bearer, mint

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

ERAS = ["2025", "2026"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("elicitation"), base_url=BASE, extra_args=[
            FIXTURE_REGISTRY, "--CloudGExtension.approval_timeout=60"]) as started:
        yield started


class Assistant:
    """A minted assistant whose client answers URL elicitations with ``action`` (None: a
    client without the elicitation capability) calling ``suppress_findings`` on the analyst's
    finding in a thread: what it was offered, told and given back."""

    def __init__(self, server: JupyterServer, name: str, era: str,
                 action: str | None = "accept") -> None:
        self.server, self.era, self.action = server, era, action
        self.token = mint(server, name)
        self.principal = f"assistant:{name}"
        self.offers: list[types.ElicitRequestURLParams] = []
        self.progress: list[str] = []
        self.notes: list[Any] = []
        self.out: dict[str, Any] = {}
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.approval = self._wait_for_approval()

    async def _elicit(self, ctx: Any, params: Any) -> types.ElicitResult:
        self.offers.append(params)
        if self.action == "accept, saying it approves":
            return types.ElicitResult(action="accept", content={
                "decision": "approve", "approved": True, "approval_id": params.elicitation_id})
        return types.ElicitResult(action=self.action)  # type: ignore[arg-type]

    async def _progress(self, done: float, total: float | None, message: str | None) -> None:
        self.progress.append(message or "")

    def _run(self) -> None:
        extra = {} if self.action is None else {"elicitation_callback": self._elicit}
        try:
            with open_session(self.server.endpoint, self.era, headers=bearer(self.token),
                              **extra) as bot:
                self.notes = bot.notes
                self.out["result"] = bot.call_tool(
                    "suppress_findings", {"ids": [FINDING], "reason": "r"},
                    progress_callback=self._progress)
        except BaseException as exc:  # reported by the test
            self.out["error"] = exc

    def _wait_for_approval(self) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            assert "error" not in self.out, self.out["error"]
            _, _, body = api(self.server, "GET", "approvals")
            mine = [a for a in body["pending"] if a["principal"] == self.principal]
            if mine:
                return dict(mine[0])
            time.sleep(0.05)
        raise AssertionError(f"no waiting call of {self.principal}")

    @property
    def id(self) -> str:
        return str(self.approval["id"])

    def wait_until(self, predicate: Any, what: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not predicate():
            assert "error" not in self.out, self.out["error"]
            assert time.monotonic() < deadline, f"never {what}"
            time.sleep(0.05)

    def answered(self) -> None:
        """Wait until the client was offered the page (and answered it), then a moment."""
        self.wait_until(lambda: self.offers, "offered the approval page")
        time.sleep(0.5)  # the answer reaches the server

    def state(self) -> str:
        _, _, body = api(self.server, "GET", "approvals")
        return next(a["state"] for a in [*body["pending"], *body["recent"]]
                    if a["id"] == self.id)

    def result(self) -> types.CallToolResult:
        self.thread.join(TIMEOUT)
        assert not self.thread.is_alive(), "the assistant's call still runs"
        if "error" in self.out:
            raise self.out["error"]
        return self.out["result"]  # type: ignore[no-any-return]

    def completions(self) -> list[str]:
        return [n.params.elicitation_id for n in list(self.notes)
                if isinstance(n, types.ElicitCompleteNotification)]


def decide(server: JupyterServer, approval_id: str, decision: str) -> None:
    status, _, body = api(server, "POST", f"approvals/{approval_id}", {"decision": decision})
    assert status == 200, body


def suppressed(server: JupyterServer) -> bool:
    with open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        found = analyst.call_tool("get_finding", {"finding_id": FINDING}).structured_content
    return bool(found["is_suppressed"])


# -- the offer ---------------------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
def test_the_client_is_offered_the_approval_page_at_the_servers_address(
        server: JupyterServer, era: str) -> None:
    bot = Assistant(server, f"offered-{era}", era, "cancel")
    bot.answered()
    decide(server, bot.id, "deny")
    assert bot.result().is_error
    (offer,) = bot.offers
    assert offer.mode == "url"
    assert offer.url == f"http://127.0.0.1:{server.port}{BASE}cloudg/approvals/{bot.id}"
    assert offer.url == bot.approval["url"]
    assert bot.principal in offer.message and "suppress" in offer.message.lower()
    waiting = [m for m in bot.progress if "waiting for analyst approval" in m]
    assert waiting and all(m.endswith(f" at {offer.url}") for m in waiting)


@pytest.mark.parametrize("era", ERAS)
def test_a_client_without_url_elicitation_is_told_in_progress_where_the_analyst_approves(
        server: JupyterServer, era: str) -> None:
    bot = Assistant(server, f"plain-{era}", era, action=None)
    bot.wait_until(lambda: bot.progress, "told it waits")
    decide(server, bot.id, "deny")
    assert bot.result().is_error
    (said,) = [m for m in bot.progress if "waiting for analyst approval" in m]
    assert "cloudg sidebar" in said and "%cloudg approvals" in said
    assert said.endswith(f" at {bot.approval['url']}")
    assert bot.offers == []


# -- the client's answer decides nothing -------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("answer", ["accept", "accept, saying it approves"])
def test_an_assistant_accepting_the_elicitation_does_not_approve_its_call(
        server: JupyterServer, era: str, answer: str) -> None:
    bot = Assistant(server, f"accepts-{era}-{len(answer)}", era, answer)
    bot.answered()
    assert bot.state() == "pending"
    decide(server, bot.id, "deny")
    result = bot.result()
    assert result.is_error and "denied" in result.content[0].text  # type: ignore[union-attr]
    assert not suppressed(server)


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_an_assistant_declining_the_elicitation_does_not_deny_its_call(
        server: JupyterServer, era: str, action: str) -> None:
    bot = Assistant(server, f"{action}s-{era}", era, action)
    bot.answered()
    assert bot.state() == "pending"
    decide(server, bot.id, "approve")
    try:
        result = bot.result()
        assert not result.is_error, result.content
        assert suppressed(server)
    finally:
        unsuppress(server)


def test_elicitation_complete_follows_the_analysts_decision(server: JupyterServer) -> None:
    bot = Assistant(server, "completed", "2025", "accept")
    bot.answered()
    assert bot.completions() == []  # accepting in the client completes nothing
    decide(server, bot.id, "deny")
    bot.result()
    assert bot.completions() == [bot.id]


def test_the_assistant_cannot_decide_its_call_with_its_own_token(server: JupyterServer) -> None:
    bot = Assistant(server, "self-approver", "2025", "accept")
    bot.answered()
    for path in (f"approvals/{bot.id}", f"approvals/{bot.id}?decision=approve"):
        status, _, _ = api(server, "POST", path, {"decision": "approve"},
                           headers=bearer(bot.token))
        assert status in (401, 403)
    assert bot.state() == "pending"
    decide(server, bot.id, "deny")
    assert bot.result().is_error and not suppressed(server)


# -- the 2026-07-28 era's rounds: the requestState is a single-use ticket of one call ----------

ARGUMENTS = {"ids": [FINDING], "reason": "r"}


@contextlib.contextmanager
def modern_client(server: JupyterServer, name: str) -> Iterator[tuple[Any, str]]:
    """A 2026-07-28 client declaring URL-mode elicitation, driving the rounds itself."""
    async def elicit(ctx: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept")

    token = mint(server, name)
    with open_session(server.endpoint, "2026", headers=bearer(token),
                      elicitation_callback=elicit) as bot:
        yield bot, f"assistant:{name}"


def first_round(bot: Any, arguments: dict[str, Any] | None = None) -> types.InputRequiredResult:
    answer = bot.run(lambda c: c.session.call_tool(
        "suppress_findings", arguments or ARGUMENTS, allow_input_required=True))
    assert isinstance(answer, types.InputRequiredResult), answer
    return answer  # type: ignore[no-any-return]


def retry(bot: Any, state: str | None, *, tool: str = "suppress_findings",
          arguments: dict[str, Any] | None = None, action: str = "accept") -> Any:
    responses = {"approval": types.ElicitResult(action=action)}  # type: ignore[arg-type]
    return bot.run(lambda c: c.session.call_tool(
        tool, arguments or ARGUMENTS, input_responses=responses, request_state=state,
        allow_input_required=True))


def pending_of(server: JupyterServer, principal: str) -> list[dict[str, Any]]:
    _, _, body = api(server, "GET", "approvals")
    return [a for a in body["pending"] if a["principal"] == principal]


def refused(call: Any) -> str:
    with pytest.raises(MCPError) as caught:
        call()
    assert caught.value.code == INVALID_PARAMS
    return caught.value.message


def test_the_first_round_offers_the_page_and_its_retry_gets_the_analysts_decision(
        server: JupyterServer) -> None:
    with modern_client(server, "rounds") as (bot, principal):
        offer = first_round(bot)
        (waiting,) = pending_of(server, principal)
        request = offer.input_requests["approval"]  # type: ignore[index]
        assert request.method == "elicitation/create"
        assert request.params.mode == "url" and request.params.url == waiting["url"]
        assert offer.request_state
        decide(server, waiting["id"], "deny")  # before the retry comes: it waits for it
        result = retry(bot, offer.request_state)
    assert result.is_error and "denied" in result.content[0].text
    assert not suppressed(server)


def test_a_request_state_is_used_once_a_replay_runs_nothing(server: JupyterServer) -> None:
    with modern_client(server, "replayer") as (bot, principal):
        offer = first_round(bot)
        (waiting,) = pending_of(server, principal)
        decide(server, waiting["id"], "approve")
        try:
            assert not retry(bot, offer.request_state).is_error
            assert suppressed(server)
        finally:
            unsuppress(server)
        said = refused(lambda: retry(bot, offer.request_state))
    assert "requestState names no call of yours" in said
    assert not suppressed(server) and pending_of(server, principal) == []


def test_a_request_state_with_other_arguments_or_another_tool_is_refused(
        server: JupyterServer) -> None:
    with modern_client(server, "switcher") as (bot, principal):
        offer = first_round(bot)
        state = offer.request_state
        refused(lambda: retry(bot, state, arguments={"ids": ["f-002"], "reason": "r"}))
        refused(lambda: retry(bot, state, tool="unsuppress_findings",
                              arguments={"ids": [FINDING]}))
        (waiting,) = pending_of(server, principal)  # still waiting, still its own
        decide(server, waiting["id"], "deny")
        assert retry(bot, state).is_error  # the right retry still takes it over


def test_another_assistant_cannot_take_over_a_parked_call(server: JupyterServer) -> None:
    with modern_client(server, "owner-bot") as (bot, principal), \
            modern_client(server, "thief-bot") as (thief, _):
        offer = first_round(bot)
        refused(lambda: retry(thief, offer.request_state))
        (waiting,) = pending_of(server, principal)
        decide(server, waiting["id"], "deny")
        result = retry(bot, offer.request_state)
    assert result.is_error and "denied" in result.content[0].text


@pytest.mark.parametrize("state", ["forged", "", "v1.AAAA", "x" * 5000])
def test_a_forged_request_state_is_refused_and_nothing_waits(server: JupyterServer,
                                                              state: str) -> None:
    with modern_client(server, f"forger-{len(state)}") as (bot, principal):
        refused(lambda: retry(bot, state))
        assert pending_of(server, principal) == []
    assert not suppressed(server)


def test_a_second_retry_while_the_first_waits_is_refused(server: JupyterServer) -> None:
    with modern_client(server, "doubler") as (bot, principal):
        offer = first_round(bot)
        out: dict[str, Any] = {}
        waiter = threading.Thread(target=lambda: out.update(r=retry(bot, offer.request_state)),
                                  daemon=True)
        waiter.start()
        time.sleep(1.0)  # the first retry holds the call
        refused(lambda: retry(bot, offer.request_state, action="accept"))
        (waiting,) = pending_of(server, principal)
        decide(server, waiting["id"], "deny")
        waiter.join(TIMEOUT)
    assert out["r"].is_error and "denied" in out["r"].content[0].text
