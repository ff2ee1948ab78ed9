"""The server log's line for each way a request ends: the text its middleware wrote before it
became a sink of one call record (one line for a timed-out or cancelled call, naming the kind,
the name, the caller, why and how long; nothing for any other), on its own or as a sink."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import pytest
from cloudg_jupyter.call_log import CallLogMiddleware

from cloudg_nb.layer.middleware import CallRecorder
from tests.layer.call_outcomes import OUTCOMES, request

#: The line of each request, its seconds as ``S`` (None: no line).
LINES: dict[str, str | None] = {
    **dict.fromkeys(OUTCOMES),
    "timeout": "cloudg: tool slow by alice ended early (timed out) after S s",
    "cancelled": "cloudg: tool sleepy by alice ended early (cancelled) after S s",
}

SETUPS: dict[str, Callable[[CallLogMiddleware], list[Any]]] = {
    "middleware": lambda call_log: [call_log],
    "sink": lambda call_log: [CallRecorder(call_log)],
}


@pytest.mark.parametrize("setup", list(SETUPS))
@pytest.mark.parametrize("outcome", list(LINES))
async def test_the_server_log_line_of_each_request(
        outcome: str, setup: str, caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("test.cloudg.call_log_shapes")
    with caplog.at_level(logging.INFO, logger=log.name):
        await request(outcome, SETUPS[setup](CallLogMiddleware(log)))
    lines = [r.getMessage() for r in caplog.records if r.name == log.name]
    assert [re.sub(r"after \d+\.\d s$", "after S s", line) for line in lines] == (
        [] if LINES[outcome] is None else [LINES[outcome]])
