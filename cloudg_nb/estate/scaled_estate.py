"""``scaled(n)``: a generated estate of up to 200,000 assets with about four edges per
asset (a realistic mix of network, identity and dependency edges), vectorised with numpy and
deterministic for a seed; for benchmarks and load tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..layer.errors import InvalidArgumentsError
from .dataset import Dataset
from .frames import risk_scores

__all__ = ["scaled", "MAX_SCALED"]

MAX_SCALED = 200_000
_T0 = "2025-06-02T09:00:00Z"

_PROVIDERS = np.array(["AWS", "AZURE", "GCP"], dtype=object)
# class: (share of assets, type per provider AWS/AZURE/GCP)
_CLASSES: list[tuple[str, float, tuple[str, str, str]]] = [
    ("vpc", 0.005, ("VPC", "VNET", "VPC")),
    ("subnet", 0.04, ("SUBNET", "SUBNET", "SUBNET")),
    ("sg", 0.09, ("SECURITY_GROUP", "NSG", "SECURITY_GROUP")),
    ("lb", 0.02, ("LOAD_BALANCER", "LOAD_BALANCER", "LOAD_BALANCER")),
    ("waf", 0.005, ("WAF", "WAF", "WAF")),
    ("compute", 0.26, ("EC2", "VIRTUAL_MACHINE", "GCE_INSTANCE")),
    ("function", 0.08, ("LAMBDA_FUNCTION", "LAMBDA_FUNCTION", "LAMBDA_FUNCTION")),
    ("image", 0.03, ("CONTAINER_IMAGE", "CONTAINER_IMAGE", "CONTAINER_IMAGE")),
    ("role", 0.10, ("IAM_ROLE", "IAM_ROLE", "SERVICE_ACCOUNT")),
    ("policy", 0.05, ("IAM_POLICY", "IAM_POLICY", "IAM_POLICY")),
    ("bucket", 0.11, ("S3_BUCKET", "STORAGE_ACCOUNT", "GCS_BUCKET")),
    ("db", 0.03, ("RDS_INSTANCE", "SQL_DATABASE", "SQL_DATABASE")),
    ("key", 0.02, ("KMS_KEY", "KEY_VAULT", "KMS_KEY")),
    ("secret", 0.05, ("SECRET", "SECRET", "SECRET")),
    ("logs", 0.03, ("LOG_GROUP", "LOG_GROUP", "LOG_GROUP")),
    ("other", 0.0, ("OTHER", "OTHER", "OTHER")),
]
_CLASS_INDEX = {c[0]: i for i, c in enumerate(_CLASSES)}
_RULE_PORTS = np.array([443, 443, 443, 80, 8080, 5432, 3306, 6379, 22, 3389], dtype=np.int64)
_SEVERITIES = np.array(["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"], dtype=object)
_TOOLS = np.array(["prowler", "trivy", "checkov", "scoutsuite"], dtype=object)
#: None as an object array, for ``np.where`` over object columns.
_NONE = np.array(None, dtype=object)
_FRAMEWORKS = ["CIS-AWS-2.0", "PCI-DSS-4.0", "SOC2"]
_TEAMS = np.array(["web", "data", "platform", "payments", "analytics", "ops"], dtype=object)
_ENVS = np.array(["prod", "prod", "staging", "dev"], dtype=object)


def _obj(values: Any) -> pd.Series:
    """An object-dtype column (pandas would otherwise convert text to Arrow strings)."""
    return pd.Series(values, dtype=object)


class _Picker:
    """Random targets of a class, preferring the source's own account (vectorised)."""

    def __init__(self, cls: np.ndarray, acct: np.ndarray, n_acct: int, rng: np.random.Generator):
        self.rng = rng
        n_cls = len(_CLASSES)
        key = acct.astype(np.int64) * n_cls + cls
        self.order = np.argsort(key, kind="stable")
        counts = np.bincount(key, minlength=n_acct * n_cls)
        self.start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        self.count = counts
        self.n_cls = n_cls
        self.global_rows = {c: np.flatnonzero(cls == c) for c in range(n_cls)}

    def pick(self, src_acct: np.ndarray, cls_name: str, *, favourite: float = 0.0
             ) -> np.ndarray:
        """One target per source; with ``favourite`` > 0 that share of sources picks the
        account's first member of the class (a shared default key, a central log bucket)."""
        c = _CLASS_INDEX[cls_name]
        key = src_acct.astype(np.int64) * self.n_cls + c
        size = self.count[key]
        r = self.rng.random(len(key))
        if favourite:
            r = np.where(self.rng.random(len(key)) < favourite, 0.0, r)
        out = np.full(len(key), -1, dtype=np.int64)
        has = size > 0
        out[has] = self.order[self.start[key[has]] + (r[has] * size[has]).astype(np.int64)]
        pool = self.global_rows[c]
        if (~has).any() and len(pool):
            out[~has] = pool[(r[~has] * len(pool)).astype(np.int64)]
        return out


