"""Issue 36, finding 9, on a real Jupyter server: what an assistant sees.

An estate file under the server's root plants every attack of ``privacy_classes_corpus`` —
secrets inside encoded values (Kubernetes Secret objects and manifests, ``.dockerconfigjson``,
base64 of every flavour, percent and JSON escapes), in vendor key formats (Mailgun's legacy
``key-`` among ~40), and holding punctuation — in asset names, tag keys and values, metadata
and finding texts. The analyst (whose policy here is ``open``) loads it; an assistant with a
minted token, under the default ``assistant`` profile, reads it through every tool, resource,
template, prompt, completion and error path of the MCP endpoint: no secret, nor a 12-character
piece of one, in clear or in anything decodable from what it receives. The analyst reads
every one of them (so the check can fail).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.protocol.harness import ClientSession, open_session
from tests.transforms.leak_oracle import leaks, readable, visible
from tests.transforms.privacy_classes_corpus import ASSETS, PLANTS, SECRETS, asset_id, write_estate

from .mcp_surfaces import collect
from .server import JupyterServer, jupyter_server
from .test_auth import request

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

BASE = "/user/analyst/"
DATASET = "planted"
FINDINGS = [f"c-{n:03d}" for n, plant in enumerate(PLANTS.values())
            if plant.carrier[0] == "finding"]
#: References tried besides the asset ids: near misses and names (error paths, suggestions).
REFS = ["classes-0", "classes-01", "runner", "runner github_pat_", "i-0classes", "key-",
        "arn:aws:ec2:eu-west-1:444455556666:instance/i-0classes0000009"]
TAG_KEYS = sorted({"env", *(p.carrier[1] for p in PLANTS.values() if p.carrier[0] == "tag")})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    tmp = tmp_path_factory.mktemp("privacy")
    with jupyter_server(tmp, base_url=BASE,
                        extra_args=["--CloudGExtension.policy=open"]) as started:
        write_estate(started.root_dir)
        yield started


@pytest.fixture(scope="module")
def analyst(server: JupyterServer) -> Iterator[ClientSession]:
    with open_session(server.endpoint, "2026", headers=server.headers) as session:
        loaded = session.call_tool("load_dataset", {"path": "findings.json", "name": DATASET})
        assert not loaded.is_error, loaded.content[0].text
        yield session


def _mint(server: JupyterServer, name: str) -> str:
    status, _, raw = request(server, "POST", f"{BASE}cloudg/api/assistants",
                             {"name": name, "client": "other"},
                             {"Authorization": f"token {server.token}",
                              "Content-Type": "application/json"})
    assert status == 201, raw
    return str(json.loads(raw)["token"])


@pytest.fixture(scope="module")
def assistant_surfaces(server: JupyterServer, analyst: ClientSession) -> dict[str, list[str]]:
    token = _mint(server, "reader")
    with open_session(server.endpoint, "2026",
                      headers={"Authorization": f"Bearer {token}"}) as session:
        who = session.call_tool("privacy_status", {}).structured_content
        assert who["policy"] == "assistant"
        return collect(session, dataset=DATASET, asset_ids=[asset_id(n) for n in range(ASSETS)],
                       finding_ids=FINDINGS, refs=REFS, tag_keys=TAG_KEYS)


@pytest.fixture(scope="module")
def leaked(assistant_surfaces: dict[str, list[str]]) -> dict[str, list[str]]:
    """Planted secret label -> the surfaces (at most 3) from which the assistant could read
    it, or a 12-character piece of it, in clear or decoded."""
    by_surface = {surface: readable(strings) for surface, strings in assistant_surfaces.items()}
    everything = "\x00".join(set(by_surface.values()))
    return {label: [surface for surface, hay in by_surface.items()
                    if leaks(hay, {label: SECRETS[label]})][:3]
            for label in leaks(everything, SECRETS)}


def test_the_assistant_reached_the_planted_estate_through_every_kind_of_surface(
        assistant_surfaces: dict[str, list[str]]) -> None:
    kinds = {surface.split(" ")[0] for surface in assistant_surfaces}
    assert {"tool", "resource", "template", "prompt", "complete"} <= kinds
    asset = json.loads(assistant_surfaces[
        f"tool get_asset {json.dumps({'dataset': DATASET, 'ref': asset_id(0)})}"][0])
    assert asset["isError"] is False and "classes" in json.dumps(asset), asset
    assert len(assistant_surfaces) > 300


@pytest.mark.parametrize("klass", ["encoded", "vendor", "punctuation"])
def test_no_planted_secret_of_the_class_nor_a_piece_of_one_reaches_the_assistant(
        leaked: dict[str, list[str]], klass: str) -> None:
    planted = [label for label in SECRETS if PLANTS[label.split("#")[0]].klass == klass]
    assert len(planted) >= 12
    assert {label: where for label, where in leaked.items() if label in planted} == {}


def test_the_assistant_still_reads_what_surrounds_each_redaction(
        assistant_surfaces: dict[str, list[str]]) -> None:
    seen = "\x00".join(s for strings in assistant_surfaces.values() for s in strings)
    assert "Found password=[REDACTED:" in seen and "] next to the key." in seen
    assert "Server=tcp:sql1.acme.internal,1433;Database=billing;User ID=sa;Password=[" in seen
    assert "redis://:[REDACTED:connection_string]@cache.acme.internal:6379/0" in seen
    assert '\\"name\\": \\"orders-db\\"' in seen or '"name": "orders-db"' in seen
    assert "classes-01" in seen and "i-0classes00000011" in seen


def test_the_analyst_under_open_reads_every_planted_secret(
        analyst: ClientSession) -> None:
    seen: list[str] = []
    for n in range(ASSETS):
        result: Any = analyst.call_tool("get_asset", {"dataset": DATASET, "ref": asset_id(n)})
        seen.append(json.dumps(result.structured_content))
    for fid in FINDINGS:
        result = analyst.call_tool("get_finding", {"dataset": DATASET, "finding_id": fid})
        seen.append(json.dumps(result.structured_content))
    assert sorted(set(SECRETS) - set(visible(seen, SECRETS))) == []
