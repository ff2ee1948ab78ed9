"""How a pseudonym looks: one renderer per entity (``FORMATS``, else ``generic``), each
building a pseudonym shaped like the original from the vault's HMAC digests (``Vault.digest``)
and, for names built of parts (ARNs, Azure ids, GCP names), from the vault's per-part
pseudonyms. The store, collisions and the way back stay in ``vault.py``.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from functools import partial
from typing import Protocol

from .detectors import aws_service_host, ipv4_octets

__all__ = ["FORMATS", "Format", "PseudonymIssuer", "generic"]


class PseudonymIssuer(Protocol):
    """What a format asks of the vault (``vault.Vault``, which imports this module): HMAC
    digests, the pseudonym of a whole value, and pseudonyms issued for the parts of a name,
    remembered for the way back."""

    def digest(self, entity: str, value: str) -> bytes: ...

    def pseudonymize(self, entity: str, value: str) -> str: ...

    def _issue(self, entity: str, value: str, make: Callable[[], str]) -> str: ...

    def _part(self, entity: str, value: str, prefix: str, size: int = 10) -> str: ...


#: ``render(vault, entity, value) -> pseudonym``
Format = Callable[[PseudonymIssuer, str, str], str]

_HEX_ID = re.compile(r"^([a-z]{1,12}-)([0-9a-f]{8,32})$")
_AZURE_KEEP_NEXT = {"providers"}
_GCP_KEEP_VALUES = {"zones", "regions", "locations"}
#: Reserved IPv4 networks a pseudonym stays in when they are large enough (else 198.18/15).
_RESERVED_V4 = tuple(ipaddress.IPv4Network(n) for n in (
    "0.0.0.0/8", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24",
    "203.0.113.0/24", "240.0.0.0/4",
))
_BENCHMARK_V4 = ipaddress.IPv4Network("198.18.0.0/15")
_PUBLIC_FIRST_OCTETS = [
    o for o in range(1, 224) if o not in (10, 100, 127, 169, 172, 192, 198, 203)
]


def _hex(vault: PseudonymIssuer, entity: str, value: str, size: int) -> str:
    return vault.digest(entity, value).hex()[:size]


def generic(vault: PseudonymIssuer, entity: str, value: str) -> str:
    m = _HEX_ID.match(value)
    if m:  # AWS-style ids keep their prefix and length: i-0abc… → i-5f2e…
        return m.group(1) + _hex(vault, entity, value, len(m.group(2)))
    prefix = {"username": "user", "hostname": "host"}.get(entity, "id")
    return f"{prefix}-{_hex(vault, entity, value, 10)}"


def _account(vault: PseudonymIssuer, entity: str, value: str) -> str:
    if value.isdigit():
        n = len(value)
        number = int.from_bytes(vault.digest(entity, value)[:8], "big") % (10 ** n)
        return str(number).zfill(n)
    return generic(vault, entity, value)


def _segment(vault: PseudonymIssuer, value: str) -> str:
    m = _HEX_ID.match(value)
    if m:
        head, size = m.group(1), len(m.group(2))
        return vault._issue(
            "aws_resource_id", value, lambda: head + _hex(vault, "aws_resource_id", value, size))
    return vault._part("resource_name", value, "res")


def _arn(vault: PseudonymIssuer, entity: str, value: str) -> str:
    parts = value.split(":", 5)
    if len(parts) != 6:
        return generic(vault, entity, value)
    _, partition, service, region, account, resource = parts
    if account:
        account = vault.pseudonymize("aws_account_id", account)
    pieces = re.split(r"([/:])", resource)
    keep_first = len(pieces) > 1 and service != "s3"
    out = []
    for i, piece in enumerate(pieces):
        if piece in ("/", ":", "", "*") or (i == 0 and keep_first):
            out.append(piece)
        else:
            out.append(_segment(vault, piece))
    return ":".join(["arn", partition, service, region, account, "".join(out)])


def _email(vault: PseudonymIssuer, entity: str, value: str) -> str:
    local, _, domain = value.rpartition("@")
    user = vault._part("email_user", local, "user", 8)
    dom = vault._part("email_domain", domain.lower(), "d", 6)
    return f"{user}@{dom}.example"


def _ipv4(vault: PseudonymIssuer, entity: str, value: str) -> str:
    octets = ipv4_octets(value)
    if octets is None:
        return generic(vault, entity, value)
    first, second = octets[0], octets[1]
    d = vault.digest("ipv4", value)
    a, b, c = d[0], d[1], 1 + d[2] % 254
    if first == 10:
        return f"10.{a}.{b}.{c}"
    if first == 172 and 16 <= second <= 31:
        return f"172.{16 + a % 16}.{b}.{c}"
    if first == 192 and second == 168:
        return f"192.168.{b}.{c}"
    if first == 100 and 64 <= second <= 127:
        return f"100.{64 + a % 64}.{b}.{c}"
    if first == 169 and second == 254:
        return f"169.254.{b}.{c}"
    address = ipaddress.IPv4Address(value)
    if address.is_private:  # other reserved ranges: the same range when large, else 198.18/15
        net = next((n for n in _RESERVED_V4 if address in n and n.num_addresses >= 65536),
                   _BENCHMARK_V4)
        offset = int.from_bytes(d[3:7], "big") % (net.num_addresses - 2)
        return str(net.network_address + 1 + offset)
    first = _PUBLIC_FIRST_OCTETS[int.from_bytes(d[3:5], "big") % len(_PUBLIC_FIRST_OCTETS)]
    return f"{first}.{a}.{b}.{c}"


def _ipv6(vault: PseudonymIssuer, entity: str, value: str) -> str:
    try:
        ip = ipaddress.IPv6Address(value)
    except ValueError:
        return generic(vault, entity, value)
    d = vault.digest("ipv6", value)
    if ip.is_link_local:
        head = b"\xfe\x80" + bytes(6)
    elif ip in ipaddress.IPv6Network("fc00::/7"):
        head = b"\xfd" + d[8:15]
    else:  # global: the documentation prefix, so a pseudonym never names a real host
        head = b"\x20\x01\x0d\xb8" + d[8:12]
    return str(ipaddress.IPv6Address(head + d[:8]))


def _mac(vault: PseudonymIssuer, entity: str, value: str) -> str:
    sep = "-" if "-" in value else ":"
    d = bytearray(vault.digest(entity, value.lower())[:6])
    d[0] = (d[0] | 0x02) & 0xFE  # locally administered, unicast
    out = sep.join(f"{b:02x}" for b in d)
    return out.upper() if value.isupper() else out


def _uuid(vault: PseudonymIssuer, entity: str, value: str) -> str:
    h = bytearray(vault.digest(entity, value.lower())[:16])
    h[6] = (h[6] & 0x0F) | 0x40
    h[8] = (h[8] & 0x3F) | 0x80
    x = h.hex()
    out = f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"
    return out.upper() if value.isupper() else out


def _azure(vault: PseudonymIssuer, entity: str, value: str) -> str:
    parts = value.split("/")
    out: list[str] = []
    previous = ""
    for i, part in enumerate(parts):
        low = previous.lower()
        if not part:
            out.append(part)
        elif low == "subscriptions":
            out.append(vault._issue("uuid", part, partial(_uuid, vault, "uuid", part)))
        elif low == "resourcegroups":
            out.append(vault._part("azure_resource_group", part, "rg", 8))
        elif (
            low in _AZURE_KEEP_NEXT
            or part.lower() in ("subscriptions", "resourcegroups", "providers")
            or _is_azure_type_position(parts, i)
        ):
            out.append(part)
        else:
            out.append(vault._part("resource_name", part, "res"))
        previous = part
    return "/".join(out)


def _is_azure_type_position(parts: list[str], i: int) -> bool:
    """After ``providers/<Namespace>``, types and names alternate: type, name, type, ..."""
    lowered = [p.lower() for p in parts]
    if "providers" not in lowered:
        return False
    start = lowered.index("providers") + 2  # first type
    return i >= start and (i - start) % 2 == 0


def _gcp(vault: PseudonymIssuer, entity: str, value: str) -> str:
    prefix = ""
    rest = value
    m = re.match(r"^((?:https?:)?//[a-z.]+googleapis\.com/)", value)
    if m:
        prefix, rest = m.group(1), value[m.end():]
    parts = rest.split("/")
    out = []
    for i, part in enumerate(parts):
        if i % 2 == 0 or not part:
            out.append(part)
        elif parts[i - 1] == "projects":
            out.append(vault._part("gcp_project", part, "p", 10))
        elif parts[i - 1] in _GCP_KEEP_VALUES:
            out.append(part)
        else:
            out.append(vault._part("resource_name", part, "res"))
    return prefix + "/".join(out)


def _hostname(vault: PseudonymIssuer, entity: str, value: str) -> str:
    labels = value.split(".")
    if len(labels) == 1:
        return generic(vault, entity, value)
    service = aws_service_host(value)
    if service is not None:  # <db>.<id>.<region>.rds.amazonaws.com: the service part stays
        own, public = service
        return f"{vault._part('host_label', own, 'host', 8)}.{public}"
    return f"{vault._part('host_label', '.'.join(labels[:-1]).lower(), 'host', 8)}.{labels[-1]}"


def _project(vault: PseudonymIssuer, entity: str, value: str) -> str:
    return f"p-{_hex(vault, entity, value, 10)}"  # as inside resource names (see ``_gcp``)


FORMATS: dict[str, Format] = {
    "aws_account_id": _account,
    "aws_arn": _arn,
    "email": _email,
    "ipv4_private": _ipv4,
    "ipv4_public": _ipv4,
    "ipv6_private": _ipv6,
    "ipv6_public": _ipv6,
    "mac_address": _mac,
    "uuid": _uuid,
    "azure_resource_id": _azure,
    "gcp_resource_name": _gcp,
    "hostname": _hostname,
    "gcp_project": _project,
}
