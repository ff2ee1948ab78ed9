"""The estate's domain vocabulary: asset, edge, finding and compliance records and their enums.

Datasets keep these as pandas DataFrames (one row per record, enum columns as plain strings);
the dataclasses here are the typed view of one row and the shape files are written in. Enum
arguments from callers go through ``parse_enum`` (case-insensitive, ``-``/space read as ``_``,
close matches in the error's data on a miss).
"""

from __future__ import annotations

import difflib
import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from ..layer.errors import InvalidArgumentsError

__all__ = [
    "AssetType", "Provider", "EdgeType", "EdgeFamily", "DependencyDirection", "Severity",
    "ComplianceStatus", "TraversalDirection", "PathMode", "ExportFormat",
    "Asset", "Edge", "Finding", "ComplianceResult",
    "ASSET_TYPE_INFO", "EDGE_TYPE_INFO", "SENSITIVE_PORTS", "INTERNET_CIDRS", "INTERNET_REF",
    "parse_enum", "parse_enum_list", "parse_choice", "close_matches", "explain_asset_type",
    "explain_edge_type",
]

E = TypeVar("E", bound=StrEnum)

#: Ports whose exposure to the internet is reported as sensitive by ``internet_exposure``.
SENSITIVE_PORTS: tuple[int, ...] = (22, 3389, 3306, 5432, 1433, 27017, 6379, 9200, 5601, 8080,
                                    8443)
#: Edge targets that stand for "anywhere on the internet".
INTERNET_CIDRS: frozenset[str] = frozenset({"0.0.0.0/0", "::/0", "internet", "*"})
#: The reference graph tools accept for the virtual internet node.
INTERNET_REF = "internet"


class AssetType(StrEnum):
    """What kind of cloud resource an asset is (unknown kinds load as ``OTHER``)."""

    ORGANIZATION = "ORGANIZATION"
    ORG_UNIT = "ORG_UNIT"
    CLOUD_ACCOUNT = "CLOUD_ACCOUNT"
    VPC = "VPC"
    VNET = "VNET"
    SUBNET = "SUBNET"
    INTERNET_GATEWAY = "INTERNET_GATEWAY"
    SECURITY_GROUP = "SECURITY_GROUP"
    NSG = "NSG"
    LOAD_BALANCER = "LOAD_BALANCER"
    WAF = "WAF"
    EC2 = "EC2"
    VIRTUAL_MACHINE = "VIRTUAL_MACHINE"
    GCE_INSTANCE = "GCE_INSTANCE"
    LAMBDA_FUNCTION = "LAMBDA_FUNCTION"
    CONTAINER_IMAGE = "CONTAINER_IMAGE"
    CONTAINER_WORKLOAD = "CONTAINER_WORKLOAD"
    KUBERNETES_CLUSTER = "KUBERNETES_CLUSTER"
    IAM_ROLE = "IAM_ROLE"
    IAM_USER = "IAM_USER"
    IAM_POLICY = "IAM_POLICY"
    SERVICE_ACCOUNT = "SERVICE_ACCOUNT"
    S3_BUCKET = "S3_BUCKET"
    GCS_BUCKET = "GCS_BUCKET"
    STORAGE_ACCOUNT = "STORAGE_ACCOUNT"
    RDS_INSTANCE = "RDS_INSTANCE"
    SQL_DATABASE = "SQL_DATABASE"
    KMS_KEY = "KMS_KEY"
    KEY_VAULT = "KEY_VAULT"
    SECRET = "SECRET"
    LOG_GROUP = "LOG_GROUP"
    OTHER = "OTHER"


class Provider(StrEnum):
    """Whose resource an asset is: a cloud, ``KUBERNETES`` (a cluster and its resources, the
    cluster standing as their account), or ``OTHER`` for a provider the model has no name for
    (M365, GitHub ...: scanner loaders keep the provider as written in ``metadata.provider``)."""

    AWS = "AWS"
    AZURE = "AZURE"
    GCP = "GCP"
    KUBERNETES = "KUBERNETES"
    OTHER = "OTHER"


