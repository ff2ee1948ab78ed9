"""AWS Config items (configuration snapshots, ``select-resource-config`` ``Results`` given as
JSON text, ``batch-get-resource-config``): each item is a resource (id = resourceId), its
``relationships`` become edges (containment, attachment, roles, policies, keys) and a security
group's ``ipPermissions`` become rules. An item without resourceType or resourceId is skipped
and reported by index; deleted resources are not loaded (counted in a warning).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .aws_inventory import AwsInventory, tags_of
from .json_values import text_of
from .load_report import LoadReport

__all__ = ["config_items", "looks_like_aws_config", "read_config_items"]

_DELETED = {"resourcedeleted", "resourcedeletednotrecorded"}
_BALANCERS = {"aws::elasticloadbalancingv2::loadbalancer",
              "aws::elasticloadbalancing::loadbalancer"}
_HOSTS = {"aws::ec2::instance", "aws::ec2::networkinterface", "aws::rds::dbinstance",
          *_BALANCERS}
_SG = "aws::ec2::securitygroup"
_ROLE = "aws::iam::role"
_POLICIES = {"aws::iam::policy", "aws::iam::managedpolicy"}
_PRINCIPALS = {"aws::iam::role", "aws::iam::user", "aws::iam::group"}
_KEYS = {"aws::kms::key"}


def config_items(doc: Any) -> list[Any] | None:
    """The item list of a Config document, None when ``doc`` is not one."""
    if not isinstance(doc, dict):
        return None
    for key in ("configurationItems", "baseConfigurationItems"):
        if isinstance(doc.get(key), list):
            return doc[key]
    results = doc.get("Results")
    if isinstance(results, list) and ("QueryInfo" in doc or not results or any(
            _looks_like_item(r) for r in results[:5])):
        return results
    return None


def _looks_like_item(raw: Any) -> bool:
    if isinstance(raw, str):
        return '"resourceType"' in raw[:4096] or '"resourceId"' in raw[:4096]
    return isinstance(raw, dict) and ("resourceType" in raw or "resourceId" in raw)


def looks_like_aws_config(doc: Any) -> bool:
    return config_items(doc) is not None


def _json_object(value: Any) -> Any:
    """Config writes ``configuration`` as an object, or (batch-get, history) a JSON string."""
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            return json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return value
    return value


def _item(raw: Any, index: int, report: LoadReport, file: str) -> dict[str, Any] | None:
    if isinstance(raw, str):
        parsed = _json_object(raw)
        if not isinstance(parsed, dict):
            report.skip(index, "record", "not a JSON object (nor JSON text of one)", file=file)
            return None
        raw = parsed
    if not isinstance(raw, dict):
        report.skip(index, "record", "not a JSON object", file=file)
        return None
    rtype = text_of(raw.get("resourceType"))
    if rtype is None:
        report.skip(index, "resourceType", "missing: the item names no resource type",
                    file=file)
        return None
    rid = text_of(raw.get("resourceId"))
    if rid is None:
        report.skip(index, "resourceId", "missing: the item has no resource id", file=file)
        return None
    return raw


def _public_ip(rtype: str, cfg: Mapping[str, Any]) -> bool | None:
    """Whether the resource has a public address (None: not said by its configuration)."""
    if rtype == "aws::rds::dbinstance":
        flag = cfg.get("publiclyAccessible")
        return flag if isinstance(flag, bool) else None
    if rtype in _BALANCERS:
        scheme = text_of(cfg.get("scheme"))
        return None if scheme is None else scheme.lower() == "internet-facing"
    if rtype == "aws::ec2::networkinterface":
        assoc = cfg.get("association")
        return isinstance(assoc, dict) and text_of(assoc.get("publicIp")) is not None
    if text_of(cfg.get("publicIpAddress")) is not None:
        return True
    nics = cfg.get("networkInterfaces")
    return any(isinstance(n, dict) and isinstance(n.get("association"), dict)
               and text_of(n["association"].get("publicIp")) is not None
               for n in (nics if isinstance(nics, list) else []))


def _metadata(raw: Mapping[str, Any], cfg: Mapping[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for key, name in (("availabilityZone", "availability_zone"),
                      ("configurationItemCaptureTime", "captured_at"),
                      ("configurationItemStatus", "config_status")):
        value = text_of(raw.get(key))
        if value is not None:
            meta[name] = value
    for key, name in (("privateIpAddress", "private_ip"), ("publicIpAddress", "public_ip"),
                      ("instanceType", "instance_type"), ("cidrBlock", "cidr")):
        value = text_of(cfg.get(key))
        if value is not None:
            meta[name] = value
    state = cfg.get("state")
    if isinstance(state, dict) and text_of(state.get("name")):
        meta["state"] = text_of(state.get("name"))
    profile = cfg.get("iamInstanceProfile")
    if isinstance(profile, dict) and text_of(profile.get("arn")):
        meta["instance_profile"] = text_of(profile.get("arn"))
    return meta


def _name(item: Mapping[str, Any], rid: str, tags: Mapping[str, str]) -> str | None:
    """The resource name; an instance's Name tag when Config repeats the id as its name."""
    said = text_of(item.get("resourceName"))
    return tags.get("Name") or said if said in (None, rid) else said


