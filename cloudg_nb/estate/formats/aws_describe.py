"""EC2 ``describe-*`` outputs (``Reservations``, ``SecurityGroups``, ``Subnets``, ``Vpcs``):
VPC contains subnet contains instance, VPC contains group, instance attached to its groups
and running as its instance profile; IpPermissions become rules. Regions come from ARNs or
availability zones (a VPC's from its subnets, a group's from its VPC). A record without its
id is skipped and reported by index (field ``Key[i]...``); terminated instances are not loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .aws_inventory import AwsInventory, region_of_zone, tags_of
from .json_values import text_of

__all__ = ["DESCRIBE_KEYS", "looks_like_aws_describe", "read_describe", "fill_regions"]

#: Top-level keys of the outputs this reader knows, in reading order.
DESCRIBE_KEYS = ("Vpcs", "Subnets", "SecurityGroups", "Reservations")
_GONE = {"terminated", "shutting-down"}


def looks_like_aws_describe(doc: Any) -> bool:
    return isinstance(doc, dict) and any(isinstance(doc.get(k), list) for k in DESCRIBE_KEYS)


def _region_of_arn(arn: str | None) -> str | None:
    parts = arn.split(":") if arn else []
    return parts[3] or None if len(parts) > 5 and parts[0] == "arn" else None


def _name(record: Mapping[str, Any], fallback: str | None = None) -> str | None:
    return tags_of(record.get("Tags")).get("Name") or fallback


class _Reader:
    """One describe-* document read into an inventory (record indexes run over the file)."""

    def __init__(self, inv: AwsInventory, file: str) -> None:
        self.inv = inv
        self.file = file
        self.index = -1
        self.gone = 0

    def _id(self, record: Any, key: str, where: str) -> str | None:
        self.index += 1
        if not isinstance(record, dict):
            self.inv.report.skip(self.index, where, "not a JSON object", file=self.file)
            return None
        rid = text_of(record.get(key))
        if rid is None:
            self.inv.report.skip(self.index, f"{where}.{key}", "missing: the record has no id",
                                 file=self.file)
        return rid

    def vpc(self, rec: dict[str, Any], vpc_id: str) -> None:
        meta = {k: v for k, v in (("cidr", text_of(rec.get("CidrBlock"))),
                                  ("state", text_of(rec.get("State"))),
                                  ("is_default", rec.get("IsDefault"))) if v is not None}
        self.inv.add_asset(vpc_id, raw_type="AWS::EC2::VPC", name=_name(rec), arn=None,
                           region=None, account_id=text_of(rec.get("OwnerId")),
                           tags=tags_of(rec.get("Tags")), metadata=meta)

    def subnet(self, rec: dict[str, Any], subnet_id: str) -> None:
        arn = text_of(rec.get("SubnetArn"))
        region = _region_of_arn(arn) or region_of_zone(rec.get("AvailabilityZone"))
        meta = {k: v for k, v in (("cidr", text_of(rec.get("CidrBlock"))),
                                  ("availability_zone", text_of(rec.get("AvailabilityZone"))),
                                  ("map_public_ip_on_launch", rec.get("MapPublicIpOnLaunch")))
                if v is not None}
        if self.inv.add_asset(subnet_id, raw_type="AWS::EC2::Subnet", name=_name(rec), arn=arn,
                              region=region, account_id=text_of(rec.get("OwnerId")),
                              tags=tags_of(rec.get("Tags")), metadata=meta):
            vpc = text_of(rec.get("VpcId"))
            if vpc:
                self.inv.relate(vpc, subnet_id, "CONTAINS", "vpc-subnet")

    def group(self, rec: dict[str, Any], group_id: str, where: str) -> None:
        arn = text_of(rec.get("SecurityGroupArn"))
        meta = {k: v for k, v in (("group_name", text_of(rec.get("GroupName"))),
                                  ("description", text_of(rec.get("Description"))))
                if v is not None}
        if not self.inv.add_asset(group_id, raw_type="AWS::EC2::SecurityGroup",
                                  name=_name(rec, text_of(rec.get("GroupName"))), arn=arn,
                                  region=_region_of_arn(arn),
                                  account_id=text_of(rec.get("OwnerId")),
                                  tags=tags_of(rec.get("Tags")), metadata=meta):
            return
        vpc = text_of(rec.get("VpcId"))
        if vpc:
            self.inv.relate(vpc, group_id, "CONTAINS", "vpc-security-group")
        self.inv.add_rules(group_id, rec.get("IpPermissions"), egress=False, index=self.index,
                           where=f"{where}.IpPermissions")
        self.inv.add_rules(group_id, rec.get("IpPermissionsEgress"), egress=True,
                           index=self.index, where=f"{where}.IpPermissionsEgress")

    def instance(self, rec: dict[str, Any], iid: str, owner: str | None, where: str) -> None:
        state = rec.get("State")
        state_name = text_of(state.get("Name")) if isinstance(state, dict) else None
        if (state_name or "").lower() in _GONE:
            self.gone += 1
            return
        placement = rec.get("Placement")
        zone = text_of(placement.get("AvailabilityZone")) if isinstance(placement, dict) \
            else None
        public_ip = text_of(rec.get("PublicIpAddress"))
        nics = rec.get("NetworkInterfaces")
        for nic in nics if isinstance(nics, list) else []:
            assoc = nic.get("Association") if isinstance(nic, dict) else None
            if public_ip is None and isinstance(assoc, dict):
                public_ip = text_of(assoc.get("PublicIp"))
        profile = rec.get("IamInstanceProfile")
        profile_arn = text_of(profile.get("Arn")) if isinstance(profile, dict) else None
        meta = {k: v for k, v in (
            ("instance_type", text_of(rec.get("InstanceType"))), ("state", state_name),
            ("availability_zone", zone), ("private_ip", text_of(rec.get("PrivateIpAddress"))),
            ("public_ip", public_ip), ("instance_profile", profile_arn)) if v is not None}
        if not self.inv.add_asset(iid, raw_type="AWS::EC2::Instance", name=_name(rec),
                                  arn=None, region=region_of_zone(zone), account_id=owner,
                                  tags=tags_of(rec.get("Tags")), metadata=meta):
            return
        self.inv.public_ip[iid] = public_ip is not None
        subnet, vpc = text_of(rec.get("SubnetId")), text_of(rec.get("VpcId"))
        if subnet:
            self.inv.relate(subnet, iid, "CONTAINS", "subnet-instance")
            if vpc:
                self.inv.relate(vpc, subnet, "CONTAINS", "vpc-subnet")
        elif vpc:
            self.inv.relate(vpc, iid, "CONTAINS", "vpc-instance")
        groups = rec.get("SecurityGroups")
        for k, grp in enumerate(groups if isinstance(groups, list) else []):
            gid = text_of(grp.get("GroupId")) if isinstance(grp, dict) else None
            if gid is None:
                self.inv.report.note(self.index, f"{where}.SecurityGroups[{k}]",
                                     "no GroupId; this attachment was not read")
                continue
            self.inv.attach(iid, gid)
        if profile_arn:
            self.inv.relate(iid, profile_arn, "ASSUMES_ROLE", "instance-profile")

    def read(self, doc: dict[str, Any]) -> None:
        report = self.inv.report
        for key in DESCRIBE_KEYS:
            listed = doc.get(key)
            if listed is None:
                continue
            if not isinstance(listed, list):
                self.index += 1
                report.skip(self.index, key, "not a list", file=self.file)
                continue
            if key != "Reservations":
                report.records += len(listed)
                id_key = {"Vpcs": "VpcId", "Subnets": "SubnetId",
                          "SecurityGroups": "GroupId"}[key]
                for i, rec in enumerate(listed):
                    rid = self._id(rec, id_key, f"{key}[{i}]")
                    if rid is None:
                        continue
                    if key == "Vpcs":
                        self.vpc(rec, rid)
                    elif key == "Subnets":
                        self.subnet(rec, rid)
                    else:
                        self.group(rec, rid, f"{key}[{i}]")
                continue
            for r, res in enumerate(listed):
                instances = res.get("Instances") if isinstance(res, dict) else None
                if not isinstance(instances, list):
                    self.index += 1
                    report.records += 1
                    report.skip(self.index, f"Reservations[{r}].Instances", "missing or not a "
                                "list", file=self.file)
                    continue
                owner = text_of(res.get("OwnerId"))
                report.records += len(instances)
                for i, rec in enumerate(instances):
                    where = f"Reservations[{r}].Instances[{i}]"
                    iid = self._id(rec, "InstanceId", where)
                    if iid is not None:
                        self.instance(rec, iid, owner, where)


def read_describe(doc: dict[str, Any], inv: AwsInventory, *, file: str) -> None:
    """Add the resources of one describe-* document (read from ``file``) to ``inv``."""
    reader = _Reader(inv, file)
    reader.read(doc)
    inv.gone += reader.gone
    if reader.gone:
        inv.report.warnings.append(
            f"{file}: {reader.gone} instances are terminated or shutting down; they are not "
            "loaded as assets")


def fill_regions(inv: AwsInventory) -> None:
    """After every file: a VPC takes its subnets' region, a group its VPC's."""
    contains = [(e["source_id"], e["target_id"]) for e in inv.edges.values()
                if e["edge_type"] == "CONTAINS"]
    for _ in range(2):
        for parent, child in contains:
            child_region = inv.assets.get(child, {}).get("region")
            parent_region = inv.assets.get(parent, {}).get("region")
            if child_region and child_region != "global":
                inv.fill_region(parent, child_region)
            elif parent_region and parent_region != "global":
                inv.fill_region(child, parent_region)