class EdgeFamily(StrEnum):
    NETWORK = "network"
    STRUCTURE = "structure"
    IDENTITY = "identity"
    WORKLOAD = "workload"
    GOVERNANCE = "governance"


class DependencyDirection(StrEnum):
    """Which end of an edge depends on the other.

    ``forward``: the source depends on the target; ``reverse``: the target depends on the
    source; ``none``: the edge carries no dependency (rules, internet exposure).
    """

    FORWARD = "forward"
    REVERSE = "reverse"
    NONE = "none"


class EdgeType(StrEnum):
    SECURITY_GROUP_RULE = "SECURITY_GROUP_RULE"
    NACL_RULE = "NACL_RULE"
    ROUTE = "ROUTE"
    PEERING = "PEERING"
    LOAD_BALANCER_TARGET = "LOAD_BALANCER_TARGET"
    INTERNET_EXPOSED = "INTERNET_EXPOSED"
    CONTAINS = "CONTAINS"
    ATTACHED_TO = "ATTACHED_TO"
    REFERENCES = "REFERENCES"
    IAM_TRUST = "IAM_TRUST"
    IAM_POLICY_ATTACHMENT = "IAM_POLICY_ATTACHMENT"
    ASSUMES_ROLE = "ASSUMES_ROLE"
    GRANTS_ACCESS = "GRANTS_ACCESS"
    INVOKES = "INVOKES"
    USES_IMAGE = "USES_IMAGE"
    LOGS_TO = "LOGS_TO"
    PROTECTS = "PROTECTS"
    MONITORS = "MONITORS"
    MANAGES = "MANAGES"
    GOVERNS = "GOVERNS"

    @property
    def family(self) -> EdgeFamily:
        return EDGE_TYPE_INFO[self]["family"]

    @property
    def dependency(self) -> DependencyDirection:
        return EDGE_TYPE_INFO[self]["dependency"]

    @property
    def is_identity(self) -> bool:
        return self.family is EdgeFamily.IDENTITY


class Severity(StrEnum):
    """Finding severity; ``risk`` is the base risk score, ``rank`` orders them.

    ``UNKNOWN`` is what a scanner record without a usable severity loads as (never guessed
    up or down): it ranks below INFO (rank 0, INFO = 1) and carries INFO's base risk.
    """

    CRITICAL = "CRITICAL"
    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"
    INFO = "INFO"
    UNKNOWN = "UNKNOWN"

    @property
    def risk(self) -> float:
        return _SEVERITY_RISK[self]

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]

    @classmethod
    def ordered(cls) -> list[Severity]:
        """Most severe first (UNKNOWN last)."""
        return [cls.CRITICAL, cls.HIGH, cls.MEDIUM, cls.LOW, cls.INFO, cls.UNKNOWN]


_SEVERITY_RISK = {Severity.CRITICAL: 9.5, Severity.HIGH: 7.5, Severity.MEDIUM: 5.0,
                  Severity.LOW: 2.5, Severity.INFO: 0.5, Severity.UNKNOWN: 0.5}
_SEVERITY_RANK = {Severity.CRITICAL: 5, Severity.HIGH: 4, Severity.MEDIUM: 3, Severity.LOW: 2,
                  Severity.INFO: 1, Severity.UNKNOWN: 0}


