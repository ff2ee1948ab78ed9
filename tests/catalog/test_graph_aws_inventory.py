"""Graph tools on an AWS inventory with relationships (AWS Config items, EC2 describe-*
outputs): the internet reaches an instance through its security group, and only instances
with a public IP are exposed."""

from __future__ import annotations

import shutil
from pathlib import Path

from cloudg_nb import CloudGMCPLayer

from .support import ok

DATA = Path(__file__).parents[1] / "estate" / "data"


async def _config(layer: CloudGMCPLayer, tmp_path: Path) -> None:
    shutil.copy(DATA / "aws-config-snapshot.json", tmp_path / "data" / "config.json")
    out = await ok(layer, "load_dataset", {"path": "config.json", "name": "config"})
    assert out["load_report"]["relationships"] > 0


async def _describe(layer: CloudGMCPLayer, tmp_path: Path) -> None:
    shutil.copytree(DATA / "aws-describe", tmp_path / "data" / "describe")
    await ok(layer, "load_dataset", {"path": "describe", "name": "describe"})


async def test_internet_exposure_lists_the_config_instance_with_port_22_and_its_group(
        empty, tmp_path) -> None:
    await _config(empty, tmp_path)
    out = await ok(empty, "internet_exposure", {"dataset": "config"})
    row = next(r for r in out["items"] if r["id"] == "i-0bastion0001")
    assert row["open_ports"] == [22] and row["via"] == ["shop-ssh"]
    assert row["exposure"] == "security_group" and "note" not in out


async def test_attack_paths_reach_the_config_instance_through_its_security_group(
        empty, tmp_path) -> None:
    await _config(empty, tmp_path)
    out = await ok(empty, "attack_paths", {"target": "shop-bastion", "dataset": "config"})
    hops = [n["id"] for n in out["paths"][0]["nodes"]]
    assert hops == ["internet", "sg-0a0a0a11", "i-0bastion0001"]
    assert out["paths"][0]["entry"]["id"] == "sg-0a0a0a11"


async def test_internet_exposure_lists_the_described_instance_with_port_22_and_its_group(
        empty, tmp_path) -> None:
    await _describe(empty, tmp_path)
    out = await ok(empty, "internet_exposure", {"dataset": "describe"})
    rows = {r["id"]: r for r in out["items"]}
    assert 22 in rows["i-0pay0edge01"]["sensitive_ports"]
    assert rows["i-0pay0edge01"]["via"] == ["payments-edge"]
    assert "i-0pay0batch2" not in rows and out["without_public_ip"] == 1


async def test_attack_paths_reach_the_described_instance_through_its_security_group(
        empty, tmp_path) -> None:
    await _describe(empty, tmp_path)
    out = await ok(empty, "attack_paths", {"target": "i-0pay0edge01", "dataset": "describe"})
    hops = [n["id"] for n in out["paths"][0]["nodes"]]
    assert hops == ["internet", "sg-0e0e0e88", "i-0pay0edge01"]


async def test_attack_paths_do_not_reach_a_private_instance_through_an_open_group(
        empty, tmp_path) -> None:
    await _describe(empty, tmp_path)
    out = await ok(empty, "attack_paths", {"target": "i-0pay0batch2", "dataset": "describe"})
    assert out["count"] == 0


async def test_load_dataset_names_the_instance_left_unexposed_for_want_of_a_public_ip(
        empty, tmp_path) -> None:
    shutil.copytree(DATA / "aws-describe", tmp_path / "data" / "describe")
    out = await ok(empty, "load_dataset", {"path": "describe", "kind": "aws-describe"})
    assert any("i-0pay0batch2" in w for w in out["load_report"]["warnings"])
