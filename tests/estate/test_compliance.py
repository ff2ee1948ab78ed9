"""Compliance summary, controls and gaps."""

from __future__ import annotations

import pytest

from cloudg_nb.estate import (
    ReferenceNotFoundError,
    compliance_gaps,
    compliance_summary,
    control_status,
    list_controls,
    list_frameworks,
)


def test_frameworks_of_the_demo(ds) -> None:
    assert list_frameworks(ds) == ["CIS-AWS-2.0", "CIS-AZURE-2.0", "CIS-GCP-2.0",
                                   "PCI-DSS-4.0", "SOC2"]


def test_pass_rate_counts_pass_over_assessed_controls(ds) -> None:
    soc2 = compliance_summary(ds, "soc2").iloc[0].to_dict()
    assert (soc2["passed"], soc2["failed"], soc2["not_applicable"], soc2["pass_rate"]) == (
        1, 3, 1, 0.25)


def test_gaps_put_critical_failures_first(ds) -> None:
    gaps = compliance_gaps(ds)
    assert gaps.iloc[0][["framework", "control_id", "max_severity"]].tolist() == [
        "PCI-DSS-4.0", "6.3.3", "CRITICAL"]
    assert set(gaps.iloc[0]["resources"]) == {"web-1", "aws-ecr-legacy-billing"}
    assert len(gaps) == 11


def test_controls_and_status_of_one_control(ds) -> None:
    assert list_controls(ds, "CIS-AWS-2.0", status="fail")["control_id"].tolist() == [
        "1.22", "2.1.1", "3.6", "5.2"]
    status = control_status(ds, "CIS-AWS-2.0", "5.2")
    assert status["status"] == "FAIL" and status["findings"][0]["resource_name"] == \
        "sg-bastion-ssh"


def test_unknown_framework_has_close_matches(ds) -> None:
    with pytest.raises(ReferenceNotFoundError) as err:
        compliance_summary(ds, "PCI-DSS")
    assert "PCI-DSS-4.0" in err.value.data["close_matches"]
