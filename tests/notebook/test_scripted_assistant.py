"""The notebooks' scripted assistant on a real Jupyter server: it gets a credential of its own
(never the server's token, which it never shows), its calls act as ``assistant:NAME``, a call
that changes the analyst's data waits for the analyst and runs only once approved, a denied
or expired one comes back refused, and a revoked credential is refused. (The server's
approvals expire after APPROVAL_SECONDS, so the expiry is seen quickly.)"""

from __future__ import annotations

import urllib.error
from collections.abc import Iterator

import pytest
from mcp.shared.exceptions import MCPError

from cloudg_nb.jupyter_discovery import find_jupyter_endpoint
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.scripted_assistant import ScriptedAssistant
from tests.jupyter.server import JupyterServer, jupyter_server
from tests.lanes import starts

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

#: How long an assistant's call waits for the analyst on this module's server.
APPROVAL_SECONDS = 10


@pytest.fixture(scope="module")
@starts("server")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("scripted"), other_extensions=False,
                        extra_args=[f"--CloudGExtension.approval_timeout={APPROVAL_SECONDS}"],
                        ) as running:
        yield running


def minted(server: JupyterServer, name: str) -> ScriptedAssistant:
    return ScriptedAssistant.mint(find_jupyter_endpoint(server.url, server.token), name)


def test_its_credential_is_minted_for_it_and_never_the_server_token(
        server: JupyterServer) -> None:
    bot = minted(server, "scripted-one")
    assert bot._token.startswith("cgat_") and bot._token != server.token
    assert bot.token_hint == bot._token[:9]
    assert bot._token not in repr(bot) and server.token not in repr(bot)
    assert bot.principal == "assistant:scripted-one"


def test_a_call_that_changes_the_analysts_data_waits_and_runs_once_approved(
        server: JupyterServer, client: Client) -> None:
    bot = minted(server, "scripted-approved")
    asking = bot.ask("suppress_findings", ids=["f-006"], reason="accepted risk")
    waiting = bot.waiting_approval(client, asking)
    assert waiting is not None and not asking.done
    assert waiting["principal"] == "assistant:scripted-approved"
    assert not client.approve(waiting["id"], "fine").is_error
    answer = asking.result()
    assert not answer.is_error
    assert client.call("get_finding", finding_id="f-006", progress=False).data["is_suppressed"]
    client.call("unsuppress_findings", ids=["f-006"], progress=False)


def test_a_denied_call_comes_back_refused_and_changes_nothing(
        server: JupyterServer, client: Client) -> None:
    bot = minted(server, "scripted-denied")
    asking = bot.ask("suppress_findings", ids=["f-007"], reason="accepted risk")
    waiting = bot.waiting_approval(client, asking)
    assert waiting is not None
    client.deny(waiting["id"], "not this one")
    assert asking.result().is_error
    assert bot.waiting_approval(client, asking) is None  # answered: no longer waits
    assert not client.call("get_finding", finding_id="f-007",
                           progress=False).data["is_suppressed"]


def test_a_call_nobody_decides_expires_and_then_no_longer_waits(
        server: JupyterServer, client: Client) -> None:
    bot = minted(server, "scripted-expired")
    asking = bot.ask("suppress_findings", ids=["f-009"], reason="accepted risk")
    assert bot.waiting_approval(client, asking) is not None
    assert asking.result(timeout=APPROVAL_SECONDS * 6).is_error
    assert bot.waiting_approval(client, asking) is None
    assert not client.call("get_finding", finding_id="f-009",
                           progress=False).data["is_suppressed"]


def test_a_revoked_credential_is_refused_saying_so(server: JupyterServer,
                                                   client: Client) -> None:
    bot = minted(server, "scripted-revoked")
    assert not client.revoke_assistant(bot.name).is_error
    with pytest.raises(MCPError) as refused:
        bot.ask("list_datasets").result()
    assert "unknown or was revoked" in str(refused.value)
    assert bot._token not in str(refused.value)


def test_minting_with_a_wrong_owner_token_is_refused(server: JupyterServer) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        ScriptedAssistant.mint(find_jupyter_endpoint(server.url, "not-the-token"), "nobody")
    assert refused.value.code in (401, 403)
