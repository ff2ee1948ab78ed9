"""Internet exposure derived from scanner findings, for datasets without relationships.

``exposure_of_check`` reads one failing check (its id, title, categories) the way Prowler
names them (``ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22``,
``compute_firewall_rdp_access_from_the_internet_allowed``, ``s3_bucket_public_access``,
category ``internet-exposed`` ...) and says what it exposes. ``exposure_edges`` turns the
findings that say so into INTERNET_EXPOSED edges from ``internet`` to the finding's asset,
each naming the finding it is derived from (``properties.derived_from_finding``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

__all__ = ["FindingExposure", "exposure_of_check", "exposure_edges", "derived_rows",
           "relationship_note", "DERIVED_RELATIONSHIP"]

#: ``relationship`` of every edge derived from a finding (real relationships never use it).
DERIVED_RELATIONSHIP = "derived-from-finding"

#: Service names in check ids / titles → their well-known ports.
_SERVICE_PORTS: dict[str, tuple[int, ...]] = {
    "ssh": (22,), "rdp": (3389,), "telnet": (23,), "ftp": (20, 21), "mysql": (3306,),
    "postgres": (5432,), "postgresql": (5432,), "mssql": (1433,), "sqlserver": (1433,),
    "mongodb": (27017,), "redis": (6379,), "memcached": (11211,), "kafka": (9092,),
    "elasticsearch": (9200, 9300), "kibana": (5601,), "ldap": (389,), "oracle": (1521,),
    "cassandra": (7199, 9042, 9160, 8888), "kerberos": (88,), "smb": (445,), "cifs": (445,),
    "vnc": (5900,), "dns": (53,), "http": (80,), "https": (443,), "winrm": (5985, 5986),
}
#: Prowler's "high risk TCP ports" check names no ports in its id; these are its list.
_HIGH_RISK_TCP = (25, 110, 135, 143, 445, 3000, 4333, 5000, 5500, 8080, 8088)

_NETWORK_ID = re.compile(
    r"from_(the_)?internet|internet_access|to_(the_)?internet|exposed_to_(the_)?internet|"
    r"internet_facing|internet_exposed|0_0_0_0|unrestricted_(inbound|ingress)|inbound_access|"
    r"networkacl_allow_ingress|"
    r"_from_anywhere|open_to_(the_)?world")
_PUBLIC_ID = re.compile(
    r"public_access|publicly_acc|public_ip|(^|_)public($|_)|public_network|public_list|"
    r"public_write|public_read|anonymous")
#: Checks that name public access without meaning the resource is reachable: a missing
#: block-public-access setting, defaults of new subnets, private/public separation, launch
#: templates (no running resource) ...
_NOT_EXPOSURE_ID = re.compile(
    r"access_block|block_public|by_default|separate|_private_|launch_template")
_TITLE = re.compile(
    r"0\.0\.0\.0/0|::/0|from the internet|internet[- ]facing|publicly accessible|"
    r"public (read |write |read or write )?access|exposed to (the )?internet|"
    r"open to (the )?(world|internet)|public ip|anonymous(ly)? access|"
    r"unrestricted (incoming|inbound|ingress|access)", re.IGNORECASE)
#: ("should block public read access" is an exposure; "block public access" is a setting.)
_NOT_EXPOSURE_TITLE = re.compile(r"public access block|block public access", re.IGNORECASE)
_TITLE_PORT = re.compile(r"\bports?\s+(\d{1,5})(?:\s*(?:-|to)\s*(\d{1,5}))?", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+", re.IGNORECASE)
_STORAGE = re.compile(r"bucket|blob|storage|container|s3_|cloudstorage", re.IGNORECASE)
_COPYABLE = re.compile(r"snapshot|(^|_)ami(_|$)|image", re.IGNORECASE)
_CATEGORIES = {"internet-exposed", "internet_exposed", "internet exposed"}


@dataclass(frozen=True)
class FindingExposure:
    """What one failing check exposes to the internet.

    ``kind``: ``port`` (ports/protocol open to ``source``), ``public_storage`` (a bucket,
    container or storage account readable by anyone), ``public_resource`` (a snapshot or
    image anyone can copy) or ``public_endpoint`` (reachable, ports not named).
    ``basis``: what said so (``check``, ``category`` or ``title``).
    """

    kind: str
    ports: tuple[int, ...]
    all_ports: bool
    protocol: str | None
    source: str
    basis: str

    def describe(self) -> str:
        if self.all_ports:
            what = "every port" if self.protocol in (None, "all") else \
                f"every {self.protocol} port"
        elif self.ports:
            what = "port " + ", ".join(str(p) for p in self.ports)
            what += f"/{self.protocol}" if self.protocol else ""
        elif self.kind == "public_storage":
            what = "public storage"
        elif self.kind == "public_resource":
            what = "a public snapshot or image"
        else:
            what = f"a public {self.protocol} endpoint" if self.protocol else "a public endpoint"
        return f"{what} open to {self.source}"


def _ports_of_tokens(tokens: list[str]) -> tuple[tuple[int, ...], bool]:
    if ("all" in tokens or "any" in tokens) and ("ports" in tokens or "port" in tokens):
        return (), True
    if "high" in tokens and "risk" in tokens:
        return _HIGH_RISK_TCP, False
    numbers = [int(t) for t in tokens if t.isdigit() and 0 < int(t) <= 65535]
    if numbers:
        return tuple(dict.fromkeys(numbers)), False
    named = [p for t in tokens for p in _SERVICE_PORTS.get(t, ())]
    return tuple(dict.fromkeys(named)), False


def _ports_of_title(title: str) -> tuple[tuple[int, ...], bool]:
    low = title.lower()
    if re.search(r"\b(all|any) ports?\b", low):
        return (), True
    if "high risk" in low or "high-risk" in low:
        return _HIGH_RISK_TCP, False
    ports: list[int] = []
    for m in _TITLE_PORT.finditer(title):
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if 0 < lo <= hi <= 65535 and hi - lo < 16:
            ports.extend(range(lo, hi + 1))
    if ports:
        return tuple(dict.fromkeys(ports)), False
    words = [w.lower() for w in _WORD.findall(title)]
    named = [p for w in words if w not in ("http", "https") for p in _SERVICE_PORTS.get(w, ())]
    return tuple(dict.fromkeys(named)), False


def exposure_of_check(check_id: str | None, title: str | None = None,
                      categories: Sequence[str] = (), detail: str | None = None
                      ) -> FindingExposure | None:
    """What a *failing* check exposes to the internet, or None when it says nothing of it.

    The check id decides first (Prowler names the port and the service in it), then an
    ``internet-exposed`` category, then the title (``0.0.0.0/0``, ``::/0``, "from the
    internet", "publicly accessible" ...). ``detail`` (the scanner's status text) only
    refines the source range (``::/0`` when it names no IPv4 range).
    """
    exp = _exposure_of(str(check_id or "").strip().lower(), str(title or ""),
                       frozenset(str(c).strip().lower() for c in categories or ()))
    if exp is None or not detail or "::/0" not in detail or "0.0.0.0/0" in detail \
            or "0.0.0.0/0" in str(title or ""):
        return exp
    return replace(exp, source="::/0")


@functools.lru_cache(maxsize=4096)
def _exposure_of(cid: str, text: str, cats: frozenset[str]) -> FindingExposure | None:
    """``exposure_of_check`` without the detail (cached: scans repeat a few checks).

    Only a snake_case check id (Prowler's) is read for words and ports: a control id such as
    Security Hub's ``EC2.13`` names no port, so its title decides."""
    if "_" not in cid:
        cid = ""
    basis = None
    if cid and not _NOT_EXPOSURE_ID.search(cid) and (
            _NETWORK_ID.search(cid) or _PUBLIC_ID.search(cid)):
        basis = "check"
    elif cats & _CATEGORIES:
        basis = "category"
    elif text and _TITLE.search(text) and not _NOT_EXPOSURE_TITLE.search(text):
        basis = "title"
    if basis is None:
        return None
    tokens = [t for t in re.split(r"[^a-z0-9]+", cid) if t]
    ports, all_ports = _ports_of_tokens(tokens)
    if not ports and not all_ports and text:
        ports, all_ports = _ports_of_title(text)
    both = f"{cid} {text}".lower()
    protocol = "udp" if re.search(r"\budp\b|_udp_|_udp$|^udp_", both) else \
        "tcp" if ports or "tcp" in tokens else "all" if all_ports else None
    if ports or all_ports:
        kind = "port"
    elif _COPYABLE.search(cid or text):
        kind = "public_resource"
    elif _STORAGE.search(cid or text):
        kind, protocol = "public_storage", "https"
    else:
        kind = "public_endpoint"
    source = "::/0" if "::/0" in text and "0.0.0.0/0" not in text else "0.0.0.0/0"
    return FindingExposure(kind, ports, all_ports, protocol, source, basis)


def exposure_edges(findings: pd.DataFrame, asset_ids: Iterable[str],
                   categories: Mapping[str, Sequence[str]] | None = None) -> pd.DataFrame:
    """INTERNET_EXPOSED edges (edge frame columns) for the findings whose check says the
    resource is open to the internet, one per finding on an asset in ``asset_ids``.

    Reads ``source_finding_id`` (the check id), ``title`` and ``evidence`` of each finding
    and ``categories[finding id]`` when given. Edge id ``derived:<finding id>``.
    """
    known = set(asset_ids)
    cats = categories or {}
    rows: list[dict[str, Any]] = []
    for fid, rid, check, title, evidence in zip(
            findings["id"].tolist(), findings["resource_id"].tolist(),
            findings["source_finding_id"].tolist(), findings["title"].tolist(),
            findings["evidence"].tolist(), strict=True):
        if not isinstance(rid, str) or rid not in known:
            continue
        exp = exposure_of_check(check if isinstance(check, str) else None,
                                title if isinstance(title, str) else None,
                                cats.get(str(fid), ()),
                                evidence if isinstance(evidence, str) else None)
        if exp is None:
            continue
        rows.append({
            "id": f"derived:{fid}", "source_id": "internet", "target_id": rid,
            "edge_type": "INTERNET_EXPOSED", "relationship": DERIVED_RELATIONSHIP,
            "properties": {"derived_from_finding": str(fid), "check_id": check
                           if isinstance(check, str) else None, "exposure": exp.kind,
                           "basis": exp.basis},
            "description": f"Derived from finding {fid}: {exp.describe()}.",
            "ports": list(exp.ports) or None, "port_range": "0-65535" if exp.all_ports
            else None, "protocol": exp.protocol, "cidr": exp.source, "direction": "ingress",
        })
    return pd.DataFrame(rows)


def derived_rows(edges: pd.DataFrame) -> pd.Series:
    """Per edge: True when it was derived from a finding (not a real relationship)."""
    return edges["relationship"] == DERIVED_RELATIONSHIP


def relationship_note(edges: pd.DataFrame) -> str | None:
    """One line for graph answers when the dataset has no relationship data, else None."""
    if not len(edges):
        return ("This dataset has no relationship data (no edges, e.g. scanner output "
                "only), so graph answers are empty; load an inventory with relationships "
                "to walk the graph.")
    derived = int(derived_rows(edges).sum())
    if derived == len(edges):
        return (f"This dataset has no relationship data: its only edges are {derived} "
                "internet exposures derived from findings, so paths end at the exposed "
                "asset; load an inventory with relationships to see further.")
    return None
