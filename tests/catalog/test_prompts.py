"""Prompts of the catalog: each gathers facts from the demo estate into one user message,
and with no data loaded each returns a "load data first" message instead."""

from __future__ import annotations

import json
import re

import pytest

from cloudg_nb.catalog.prompts import LOAD_FIRST
from cloudg_nb.layer.errors import InvalidArgumentsError, NotFoundError

from .support import ok

PROMPTS = {
    "security_posture_review": {},
    "investigate_asset": {"ref": "web-1"},
    "blast_radius_assessment": {"ref": "prod-data-key"},
    "incident_triage": {"finding_id": "f-002"},
    "drift_review": {"base": "demo"},
}


async def _facts(layer, name: str, arguments: dict) -> tuple[str, dict]:
    result = await layer.get_prompt(name, arguments)
    assert len(result.messages) == 1 and result.messages[0].role == "user"
    text = result.messages[0].content.text
    block = re.search(r"```json\n(.*?)\n```", text, re.S)
    assert block, text
    return text, json.loads(block.group(1))


@pytest.mark.parametrize(("name", "arguments"), list(PROMPTS.items()))
async def test_every_prompt_without_data_asks_to_load_data_first(empty, name, arguments
                                                                 ) -> None:
    result = await empty.get_prompt(name, arguments)
    assert result.messages[0].content.text == LOAD_FIRST


async def test_security_posture_review_gathers_findings_exposure_risks_compliance(layer
                                                                                 ) -> None:
    text, facts = await _facts(layer, "security_posture_review", {})
    assert facts["open_findings_by_severity"]["CRITICAL"] == 2
    assert [f["id"] for f in facts["severe_findings"]][:2] == ["f-001", "f-012"]
    assert [e["name"] for e in facts["internet_entry_points"]] == [
        "bastion-1", "kibana-1", "vm-jump-01", "web-alb"]
    assert facts["top_risks"][0]["name"] == "web-1"
    assert "attack_paths" in text and "compliance_gaps" in text


async def test_security_posture_review_focuses_on_one_framework(layer) -> None:
    _, facts = await _facts(layer, "security_posture_review",
                            {"framework": "SOC2", "min_severity": "critical"})
    assert [c["framework"] for c in facts["compliance"]] == ["SOC2"]
    assert {f["severity"] for f in facts["severe_findings"]} == {"CRITICAL"}


async def test_investigate_asset_shows_how_the_internet_reaches_it(layer) -> None:
    text, facts = await _facts(layer, "investigate_asset", {"ref": "web-1"})
    assert "web-1" in text.splitlines()[0]
    assert facts["attack_paths_from_internet"][0] == ["Internet", "web-alb", "web-1"]
    assert [f["id"] for f in facts["findings"]] == ["f-001"]


async def test_blast_radius_assessment_of_the_shared_key(layer) -> None:
    _, facts = await _facts(layer, "blast_radius_assessment", {"ref": "prod-data-key"})
    assert facts["total"] == 11
    assert [d["name"] for d in facts["dependents"] if d["depth"] == 1] == [
        "customers-db", "customer-pii-exports", "db-credentials", "audit-logs"]


async def test_incident_triage_of_the_ssh_finding(layer) -> None:
    _, facts = await _facts(layer, "incident_triage", {"finding_id": "f-002"})
    assert facts["finding"]["title"] == "Security group allows SSH (22) from 0.0.0.0/0"
    assert facts["asset"]["name"] == "sg-bastion-ssh"


async def test_incident_triage_of_an_orphan_finding_says_it_is_outside_the_inventory(
        layer) -> None:
    _, facts = await _facts(layer, "incident_triage", {"finding_id": "f-011"})
    assert facts["asset"].startswith("not in the inventory")


async def test_drift_review_reports_the_removed_waf_and_resolved_ssh_finding(layer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted"})
    _, facts = await _facts(layer, "drift_review", {"base": "demo"})
    assert [a["name"] for a in facts["assets_removed"]] == ["web-waf"]
    assert [f["id"] for f in facts["findings_resolved"]] == ["f-002"]


async def test_drift_review_starts_from_the_lost_waf_and_the_paths_it_opens(layer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted"})
    text, facts = await _facts(layer, "drift_review", {"base": "demo"})
    assert facts["headline"].startswith("Worse: 1 protection lost (web-waf (WAF) protects")
    assert [p["why"] for p in facts["worse"]["attack_paths_opened"]] == [
        "web-alb lost its WAF (web-waf)"] * 3
    assert "Start from what got worse" in text


async def test_prompt_missing_a_required_argument_is_refused(layer) -> None:
    with pytest.raises(InvalidArgumentsError):
        await layer.get_prompt("investigate_asset", {})


async def test_prompt_with_an_unknown_asset_lists_close_matches(layer) -> None:
    with pytest.raises(NotFoundError) as info:
        await layer.get_prompt("investigate_asset", {"ref": "web-3"})
    assert "web-1" in info.value.data["close_matches"]
