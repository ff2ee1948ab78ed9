"""Compliance tools on the demo estate: compliance_summary (pass rates per framework and
overall) and compliance_gaps (failing controls, worst first)."""

from __future__ import annotations

from .support import error_data, fail, ok


async def test_compliance_summary_pass_rates_per_framework(layer) -> None:
    out = await ok(layer, "compliance_summary")
    rates = {f["framework"]: (f["passed"], f["failed"], f["pass_rate"]) for f in out["frameworks"]}
    assert rates == {"CIS-AWS-2.0": (2, 4, 0.3333), "CIS-AZURE-2.0": (1, 1, 0.5),
                     "CIS-GCP-2.0": (1, 1, 0.5), "PCI-DSS-4.0": (2, 2, 0.5),
                     "SOC2": (1, 3, 0.25)}
    assert out["overall"] == {"controls": 21, "passed": 7, "failed": 11, "pass_rate": 0.3889}


async def test_compliance_summary_of_one_framework_case_insensitive(layer) -> None:
    out = await ok(layer, "compliance_summary", {"framework": "soc2"})
    assert [f["framework"] for f in out["frameworks"]] == ["SOC2"]


async def test_compliance_summary_unknown_framework_gives_close_matches(layer) -> None:
    result = await fail(layer, "compliance_summary", {"framework": "PCI-DSS-4"})
    assert error_data(result)["close_matches"][0] == "PCI-DSS-4.0"


async def test_compliance_gaps_worst_first_is_pci_6_3_3(layer) -> None:
    out = await ok(layer, "compliance_gaps")
    assert out["total"] == 11
    top = out["items"][0]
    assert (top["framework"], top["control_id"], top["max_severity"], top["open_findings"]) == (
        "PCI-DSS-4.0", "6.3.3", "CRITICAL", 2)


async def test_compliance_gaps_of_one_framework(layer) -> None:
    out = await ok(layer, "compliance_gaps", {"framework": "CIS-AWS-2.0"})
    assert [g["control_id"] for g in out["items"]] == ["1.22", "5.2", "2.1.1", "3.6"]