def _relate(inv: AwsInventory, rid: str, rtype: str, rel: Any, index: int, k: int) -> None:
    """One Config relationship of item ``rid`` as an edge (see the module doc)."""
    where = f"relationships[{k}]"
    if not isinstance(rel, dict):
        inv.report.note(index, where, "not an object; this relationship was not read")
        return
    other = text_of(rel.get("resourceId"))
    if other is None and text_of(rel.get("resourceName")) is not None:
        other = inv.named(str(text_of(rel.get("resourceName"))))
    otype = (text_of(rel.get("resourceType")) or "").lower()
    said = text_of(rel.get("name")) or text_of(rel.get("relationshipName"))
    verb = (said or "").lower()
    if other is None or said is None:
        inv.report.note(index, where, "no related resource id or no relationship name; "
                                      "this relationship was not read")
        return
    if verb.startswith("is contained in"):
        inv.relate(other, rid, "CONTAINS", said)
    elif verb.startswith("contains"):
        inv.relate(rid, other, "CONTAINS", said)
    elif otype == _SG:
        inv.attach(rid, other)
    elif rtype == _SG:
        inv.attach(other, rid)
    elif otype == _ROLE and rtype not in _PRINCIPALS and rtype not in _POLICIES:
        inv.relate(rid, other, "ASSUMES_ROLE", said)
    elif rtype in _PRINCIPALS and otype in _POLICIES:
        inv.relate(rid, other, "IAM_POLICY_ATTACHMENT", said)
    elif rtype in _POLICIES and otype in _PRINCIPALS:
        inv.relate(other, rid, "IAM_POLICY_ATTACHMENT", said)
    elif otype in _KEYS:
        inv.relate(rid, other, "REFERENCES", said)
    elif verb.startswith("is attached to"):
        inv.relate(rid, other, "ATTACHED_TO", said)
    else:
        inv.relate(rid, other, "REFERENCES", said)


def read_config_items(items: list[Any], inv: AwsInventory, *, file: str) -> None:
    """Add every valid item of one Config document (read from ``file``) to ``inv``."""
    report = inv.report
    report.records += len(items)
    deleted = 0
    for index, raw in enumerate(items):
        item = _item(raw, index, report, file)
        if item is None:
            continue
        status = (text_of(item.get("configurationItemStatus")) or "").lower()
        if status in _DELETED:
            deleted += 1
            continue
        rtype_raw = str(item["resourceType"]).strip()
        rtype = rtype_raw.lower()
        rid = str(text_of(item["resourceId"]))
        cfg = _json_object(item.get("configuration"))
        if cfg is not None and not isinstance(cfg, dict):
            report.note(index, "configuration", "not an object; the configuration was not "
                                                "read")
        cfg = cfg if isinstance(cfg, dict) else {}
        tags = item.get("tags")
        kept = inv.add_asset(
            rid, raw_type=rtype_raw,
            name=_name(item, rid, tags_of(tags)),
            arn=text_of(item.get("ARN")) or text_of(item.get("arn")),
            region=text_of(item.get("awsRegion")),
            account_id=text_of(item.get("awsAccountId")) or text_of(item.get("accountId")),
            tags=tags_of(tags), metadata=_metadata(item, cfg),
            seen_at=text_of(item.get("configurationItemCaptureTime")))
        if not kept:
            continue
        public_ip = _public_ip(rtype, cfg) if rtype in _HOSTS else None
        if public_ip is not None:
            inv.public_ip[rid] = public_ip
        if rtype == _SG:
            inv.add_rules(rid, cfg.get("ipPermissions"), egress=False, index=index,
                          where="configuration.ipPermissions")
            inv.add_rules(rid, cfg.get("ipPermissionsEgress"), egress=True, index=index,
                          where="configuration.ipPermissionsEgress")
        rels = item.get("relationships")
        if rels is not None and not isinstance(rels, list):
            report.note(index, "relationships", "not a list; the relationships were not read")
            rels = []
        for k, rel in enumerate(rels or []):
            _relate(inv, rid, rtype, rel, index, k)
    inv.gone += deleted
    if deleted:
        report.warnings.append(
            f"{file}: {deleted} items describe deleted resources (configurationItemStatus "
            "ResourceDeleted); they are not loaded as assets")
