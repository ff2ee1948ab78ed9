"""Acceptance: non-secrets common in real inventories (ids, ARNs of every sample asset type,
compliance framework and control names, public keys, certificates, digests, secret
references, long names, the resource ids of a multi-cloud Prowler scan) come through the
default ``standard`` policy unchanged — as values under their usual keys and inside free
text."""

from __future__ import annotations

import pytest

from cloudg_nb import CloudGMCPLayer, Registry

from .false_positive_corpus import KEYED_ONLY, NON_SECRETS, estate_arns
from .prowler_id_estate import RESOURCES as PROWLER_RESOURCES

_ARNS = estate_arns()
CORPUS: dict[str, tuple[str, str]] = {
    **NON_SECRETS, **{f"arn {label}": ("arn", arn) for label, arn in _ARNS.items()},
    # resource ids of a multi-cloud Prowler scan (random-looking ARNs, Azure ids, GCP names)
    **{f"prowler {uid}": ("resource_id", uid) for _, _, uid, *_ in PROWLER_RESOURCES},
}


def _record(label: str) -> dict:
    key, value = CORPUS[label]
    if label in KEYED_ONLY:
        return {key: value, "Tags": [{"Key": key, "Value": value}]}
    return {key: value, "description": f"see {value} for details", "values": [value]}


def _layer() -> CloudGMCPLayer:
    reg = Registry()

    @reg.tool
    def record(ctx, label: str) -> dict:
        """One corpus entry under its usual key, inside prose and in a list."""
        return _record(label)

    return CloudGMCPLayer(registry=reg, policy="standard")


def test_corpus_has_at_least_60_non_secrets_and_every_sample_asset_type() -> None:
    assert len(CORPUS) >= 60
    assert {label.split(":")[0] for label in _ARNS} == {"demo", "scaled"}
    assert len(_ARNS) >= 50


@pytest.mark.parametrize("label", sorted(CORPUS))
async def test_non_secret_comes_through_standard_unchanged(label: str) -> None:
    result = await _layer().call_tool("record", {"label": label})
    assert not result.is_error, result.text
    assert result.structured == _record(label)
    report = result.meta.get("cloudg/transforms", {})
    assert not any(report.get(s) for s in ("redacted", "masked", "dropped", "hashed"))