def scaled(n: int = 10_000, *, seed: int = 7, name: str | None = None) -> Dataset:
    """A generated estate of ``n`` assets (≤ 200,000) with ≈4 edges per asset.

    Accounts spread over AWS/Azure/GCP; per account networks, security groups with rules
    (some open to the world), load balancers in front of compute, workloads assuming roles
    that reach data stores encrypted by keys, logs, images, cross-account trusts; ≈0.3
    findings per asset (a few suppressed, a few on resources missing from the inventory).
    """
    if not 10 <= n <= MAX_SCALED:
        raise InvalidArgumentsError(
            f"A scaled estate has between 10 and {MAX_SCALED} assets.",
            data={"field": "n", "min": 10, "max": MAX_SCALED})
    rng = np.random.default_rng(seed)
    n_acct = max(3, n // 2500)
    acct_provider = rng.choice(3, size=n_acct, p=[0.6, 0.25, 0.15])
    acct_provider[:3] = [0, 1, 2]
    acct_ids = np.array([f"{100000000000 + 7919 * k:012d}" for k in range(n_acct)],
                        dtype=object)
    n_rest = n - n_acct
    shares = np.array([c[1] for c in _CLASSES])
    shares[-1] = max(0.0, 1.0 - shares.sum())
    cls_rest = rng.choice(len(_CLASSES), size=n_rest, p=shares / shares.sum())
    cls_rest.sort(kind="stable")
    acct_rest = rng.integers(0, n_acct, size=n_rest)
    # asset arrays: accounts first (class -1 = account)
    cls = np.concatenate([np.full(n_acct, -1), cls_rest])
    acct = np.concatenate([np.arange(n_acct), acct_rest])
    prov_idx = acct_provider[acct]
    types = np.empty(n, dtype=object)
    types[:n_acct] = "CLOUD_ACCOUNT"
    for ci, (_, _, per_provider) in enumerate(_CLASSES):
        sel = np.flatnonzero(cls == ci)
        types[sel] = np.array(per_provider, dtype=object)[prov_idx[sel]]
    ids = np.array([f"a{i:06d}" for i in range(n)], dtype=object)
    names = np.empty(n, dtype=object)
    names[:n_acct] = [f"account-{k}" for k in range(n_acct)]
    labels = np.array([c[0] for c in _CLASSES], dtype=object)
    names[n_acct:] = [f"{labels[c]}-{i}" for i, c in zip(range(n_acct, n), cls_rest,
                                                          strict=True)]
    providers = _PROVIDERS[prov_idx]
    regions_by_provider = (np.array(["us-east-1", "eu-west-1", "us-west-2"], dtype=object),
                           np.array(["eastus", "westeurope"], dtype=object),
                           np.array(["us-central1", "europe-west1"], dtype=object))
    region_pick = rng.integers(0, 6, size=n)
    regions = np.empty(n, dtype=object)
    for p in range(3):
        sel = prov_idx == p
        opts = regions_by_provider[p]
        regions[sel] = opts[region_pick[sel] % len(opts)]
    regions[:n_acct] = "global"
    account_col = acct_ids[acct]
    arns = np.array([f"arn:sim:{t.lower()}:{r}:{a}:{i}" for t, r, a, i in
                     zip(types, regions, account_col, ids, strict=True)], dtype=object)
    env = _ENVS[rng.integers(0, len(_ENVS), size=n)]
    team = _TEAMS[rng.integers(0, len(_TEAMS), size=n)]
    tags = [{"env": e, "team": t} for e, t in zip(env, team, strict=True)]
    exposed = np.zeros(n, dtype=bool)
    class_of = {name: i for i, name in enumerate(labels)}
    exposed[(cls == class_of["lb"]) & (rng.random(n) < 0.5)] = True
    exposed[(cls == class_of["compute"]) & (rng.random(n) < 0.02)] = True
    assets = pd.DataFrame({
        "id": _obj(ids), "arn": _obj(arns), "name": _obj(names), "asset_type": _obj(types),
        "provider": _obj(providers), "region": _obj(regions), "account_id": _obj(account_col),
        "tags": _obj(tags), "metadata": _obj([None] * n), "is_internet_exposed": exposed,
    })

    picker = _Picker(np.where(cls < 0, len(_CLASSES) - 1, cls), acct, n_acct, rng)
    src_parts: list[np.ndarray] = []
    dst_parts: list[np.ndarray] = []
    type_parts: list[np.ndarray] = []

    def add(src: np.ndarray, dst: np.ndarray, etype: str) -> None:
        ok = (dst >= 0) & (src != dst)
        src_parts.append(src[ok])
        dst_parts.append(dst[ok])
        type_parts.append(np.full(int(ok.sum()), etype, dtype=object))

    def rows(*names: str) -> np.ndarray:
        return np.flatnonzero(np.isin(cls, [class_of[x] for x in names]))

    accounts = np.arange(n_acct)
    vpcs, subnets = rows("vpc"), rows("subnet")
    add(acct[vpcs], vpcs, "CONTAINS")
    add(picker.pick(acct[subnets], "vpc"), subnets, "CONTAINS")
    placed = rows("compute", "db", "lb", "function")
    add(picker.pick(acct[placed], "subnet"), placed, "CONTAINS")
    others = rows("role", "policy", "bucket", "key", "secret", "logs", "image", "waf", "other",
                  "sg")
    add(acct[others], others, "CONTAINS")
    guarded = rows("compute", "db", "lb")
    for _ in range(2):
        add(guarded, picker.pick(acct[guarded], "sg"), "ATTACHED_TO")
    sgs = rows("sg")
    rule_src = np.repeat(sgs, 3)
    add(rule_src, picker.pick(acct[rule_src], "sg"), "SECURITY_GROUP_RULE")
    world_sgs = sgs[rng.random(len(sgs)) < 0.06]
    lbs = rows("lb")
    lb_src = np.repeat(lbs, 5)
    add(lb_src, picker.pick(acct[lb_src], "compute"), "LOAD_BALANCER_TARGET")
    wafs = rows("waf")
    add(wafs, picker.pick(acct[wafs], "lb"), "PROTECTS")
    workloads = rows("compute", "function")
    add(workloads, picker.pick(acct[workloads], "role"), "ASSUMES_ROLE")
    add(workloads, picker.pick(acct[workloads], "logs", favourite=0.3), "LOGS_TO")
    some = workloads[rng.random(len(workloads)) < 0.4]
    add(some, picker.pick(acct[some], "image"), "USES_IMAGE")
    roles = rows("role")
    add(roles, picker.pick(acct[roles], "policy"), "IAM_POLICY_ATTACHMENT")
    for target in ("bucket", "bucket", "db", "secret", "key", "bucket"):
        add(roles, picker.pick(acct[roles], target), "GRANTS_ACCESS")
    encrypted = rows("bucket", "db", "secret")
    add(encrypted, picker.pick(acct[encrypted], "key", favourite=0.5), "REFERENCES")
    # an organisation-wide key (backups / log archive) that 5% of all stores also use
    org_key = rows("key")[:1]
    if len(org_key):
        shared = encrypted[rng.random(len(encrypted)) < 0.05]
        add(shared, np.full(len(shared), org_key[0]), "REFERENCES")
    fns = rows("function")
    add(fns, picker.pick(acct[fns], "secret"), "REFERENCES")
    caller = fns[rng.random(len(fns)) < 0.4]
    add(caller, picker.pick(acct[caller], "function"), "INVOKES")
    trusting = roles[rng.random(len(roles)) < 0.05]
    other_acct = (acct[trusting] + 1 + rng.integers(0, max(1, n_acct - 1),
                                                    size=len(trusting))) % n_acct
    add(trusting, picker.pick(other_acct, "role"), "IAM_TRUST")
    monitors = rows("other")[:n_acct]
    add(monitors, accounts[: len(monitors)], "MONITORS")

    src = np.concatenate(src_parts)
    dst = np.concatenate(dst_parts)
    etypes = np.concatenate(type_parts)
    m = len(src)
    source_ids = ids[src]
    target_ids = ids[dst]
    # world-open rules: extra edges to 0.0.0.0/0
    w_src = world_sgs
    world_ids = np.full(len(w_src), "0.0.0.0/0", dtype=object)
    source_ids = np.concatenate([source_ids, ids[w_src]])
    target_ids = np.concatenate([target_ids, world_ids])
    etypes = np.concatenate([etypes, np.full(len(w_src), "SECURITY_GROUP_RULE", dtype=object)])
    total = len(source_ids)
    is_rule = etypes == "SECURITY_GROUP_RULE"
    ports: list[Any] = [None] * total
    port_pick = _RULE_PORTS[rng.integers(0, len(_RULE_PORTS), size=total)]
    for i in np.flatnonzero(is_rule):
        ports[i] = [int(port_pick[i])]
    direction = np.where(is_rule, "ingress", _NONE).astype(object)
    protocol = np.where(is_rule, "tcp", _NONE).astype(object)
    cidr = np.full(total, None, dtype=object)
    cidr[m:] = "0.0.0.0/0"
    nothing = np.full(total, None, dtype=object)
    edges = pd.DataFrame({
        "id": _obj([f"e{i:07d}" for i in range(total)]), "source_id": _obj(source_ids),
        "target_id": _obj(target_ids), "edge_type": _obj(etypes), "relationship": _obj(nothing),
        "properties": _obj(nothing), "description": _obj(nothing), "ports": _obj(ports),
        "port_range": _obj(nothing), "protocol": _obj(protocol), "cidr": _obj(cidr),
        "direction": _obj(direction),
    })

    n_find = int(n * 0.3)
    f_rows = rng.integers(n_acct, n, size=n_find)
    sev = _SEVERITIES[rng.choice(5, size=n_find, p=[0.05, 0.2, 0.4, 0.25, 0.1])]
    res_ids = ids[f_rows].copy()
    orphan = rng.random(n_find) < 0.005
    res_ids[orphan] = [f"missing-{i}" for i in np.flatnonzero(orphan)]
    tools = _TOOLS[rng.integers(0, len(_TOOLS), size=n_find)]
    cvss = np.where(rng.random(n_find) < 0.2, np.round(rng.uniform(3.0, 10.0, n_find), 1),
                    np.nan)
    suppressed = rng.random(n_find) < 0.02
    fw = [[_FRAMEWORKS[k % 3]] for k in rng.integers(0, 3, size=n_find)]
    fids = np.array([f"f{i:07d}" for i in range(n_find)], dtype=object)
    none_f = np.full(n_find, None, dtype=object)
    findings = pd.DataFrame({
        "id": _obj(fids), "resource_id": _obj(res_ids),
        "resource_arn": _obj(np.where(orphan, _NONE, arns[f_rows])),
        "severity": _obj(sev),
        "title": _obj([f"{t} check {k % 97}" for t, k in zip(tools, range(n_find),
                                                              strict=True)]),
        "description": _obj(none_f), "evidence": _obj(none_f), "remediation": _obj(none_f),
        "source_tool": _obj(tools), "source_finding_id": _obj(fids.copy()),
        "compliance_frameworks": _obj(fw), "cvss_score": cvss,
        "detected_at": _obj(np.full(n_find, _T0, dtype=object)), "is_suppressed": suppressed,
        "suppression_reason": _obj(np.where(suppressed, "accepted risk", _NONE)),
    })
    findings["risk_score"] = risk_scores(findings["severity"], findings["cvss_score"])
    comp_rows = []
    for fwk in _FRAMEWORKS:
        for k in range(40):
            status = ("FAIL", "PASS", "PASS", "MANUAL", "NOT_APPLICABLE")[k % 5]
            comp_rows.append({"framework": fwk, "control_id": f"{k + 1}.{k % 7}",
                              "control_title": f"{fwk} control {k + 1}", "status": status,
                              "finding_ids": [str(fids[(k * 31) % max(1, n_find)])]
                              if status == "FAIL" and n_find else []})
    compliance = pd.DataFrame({c: _obj([r[c] for r in comp_rows]) for c in
                               ("framework", "control_id", "control_title", "status",
                                "finding_ids")})
    return Dataset(assets, edges, findings, compliance, normalize=False,
                   name=name or f"scaled-{n}", source=f"sample:scaled:{n}", kind="sample")
