"""Internet exposure and cross-account reach: ``internet_exposure`` lists entry points
(flagged assets, INTERNET_EXPOSED edges — real or derived from findings — and resources
behind groups admitting 0.0.0.0/0, unless attached without a public IP) with ports,
protocols, sources, deriving findings and WAF protection; ``cross_account_edges`` lists
edges between accounts, marking external ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from .dataset import Dataset
from .finding_exposure import derived_rows
from .graph import EDGE_CODE, bfs
from .inventory import endpoint_account
from .models import SENSITIVE_PORTS, AssetType, EdgeType, parse_enum_list
from .progress_callbacks import Phases, ProgressFn
from .query_results import QueryResult
from .traversal import port_table

__all__ = ["internet_exposure", "cross_account_edges", "exposure_levels", "estate_accounts"]

_RULE_CODES = [EDGE_CODE["SECURITY_GROUP_RULE"], EDGE_CODE["NACL_RULE"]]
_CONTROLS = {AssetType.SECURITY_GROUP.value, AssetType.NSG.value}


def _world_rules(ds: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """(edge rows, owner node) of ingress rule edges admitting the internet."""
    g = ds.graph()
    rule = np.isin(g.edge_code, _RULE_CODES) & ~g.edge_egress
    cidr = ds.edges["cidr"].astype(str).isin(["0.0.0.0/0", "::/0"]).to_numpy()
    touches = (g.edge_src == g.internet) | (g.edge_dst == g.internet) | cidr
    rows = np.flatnonzero(rule & touches)
    owner = np.where(g.edge_src[rows] == g.internet, g.edge_dst[rows], g.edge_src[rows])
    return rows, owner


class _EdgeFacts:
    """The port spans, protocol, source range and deriving finding of each edge row, read
    once per call (per-entry-point column reads made a scan with 24k exposures take 40 s)."""

    def __init__(self, ds: Dataset) -> None:
        pt = port_table(ds)
        self.spans: dict[int, list[tuple[int, int]]] = {}
        for r, lo, hi in zip(pt["row"].tolist(), pt["lo"].tolist(), pt["hi"].tolist(),
                             strict=True):
            self.spans.setdefault(r, []).append((lo, hi))
        e = ds.edges
        self.protocol = e["protocol"].to_numpy(dtype=object)
        self.cidr = e["cidr"].to_numpy(dtype=object)
        self.properties = e["properties"].to_numpy(dtype=object)

    def ports_of(self, rows: list[int]) -> list[tuple[int, int]]:
        return sorted({span for r in rows for span in self.spans.get(r, ())})

    def details(self, rows: list[int]) -> tuple[list[str], list[str], list[str]]:
        """(protocols, source ranges, findings derived from) of edge ``rows``."""
        protocols = sorted({str(p) for p in self.protocol[rows] if isinstance(p, str) and p})
        sources = sorted({str(c) for c in self.cidr[rows] if isinstance(c, str) and c})
        found = [str(p["derived_from_finding"]) for p in self.properties[rows]
                 if isinstance(p, dict) and p.get("derived_from_finding")]
        return protocols, sources, list(dict.fromkeys(found))


def _port_summary(spans: list[tuple[int, int]]) -> tuple[list[int], list[int], bool]:
    """(single ports, sensitive ports covered, all_ports)."""
    singles = sorted({lo for lo, hi in spans if lo == hi})
    all_ports = any(lo <= 0 and hi >= 65535 for lo, hi in spans)
    sensitive = sorted({p for p in SENSITIVE_PORTS for lo, hi in spans if lo <= p <= hi})
    return singles, sensitive, all_ports


def internet_exposure(
    ds: Dataset, *, sensitive_only: bool = False, progress: ProgressFn | None = None
) -> QueryResult:
    """Internet entry points, most sensitive first.

    Items: id, name, type, provider, account_id, exposure (direct | security_group |
    both | finding: only derived from findings), via (rule-owning groups), open_ports,
    sensitive_ports, all_ports, protocols, sources (CIDRs), derived_from (finding ids),
    waf_protected, protected_by, open_findings, max_severity. Summary: counts, the
    number of assets reachable from the internet over the flow view, and
    ``without_public_ip`` (members of open groups left out for want of a public IP).
    """
    ph = Phases(progress)
    ph.step(0, "collecting internet rules")
    g = ds.graph(ph.sub(1, 20))
    n = g.n_assets
    rule_rows, owners = _world_rules(ds)
    asset_owner = owners < n
    rule_rows, owners = rule_rows[asset_owner], owners[asset_owner]
    ph.step(30, "finding resources behind open rules")
    att = np.flatnonzero((g.edge_code == EDGE_CODE["ATTACHED_TO"]) & ~g.edge_no_public_ip)
    a_src, a_dst = g.edge_src[att], g.edge_dst[att]
    owner_set = set(owners.tolist())
    unaddressed = np.flatnonzero((g.edge_code == EDGE_CODE["ATTACHED_TO"]) & g.edge_no_public_ip)
    without_public_ip = {int(s) for s, d in zip(g.edge_src[unaddressed].tolist(),
                                                g.edge_dst[unaddressed].tolist(), strict=True)
                         if d in owner_set and s < n}
    behind: dict[int, set[int]] = {}
    for s, d in zip(a_src.tolist(), a_dst.tolist(), strict=True):
        if d in owner_set and s < n:
            behind.setdefault(s, set()).add(d)
        elif s in owner_set and d < n:
            behind.setdefault(d, set()).add(s)
    rules_of: dict[int, list[int]] = {}
    for r, o in zip(rule_rows.tolist(), owners.tolist(), strict=True):
        rules_of.setdefault(o, []).append(r)
    direct = set(np.flatnonzero(g.is_exposed[:n]).tolist())
    exp_rows = np.flatnonzero(g.edge_code == EDGE_CODE["INTERNET_EXPOSED"])
    derived = derived_rows(ds.edges).to_numpy(dtype=bool)
    by_finding: set[int] = set()
    for r in exp_rows.tolist():
        end = g.edge_dst[r] if g.edge_src[r] == g.internet else g.edge_src[r]
        if end < n:
            (by_finding if derived[r] else direct).add(int(end))
    exposed_owners_with_resources = {o for groups in behind.values() for o in groups}
    lonely_owners = owner_set - exposed_owners_with_resources
    ph.step(50, "checking WAF protection")
    prot = np.flatnonzero(g.edge_code == EDGE_CODE["PROTECTS"])
    types = ds.assets["asset_type"].to_numpy(dtype=object)
    names = ds.assets["name"].to_numpy(dtype=object)
    protected_by: dict[int, list[str]] = {}
    for r in prot.tolist():
        s, d = int(g.edge_src[r]), int(g.edge_dst[r])
        if d < n and s < n and types[s] == AssetType.WAF.value:
            protected_by.setdefault(d, []).append(str(names[s]))
    # exposure via own INTERNET_EXPOSED edge ports
    exp_ports_rows: dict[int, list[int]] = {}
    for r in exp_rows.tolist():
        end = int(g.edge_dst[r] if g.edge_src[r] == g.internet else g.edge_src[r])
        exp_ports_rows.setdefault(end, []).append(r)
    candidates = sorted(direct | by_finding | set(behind) | lonely_owners)
    facts = _EdgeFacts(ds)
    records: list[dict[str, Any]] = []
    for k, node in enumerate(candidates):
        if not k % 256:
            ph.check()
        groups = sorted(behind.get(node, set()) | ({node} if node in lonely_owners else set()))
        rows = [r for o in groups for r in rules_of.get(o, [])]
        rows += exp_ports_rows.get(node, [])
        singles, sensitive, all_ports = _port_summary(facts.ports_of(rows))
        protocols, sources, found = facts.details(rows)
        in_direct = node in direct
        via_rules = bool(groups)
        records.append({
            "node": node,
            "exposure": "both" if in_direct and via_rules else
            "direct" if in_direct else "security_group" if via_rules else "finding",
            "via": [str(names[o]) for o in groups if o != node],
            "open_ports": singles, "sensitive_ports": sensitive, "all_ports": all_ports,
            "protocols": protocols, "sources": sources, "derived_from": found,
            "waf_protected": node in protected_by, "protected_by": protected_by.get(node, []),
        })
    ph.step(70, "measuring reach")
    reach = bfs(ds.view("flow"), [g.internet])
    reachable = int((reach.dist[:n] > 0).sum())
    if records:
        nodes = np.array([r["node"] for r in records], dtype=np.int64)
        briefs = ds.briefs(nodes)
        frame = pd.DataFrame(records).drop(columns="node")
        items = pd.concat([briefs[["id", "name", "type", "provider", "account_id"]], frame,
                           briefs[["open_findings", "max_severity"]]], axis=1)
    else:
        items = pd.DataFrame(columns=["id", "name", "type", "provider", "account_id",
                                      "exposure", "via", "open_ports", "sensitive_ports",
                                      "all_ports", "protocols", "sources", "derived_from",
                                      "waf_protected", "protected_by",
                                      "open_findings", "max_severity"])
    if sensitive_only and len(items):
        items = items[(items["sensitive_ports"].map(len) > 0) | items["all_ports"].astype(bool)]
    if len(items):
        key = items["sensitive_ports"].map(len) + items["all_ports"].astype(int) * 100
        items = items.assign(_k=-key).sort_values(["_k", "name", "id"], kind="stable") \
            .drop(columns="_k").reset_index(drop=True)
    ph.done()
    summary = {
        "exposed_assets": len(items),
        "with_sensitive_ports": int((items["sensitive_ports"].map(len) > 0).sum())
        if len(items) else 0,
        "waf_protected": int(items["waf_protected"].sum()) if len(items) else 0,
        "unprotected": int((~items["waf_protected"].astype(bool)).sum()) if len(items) else 0,
        "open_world_rules": len(rule_rows),
        "without_public_ip": len(without_public_ip),
        "derived_from_findings": int(derived[exp_rows].sum()) if len(exp_rows) else 0,
        "reachable_from_internet": reachable,
        "sensitive_ports_checked": list(SENSITIVE_PORTS),
    }
    return QueryResult(summary, items)


def exposure_levels(ds: Dataset, hops: int = 2) -> np.ndarray:
    """Per asset row: True when within ``hops`` flow hops of the internet (cached)."""

    def build() -> np.ndarray:
        g = ds.graph()
        reach = bfs(ds.view("flow"), [g.internet], hops)
        return reach.dist[: g.n_assets] > 0

    return ds.cached(f"exposure:{hops}", build, label="exposure")


def estate_accounts(ds: Dataset) -> set[str]:
    """Accounts of the estate itself (not CLOUD_ACCOUNT assets marked external)."""
    a = ds.assets
    accts = {str(x) for x in a["account_id"].dropna().unique()}
    acct_rows = a[a["asset_type"] == AssetType.CLOUD_ACCOUNT.value]
    external = {str(acct) for acct, meta in zip(acct_rows["account_id"], acct_rows["metadata"],
                                                strict=False)
                if isinstance(meta, dict) and meta.get("external")}
    return accts - external


def cross_account_edges(
    ds: Dataset,
    *,
    account_id: str | None = None,
    edge_types: Iterable[str] | str | None = None,
    external_only: bool = False,
) -> pd.DataFrame:
    """Edges joining two different accounts: edge fields plus source/target account and
    names, and ``external`` (an end outside the estate's own accounts)."""
    types = parse_enum_list(EdgeType, edge_types, field="edge_types")
    g = ds.graph()
    table = ds.node_table()
    node_acct = table["account_id"].to_numpy(dtype=object).copy()
    for node in range(g.n_assets + 1, g.n_nodes):
        node_acct[node] = endpoint_account(ds, node)
    sa = node_acct[g.edge_src]
    ta = node_acct[g.edge_dst]
    known = ~(pd.isna(pd.Series(sa, dtype=object)).to_numpy()
              | pd.isna(pd.Series(ta, dtype=object)).to_numpy())
    diff = known & (sa != ta)
    if types:
        diff &= ds.edges["edge_type"].isin([t.value for t in types]).to_numpy()
    if account_id:
        diff &= (sa == str(account_id)) | (ta == str(account_id))
    rows = np.flatnonzero(diff)
    own = estate_accounts(ds)
    names = table["name"].to_numpy(dtype=object)
    e = ds.edges.iloc[rows]
    out = pd.DataFrame({
        "id": e["id"].to_numpy(dtype=object), "edge_type": e["edge_type"].to_numpy(dtype=object),
        "source_id": e["source_id"].to_numpy(dtype=object),
        "source_name": names[g.edge_src[rows]], "source_account": sa[rows],
        "target_id": e["target_id"].to_numpy(dtype=object),
        "target_name": names[g.edge_dst[rows]], "target_account": ta[rows],
        "relationship": e["relationship"].to_numpy(dtype=object),
    })
    out["external"] = [s not in own or t not in own
                       for s, t in zip(out["source_account"], out["target_account"],
                                       strict=True)]
    if external_only:
        out = out[out["external"]].reset_index(drop=True)
    return out.reset_index(drop=True)
