"""The AWS inventory both AWS readers build: ``AwsInventory`` collects assets (id = the AWS
resource id, ``AWS::…`` types mapped by ``resource_types``), relationship edges and
security-group rules (``0.0.0.0/0`` / ``::/0`` ones lead to the internet) and makes a Dataset.
A member without a public IP is attached with ``properties.public_ip = false``, which keeps
the internet from reaching it through that group; the load report names such members.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from ..dataset import Dataset
from ..frames import normalize_assets, normalize_edges
from .json_values import text_of
from .load_report import MAX_LISTED, LoadReport
from .resource_types import asset_type_of

__all__ = ["AwsInventory", "field_of", "region_of_zone", "tags_of"]

_WORLD = ("0.0.0.0/0", "::/0")
_PROTOCOLS = {"-1": "all", "6": "tcp", "17": "udp", "1": "icmp", "58": "icmpv6"}
_ZONE = re.compile(r"^([a-z]{2}(?:-gov|-iso[a-z]*)?-[a-z]+-\d+)")


def field_of(record: Mapping[str, Any], name: str) -> Any:
    """``record[name]`` in the CLI's spelling (``GroupId``) or Config's (``groupId``)."""
    if name in record:
        return record[name]
    return record.get(name[:1].lower() + name[1:])


def region_of_zone(zone: Any) -> str | None:
    """The region of an availability zone (``eu-west-1a`` → ``eu-west-1``), None if not one."""
    found = _ZONE.match(zone) if isinstance(zone, str) else None
    return found.group(1) if found else None


def tags_of(raw: Any) -> dict[str, str]:
    """Tags given as ``{"k": "v"}`` (Config) or ``[{"Key": k, "Value": v}]`` (the CLI)."""
    if isinstance(raw, dict):
        return {str(k): str(v) for k, v in raw.items() if text_of(v) is not None or v == ""}
    tags: dict[str, str] = {}
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict):
            key = text_of(field_of(item, "Key"))
            if key is not None:
                tags[key] = str(field_of(item, "Value") or "")
    return tags


def _items(permission: Mapping[str, Any], names: Iterable[str], key: str) -> list[str]:
    """The peers of one permission listed under ``names`` (objects holding ``key``, or
    plain strings as Config's ``ipRanges`` holds them)."""
    out: list[str] = []
    for name in names:
        listed = field_of(permission, name)
        for item in listed if isinstance(listed, list) else []:
            value = text_of(field_of(item, key)) if isinstance(item, dict) else text_of(item)
            if value is not None and value not in out:
                out.append(value)
    return out


class AwsInventory:
    """Assets and edges read so far from one or more AWS inventory files."""

    def __init__(self, report: LoadReport) -> None:
        self.report = report
        self.assets: dict[str, dict[str, Any]] = {}
        self.edges: dict[str, dict[str, Any]] = {}
        self._seen_at: dict[str, str] = {}
        self._attachments: set[tuple[str, str]] = set()
        #: Per host (instance, network interface): whether it has a public IP address.
        self.public_ip: dict[str, bool] = {}
        self._world_rules: dict[str, list[str]] = {}
        self._names: set[str] = set()
        #: Records of deleted or terminated resources (read, not loaded as assets).
        self.gone = 0

    # -- assets ------------------------------------------------------------------------

    def add_asset(self, asset_id: str, *, raw_type: str, name: str | None, arn: str | None,
                  region: str | None, account_id: str | None, tags: dict[str, str],
                  metadata: dict[str, Any], seen_at: str | None = None) -> bool:
        """Add a resource; a second record of the same id is merged (the newest ``seen_at``
        kept, else the first) and counted. True when this record's values were kept."""
        old = self.assets.get(asset_id)
        if old is not None:
            self.report.duplicates_merged += 1
            if not seen_at or seen_at <= self._seen_at.get(asset_id, ""):
                return False
        meta = {"original_type": raw_type, **metadata}
        self.assets[asset_id] = {
            "id": asset_id, "name": name or asset_id,
            "asset_type": asset_type_of(raw_type, "AWS") or "OTHER", "provider": "AWS",
            "arn": arn, "region": region or "global", "account_id": account_id,
            "tags": tags, "metadata": meta}
        if seen_at:
            self._seen_at[asset_id] = seen_at
        if account_id and f"account:{account_id}" not in self.assets:
            self.assets[f"account:{account_id}"] = {
                "id": f"account:{account_id}", "name": account_id,
                "asset_type": "CLOUD_ACCOUNT", "provider": "AWS", "arn": None,
                "region": "global", "account_id": account_id, "tags": {}, "metadata": {}}
        return True

    def named(self, name: str) -> str:
        """A reference to the resource called ``name`` (a relationship that gives no id);
        it becomes that asset's id when exactly one loaded asset has the name."""
        self._names.add(name)
        return name

    def _resolve_names(self) -> None:
        if not self._names:
            return
        ids: dict[str, list[str]] = {}
        for asset in self.assets.values():
            if asset["name"] in self._names and asset["name"] not in self.assets:
                ids.setdefault(asset["name"], []).append(asset["id"])
        unique = {name: found[0] for name, found in ids.items() if len(found) == 1}
        if not unique:
            return
        edges: dict[str, dict[str, Any]] = {}
        for edge in self.edges.values():
            src = unique.get(edge["source_id"], edge["source_id"])
            dst = unique.get(edge["target_id"], edge["target_id"])
            if (src, dst) != (edge["source_id"], edge["target_id"]):
                edge = {**edge, "source_id": src, "target_id": dst,
                        "id": f"{edge['edge_type'].lower()}:{src}->{dst}"}
            edges.setdefault(edge["id"], edge)
        self.edges = edges
        self._attachments = {(unique.get(m, m), unique.get(g, g))
                             for m, g in self._attachments}

    def fill_region(self, asset_id: str, region: str | None) -> None:
        """Set the region of an asset loaded without one (a VPC from its subnets)."""
        asset = self.assets.get(asset_id)
        if asset is not None and region and asset["region"] == "global":
            asset["region"] = region

    # -- edges -------------------------------------------------------------------------

    def relate(self, source: str, target: str, edge_type: str, relationship: str | None,
               *, properties: dict[str, Any] | None = None,
               description: str | None = None) -> None:
        """One relationship edge (the same source, target and type once)."""
        edge_id = f"{edge_type.lower()}:{source}->{target}"
        if edge_id in self.edges:
            return
        self.edges[edge_id] = {
            "id": edge_id, "source_id": source, "target_id": target, "edge_type": edge_type,
            "relationship": relationship, "properties": properties or {},
            "description": description}

    def attach(self, member: str, group: str) -> None:
        """``member`` uses security group ``group`` (whether it has a public IP is looked up
        in ``public_ip`` when the dataset is built, as the member may come later)."""
        self._attachments.add((member, group))

    def add_rules(self, group: str, permissions: Any, *, egress: bool, where: str,
                  index: int) -> None:
        """SECURITY_GROUP_RULE edges for each peer of each permission of ``group``."""
        if permissions is None:
            return
        if not isinstance(permissions, list):
            self.report.note(index, where, "not a list of rules; the group's rules were not "
                                           "read")
            return
        direction = "egress" if egress else "ingress"
        for k, perm in enumerate(permissions):
            if not isinstance(perm, dict):
                self.report.note(index, f"{where}[{k}]", "not a rule object; not read")
                continue
            raw = text_of(field_of(perm, "IpProtocol"))
            if raw is None:
                self.report.note(index, f"{where}[{k}].IpProtocol", "missing; rule not read")
                continue
            protocol = _PROTOCOLS.get(raw.lower(), raw.lower())
            ports, port_range = self._ports(perm, protocol)
            peers: list[tuple[str, str | None]] = [
                (c, c) for c in _items(perm, ("IpRanges", "Ipv4Ranges"), "CidrIp")]
            peers += [(c, c) for c in _items(perm, ("Ipv6Ranges",), "CidrIpv6")]
            peers += [(g, None) for g in _items(perm, ("UserIdGroupPairs",), "GroupId")]
            peers += [(p, None) for p in _items(perm, ("PrefixListIds",), "PrefixListId")]
            for peer, cidr in peers:
                span = "all" if protocol == "all" else port_range or ",".join(map(str, ports))
                edge_id = f"rule:{group}:{direction}:{protocol}:{span}:{peer}"
                if edge_id in self.edges:
                    continue
                what = f"{protocol} {span or ''}".strip()
                self.edges[edge_id] = {
                    "id": edge_id, "source_id": group, "target_id": peer,
                    "edge_type": "SECURITY_GROUP_RULE", "relationship": f"allows-{direction}",
                    "properties": {}, "ports": ports or None, "port_range": port_range,
                    "protocol": protocol, "cidr": cidr, "direction": direction,
                    "description": f"{direction} {what} {'from' if not egress else 'to'} "
                                   f"{peer}"}
                if not egress and peer in _WORLD:
                    self._world_rules.setdefault(group, []).append(f"{what} from {peer}")

    @staticmethod
    def _ports(perm: Mapping[str, Any], protocol: str) -> tuple[list[int], str | None]:
        if protocol in ("all", "icmp", "icmpv6"):
            return [], "0-65535" if protocol == "all" else None
        lo, hi = field_of(perm, "FromPort"), field_of(perm, "ToPort")
        if not isinstance(lo, int) or not isinstance(hi, int) or isinstance(lo, bool):
            return [], None
        if lo == -1 or (lo <= 0 and hi >= 65535):
            return [], "0-65535"
        return ([lo], None) if lo == hi else ([], f"{lo}-{hi}")

    # -- the dataset -------------------------------------------------------------------

    def _attachment_edges(self) -> None:
        unreached: list[str] = []
        for member, group in sorted(self._attachments):
            public_ip = self.public_ip.get(member)
            props: dict[str, Any] = {}
            description = None
            if public_ip is not None:
                props["public_ip"] = public_ip
            if public_ip is False and group in self._world_rules:
                description = (f"{member} has no public IP: the rules of {group} open to the "
                               "internet do not reach it from there")
                unreached.append(f"{member} ({group}: "
                                 f"{'; '.join(self._world_rules[group][:3])})")
            self.relate(member, group, "ATTACHED_TO", "uses-security-group",
                        properties=props, description=description)
        if unreached:
            listed = ", ".join(unreached[:MAX_LISTED])
            more = f" and {len(unreached) - MAX_LISTED} more" if len(unreached) > MAX_LISTED \
                else ""
            self.report.warnings.append(
                f"{len(unreached)} resources without a public IP use security groups open to "
                f"the internet; they are not counted as internet-exposed: {listed}{more}")

    def dataset(self, *, name: str, file: str, kind: str) -> Dataset:
        """The Dataset of everything added; ``load_report`` explains the counts."""
        self._resolve_names()
        self._attachment_edges()
        assets = normalize_assets(pd.DataFrame(list(self.assets.values())), source=file)
        edges = normalize_edges(pd.DataFrame(list(self.edges.values())), source=file)
        report = self.report
        resources = sum(1 for a in self.assets if not a.startswith("account:"))
        relationships = sum(1 for e in self.edges.values()
                            if e["edge_type"] != "SECURITY_GROUP_RULE")
        rules = len(self.edges) - relationships
        world = sum(len(v) for v in self._world_rules.values())
        report.explanation = (
            f"{report.records} records read: {report.skipped_count} skipped, "
            f"{report.duplicates_merged} duplicates merged, {self.gone} deleted or terminated "
            f"resources not loaded; {resources} resources (plus "
            f"{len(self.assets) - resources} accounts), {relationships} relationships and "
            f"{rules} security-group rules ({world} open to the internet) loaded")
        ds = Dataset(assets, edges, None, None, normalize=False, name=name, source=file,
                     kind=kind)
        out = report.to_dict()
        out["loaded_records"] -= self.gone
        ds.load_report = {**out, "deleted_or_terminated": self.gone, "resources": resources,
                          "relationships": relationships, "security_group_rules": rules,
                          "rules_open_to_internet": world}
        return ds
