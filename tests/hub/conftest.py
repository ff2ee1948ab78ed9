"""One real JupyterHub per test module, with alice's and bob's servers started through its
REST API (``tests/hub/hub.py``); marked ``hub`` and ``server`` (it starts both kinds)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.jupyter.server import FIXTURE_REGISTRY
from tests.lanes import starts

from .hub import USERS, Hub, jupyterhub

#: What the tests add to every server's command line: the test tools, a short approval
#: wait, and an audit log in the server's own folder (its home).
SERVER_ARGS = (FIXTURE_REGISTRY, "--CloudGExtension.approval_timeout=20",
               "--CloudGExtension.audit_log=audit.jsonl")


@pytest.fixture(scope="module")
@starts("hub", "server")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with jupyterhub(tmp_path_factory.mktemp("hub"), extra_args=SERVER_ARGS) as started:
        for user in USERS:
            started.start_server(user)
        print(f"\nhub: servers ready in {started.started} seconds")
        yield started