class ComplianceStatus(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    NOT_APPLICABLE = "NOT_APPLICABLE"
    MANUAL = "MANUAL"


class TraversalDirection(StrEnum):
    """Which edges a neighbourhood walk follows: outgoing, incoming or both."""

    OUT = "out"
    IN = "in"
    BOTH = "both"


class PathMode(StrEnum):
    """How ``find_paths`` reads edges: ``flow`` (how an attacker or traffic moves),
    ``directed`` (source → target as stored) or ``undirected``."""

    FLOW = "flow"
    DIRECTED = "directed"
    UNDIRECTED = "undirected"


class ExportFormat(StrEnum):
    D3 = "d3"
    CYTOSCAPE = "cytoscape"
    GRAPHML = "graphml"


F, R, N = DependencyDirection.FORWARD, DependencyDirection.REVERSE, DependencyDirection.NONE
_NET, _STR, _IDN, _WRK, _GOV = (EdgeFamily.NETWORK, EdgeFamily.STRUCTURE, EdgeFamily.IDENTITY,
                                EdgeFamily.WORKLOAD, EdgeFamily.GOVERNANCE)

#: Per edge type: family, dependency direction, and a sentence for ``explain_edge_type``.
EDGE_TYPE_INFO: dict[EdgeType, dict[str, Any]] = {
    EdgeType.SECURITY_GROUP_RULE: {"family": _NET, "dependency": N, "description":
        "A firewall rule of the source security group admitting (ingress) or allowing "
        "(egress) traffic to or from the target, a group or a CIDR, on ports/protocol."},
    EdgeType.NACL_RULE: {"family": _NET, "dependency": N, "description":
        "A subnet network ACL rule between the source ACL and the target peer or CIDR."},
    EdgeType.ROUTE: {"family": _NET, "dependency": F, "description":
        "A route from the source (subnet or route table) through the target gateway."},
    EdgeType.PEERING: {"family": _NET, "dependency": F, "description":
        "Network peering between two VPCs/VNets; traffic can flow both ways."},
    EdgeType.LOAD_BALANCER_TARGET: {"family": _NET, "dependency": F, "description":
        "The source load balancer forwards traffic to the target host or function."},
    EdgeType.INTERNET_EXPOSED: {"family": _NET, "dependency": N, "description":
        "The source is reachable from the internet (the target is the internet or a CIDR)."},
    EdgeType.CONTAINS: {"family": _STR, "dependency": R, "description":
        "The source (organisation, account, network) contains the target."},
    EdgeType.ATTACHED_TO: {"family": _STR, "dependency": F, "description":
        "The source is attached to the target, e.g. an instance to a security group."},
    EdgeType.REFERENCES: {"family": _STR, "dependency": F, "description":
        "The source refers to and needs the target, e.g. a database encrypted by a KMS key."},
    EdgeType.IAM_TRUST: {"family": _IDN, "dependency": F, "description":
        "The source role trusts the target principal or account to assume it."},
    EdgeType.IAM_POLICY_ATTACHMENT: {"family": _IDN, "dependency": F, "description":
        "The target policy is attached to the source principal."},
    EdgeType.ASSUMES_ROLE: {"family": _IDN, "dependency": F, "description":
        "The source workload or principal runs as (assumes) the target role."},
    EdgeType.GRANTS_ACCESS: {"family": _IDN, "dependency": F, "description":
        "The source principal or policy has access to the target resource."},
    EdgeType.INVOKES: {"family": _WRK, "dependency": R, "description":
        "The source calls the target (e.g. an API gateway invoking a function)."},
    EdgeType.USES_IMAGE: {"family": _WRK, "dependency": F, "description":
        "The source workload runs from the target machine or container image."},
    EdgeType.LOGS_TO: {"family": _WRK, "dependency": F, "description":
        "The source writes its logs to the target bucket or log group."},
    EdgeType.PROTECTS: {"family": _GOV, "dependency": R, "description":
        "The source control (WAF, backup, shield) protects the target."},
    EdgeType.MONITORS: {"family": _GOV, "dependency": R, "description":
        "The source monitoring service watches the target."},
    EdgeType.MANAGES: {"family": _GOV, "dependency": R, "description":
        "The source manages the target's lifecycle (e.g. an autoscaling group)."},
    EdgeType.GOVERNS: {"family": _GOV, "dependency": R, "description":
        "The source policy container (organisation unit, SCP) governs the target."},
}

_CATEGORY = {
    "organization": (AssetType.ORGANIZATION, AssetType.ORG_UNIT, AssetType.CLOUD_ACCOUNT),
    "network": (AssetType.VPC, AssetType.VNET, AssetType.SUBNET, AssetType.INTERNET_GATEWAY,
                AssetType.SECURITY_GROUP, AssetType.NSG, AssetType.LOAD_BALANCER, AssetType.WAF),
    "compute": (AssetType.EC2, AssetType.VIRTUAL_MACHINE, AssetType.GCE_INSTANCE,
                AssetType.LAMBDA_FUNCTION, AssetType.CONTAINER_IMAGE,
                AssetType.CONTAINER_WORKLOAD, AssetType.KUBERNETES_CLUSTER),
    "identity": (AssetType.IAM_ROLE, AssetType.IAM_USER, AssetType.IAM_POLICY,
                 AssetType.SERVICE_ACCOUNT),
    "data": (AssetType.S3_BUCKET, AssetType.GCS_BUCKET, AssetType.STORAGE_ACCOUNT,
             AssetType.RDS_INSTANCE, AssetType.SQL_DATABASE, AssetType.SECRET,
             AssetType.LOG_GROUP),
    "keys": (AssetType.KMS_KEY, AssetType.KEY_VAULT),
    "other": (AssetType.OTHER,),
}
_DESCRIPTION = {
    AssetType.ORGANIZATION: "The root of a cloud organisation (AWS Organization, Azure tenant, "
                            "GCP organisation).",
    AssetType.ORG_UNIT: "An organisational unit or folder grouping accounts under policies.",
    AssetType.CLOUD_ACCOUNT: "An AWS account, Azure subscription or GCP project; external ones "
                             "carry metadata external=true.",
    AssetType.VPC: "An AWS or GCP virtual private cloud network.",
    AssetType.VNET: "An Azure virtual network.",
    AssetType.SUBNET: "A subnet of a VPC or VNet.",
    AssetType.INTERNET_GATEWAY: "A gateway routing a network to and from the internet.",
    AssetType.SECURITY_GROUP: "An AWS security group or GCP firewall rule set; its rules are "
                              "SECURITY_GROUP_RULE edges.",
    AssetType.NSG: "An Azure network security group.",
    AssetType.LOAD_BALANCER: "A load balancer forwarding traffic to targets; often the "
                             "internet entry point of an application.",
    AssetType.WAF: "A web application firewall protecting load balancers or APIs.",
    AssetType.EC2: "An AWS EC2 virtual machine instance.",
    AssetType.VIRTUAL_MACHINE: "An Azure virtual machine.",
    AssetType.GCE_INSTANCE: "A GCP Compute Engine instance.",
    AssetType.LAMBDA_FUNCTION: "A serverless function (AWS Lambda, Azure/GCP functions).",
    AssetType.CONTAINER_IMAGE: "A machine or container image or its repository.",
    AssetType.CONTAINER_WORKLOAD: "A Kubernetes workload (pod, deployment, daemon set, job "
                                  "...) or another container service.",
    AssetType.KUBERNETES_CLUSTER: "A Kubernetes cluster (its API server and control plane); "
                                  "Kubernetes assets use it as their account.",
    AssetType.IAM_ROLE: "An IAM role or managed identity that workloads and principals assume.",
    AssetType.IAM_USER: "A long-lived human or machine user identity.",
    AssetType.IAM_POLICY: "A permission policy attached to principals.",
    AssetType.SERVICE_ACCOUNT: "A GCP service account (a workload identity).",
    AssetType.S3_BUCKET: "An AWS S3 object storage bucket.",
    AssetType.GCS_BUCKET: "A GCP Cloud Storage bucket.",
    AssetType.STORAGE_ACCOUNT: "An Azure storage account.",
    AssetType.RDS_INSTANCE: "An AWS RDS managed database instance.",
    AssetType.SQL_DATABASE: "A managed SQL database (Azure SQL, Cloud SQL).",
    AssetType.KMS_KEY: "A customer-managed encryption key; resources encrypted with it "
                       "depend on it.",
    AssetType.KEY_VAULT: "An Azure Key Vault holding keys, secrets and certificates.",
    AssetType.SECRET: "A stored secret (Secrets Manager, Key Vault secret, Secret Manager).",
    AssetType.LOG_GROUP: "A log group or sink receiving logs.",
    AssetType.OTHER: "A resource of a kind the model does not name; its original type is "
                     "kept in metadata.original_type.",
}
#: Per asset type: category, whether it is a data store attackers aim for, a description.
ASSET_TYPE_INFO: dict[AssetType, dict[str, Any]] = {
    t: {
        "category": next(c for c, members in _CATEGORY.items() if t in members),
        "data_store": t in _CATEGORY["data"] and t is not AssetType.LOG_GROUP,
        "description": _DESCRIPTION[t],
    }
    for t in AssetType
}


def _norm(value: str) -> str:
    return str(value).strip().upper().replace("-", "_").replace(" ", "_")


def close_matches(value: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` candidates that look like ``value`` (case-insensitive), best first."""
    cands = list(dict.fromkeys(str(c) for c in candidates))
    lowered = {c.lower(): c for c in cands}
    hits = difflib.get_close_matches(str(value).lower(), list(lowered), n=n, cutoff=0.5)
    out = [lowered[h] for h in hits]
    if len(out) < n:
        needle = str(value).lower()
        for c in cands:
            if len(out) >= n:
                break
            if c not in out and needle and (needle in c.lower() or c.lower() in needle):
                out.append(c)
    return out


@functools.cache
def _spellings(enum: type[E]) -> dict[str, E]:
    """Each member of ``enum`` by its name and its normalised value (first member wins)."""
    out: dict[str, E] = {}
    for member in enum:
        out.setdefault(member.name, member)
        out.setdefault(_norm(member.value), member)
    return out


def parse_enum(enum: type[E], value: str | E, *, field: str = "value") -> E:
    """Read ``value`` as a member of ``enum``: case-insensitive, ``-``/space as ``_``.

    A miss raises InvalidArgumentsError whose data names the field, lists up to 3 close
    matches and every allowed value; the message does not echo the value.
    """
    if isinstance(value, enum):
        return value
    member = _spellings(enum).get(_norm(value))
    if member is not None:
        return member
    allowed = [m.value for m in enum]
    raise InvalidArgumentsError(
        f"Unknown {field}; use one of the allowed values (close matches are in the error data).",
        data={"field": field, "close_matches": close_matches(str(value), allowed),
              "allowed": allowed},
    )


def parse_choice(value: object, allowed: Sequence[str], *, field: str,
                 fold: bool = False) -> str:
    """``value`` when it is one of ``allowed`` (with ``fold``: after strip and lower-case).

    A miss raises InvalidArgumentsError like ``parse_enum``'s: the field, up to 3 close
    matches and every allowed value in the data; the message does not echo the value.
    """
    key = str(value).strip().lower() if fold else value
    if isinstance(key, str) and key in allowed:
        return key
    raise InvalidArgumentsError(
        f"Unknown {field}; use one of the allowed values (close matches are in the error data).",
        data={"field": field, "close_matches": close_matches(str(key), allowed),
              "allowed": list(allowed)},
    )


def parse_enum_list(
    enum: type[E], values: str | Iterable[str | E] | None, *, field: str = "value"
) -> list[E] | None:
    """``parse_enum`` over a list (or one comma-separated string); None/empty → None."""
    if values is None:
        return None
    if isinstance(values, str):
        values = [v for v in values.split(",") if v.strip()]
    parsed = [parse_enum(enum, v, field=field) for v in values]
    return list(dict.fromkeys(parsed)) or None


def explain_asset_type(value: str | AssetType) -> dict[str, Any]:
    """What an asset type is, its category, and whether it is a data store."""
    t = parse_enum(AssetType, value, field="asset_type")
    info = ASSET_TYPE_INFO[t]
    return {"asset_type": t.value, "category": info["category"],
            "data_store": info["data_store"], "description": info["description"]}


def explain_edge_type(value: str | EdgeType) -> dict[str, Any]:
    """What an edge type means, its family, and which end depends on the other."""
    t = parse_enum(EdgeType, value, field="edge_type")
    info = EDGE_TYPE_INFO[t]
    return {"edge_type": t.value, "family": info["family"].value,
            "dependency": info["dependency"].value, "description": info["description"]}


# -- records --------------------------------------------------------------------------------


def _clean(value: Any) -> Any:
    """None for NaN/None; numpy scalars to Python."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, (list, dict, str)):
        try:
            return item()
        except (TypeError, ValueError):
            return value
    return value


@dataclass
class Asset:
    id: str
    name: str
    asset_type: AssetType = AssetType.OTHER
    provider: Provider = Provider.AWS
    arn: str | None = None
    region: str = "global"
    account_id: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    is_internet_exposed: bool = False

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["asset_type"], d["provider"] = self.asset_type.value, self.provider.value
        return d

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Asset:
        return cls(
            id=str(row["id"]), name=str(row["name"]),
            asset_type=AssetType(row["asset_type"]), provider=Provider(row["provider"]),
            arn=_clean(row.get("arn")), region=str(row.get("region") or "global"),
            account_id=_clean(row.get("account_id")), tags=dict(row.get("tags") or {}),
            metadata=dict(row.get("metadata") or {}),
            is_internet_exposed=bool(row.get("is_internet_exposed")),
        )


@dataclass
class Edge:
    id: str
    source_id: str
    target_id: str
    edge_type: EdgeType
    relationship: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)
    description: str | None = None
    ports: list[int] = field(default_factory=list)
    port_range: str | None = None
    protocol: str | None = None
    cidr: str | None = None
    direction: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["edge_type"] = self.edge_type.value
        return d

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Edge:
        return cls(
            id=str(row["id"]), source_id=str(row["source_id"]), target_id=str(row["target_id"]),
            edge_type=EdgeType(row["edge_type"]), relationship=_clean(row.get("relationship")),
            properties=dict(row.get("properties") or {}),
            description=_clean(row.get("description")),
            ports=[int(p) for p in (row.get("ports") or [])],
            port_range=_clean(row.get("port_range")), protocol=_clean(row.get("protocol")),
            cidr=_clean(row.get("cidr")), direction=_clean(row.get("direction")),
        )


def risk_score(severity: Severity | str, cvss: float | None) -> float:
    """The severity's base risk, averaged with the CVSS score when there is one."""
    base = Severity(severity).risk
    if cvss is None or (isinstance(cvss, float) and math.isnan(cvss)):
        return base
    return round((base + float(cvss)) / 2.0, 2)


@dataclass
class Finding:
    id: str
    resource_id: str | None
    severity: Severity
    title: str
    resource_arn: str | None = None
    description: str | None = None
    evidence: str | None = None
    remediation: str | None = None
    source_tool: str | None = None
    source_finding_id: str | None = None
    compliance_frameworks: list[str] = field(default_factory=list)
    cvss_score: float | None = None
    detected_at: str | None = None
    is_suppressed: bool = False
    suppression_reason: str | None = None

    @property
    def risk_score(self) -> float:
        return risk_score(self.severity, self.cvss_score)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["severity"] = self.severity.value
        d["risk_score"] = self.risk_score
        return d

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Finding:
        return cls(
            id=str(row["id"]), resource_id=_clean(row.get("resource_id")),
            severity=Severity(row["severity"]), title=str(row.get("title") or ""),
            resource_arn=_clean(row.get("resource_arn")),
            description=_clean(row.get("description")), evidence=_clean(row.get("evidence")),
            remediation=_clean(row.get("remediation")),
            source_tool=_clean(row.get("source_tool")),
            source_finding_id=_clean(row.get("source_finding_id")),
            compliance_frameworks=list(row.get("compliance_frameworks") or []),
            cvss_score=_clean(row.get("cvss_score")), detected_at=_clean(row.get("detected_at")),
            is_suppressed=bool(row.get("is_suppressed")),
            suppression_reason=_clean(row.get("suppression_reason")),
        )


@dataclass
class ComplianceResult:
    framework: str
    control_id: str
    control_title: str
    status: ComplianceStatus
    finding_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["status"] = self.status.value
        return d

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> ComplianceResult:
        return cls(
            framework=str(row["framework"]), control_id=str(row["control_id"]),
            control_title=str(row.get("control_title") or ""),
            status=ComplianceStatus(row["status"]),
            finding_ids=list(row.get("finding_ids") or []),
        )
