"""The pseudonym vault: deterministic per key, different across keys, format-preserving (account
ids keep their length, ARNs rebuilt part by part, e-mails, private IPs stay private, UUIDs,
Azure and GCP ids), reversible (reveal, parts too), keyed from config or the environment
(random with a warning otherwise), and persisted encrypted, 0600, atomically. Collisions are
re-derived with a counter: no pseudonym is shared or equals a real value, even in small
private ranges, through the layer too."""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import stat

import pytest

from cloudg_nb import CloudGMCPLayer, Registry
from cloudg_nb.transforms import Vault, VaultError
from cloudg_nb.transforms.vault import KEY_ENV

ARN = "arn:aws:ec2:eu-west-1:123456789012:instance/i-0123456789abcdef0"


def test_same_key_same_pseudonym_across_instances() -> None:
    assert Vault("k").pseudonymize("aws_arn", ARN) == Vault("k").pseudonymize("aws_arn", ARN)


def test_different_key_different_pseudonym() -> None:
    assert Vault("k1").pseudonymize("email", "a@b.org") != Vault("k2").pseudonymize(
        "email", "a@b.org")


def test_namespace_changes_pseudonyms() -> None:
    a = Vault("k", namespace="team-a").pseudonymize("uuid", "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
    b = Vault("k", namespace="team-b").pseudonymize("uuid", "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
    assert a != b


def test_account_ids_keep_their_length_and_digits() -> None:
    out = Vault("k").pseudonymize("aws_account_id", "000123456789")
    assert len(out) == 12 and out.isdigit() and out != "000123456789"


def test_arns_are_rebuilt_part_by_part() -> None:
    vault = Vault("k")
    out = vault.pseudonymize("aws_arn", ARN)
    m = re.fullmatch(r"arn:aws:ec2:eu-west-1:(\d{12}):instance/i-([0-9a-f]{17})", out)
    assert m and m.group(1) != "123456789012"
    assert vault.reveal(m.group(1)) == "123456789012"
    assert vault.reveal(f"i-{m.group(2)}") == "i-0123456789abcdef0"


def test_s3_arns_hide_the_bucket_name() -> None:
    out = Vault("k").pseudonymize("aws_arn", "arn:aws:s3:::payroll-exports/2024/q1.csv")
    assert out.startswith("arn:aws:s3:::") and "payroll" not in out and out.count("/") == 2


def test_emails_become_example_addresses() -> None:
    out = Vault("k").pseudonymize("email", "alice@payments.example.org")
    assert re.fullmatch(r"user-[0-9a-f]{8}@d-[0-9a-f]{6}\.example", out)


@pytest.mark.parametrize("ip,network", [
    ("10.1.2.3", "10.0.0.0/8"), ("172.20.1.1", "172.16.0.0/12"),
    ("192.168.7.7", "192.168.0.0/16"),
])
def test_private_ips_stay_in_their_private_range(ip: str, network: str) -> None:
    out = Vault("k").pseudonymize("ipv4_private", ip)
    assert out != ip and ipaddress.ip_address(out) in ipaddress.ip_network(network)


def test_public_ips_stay_public() -> None:
    out = Vault("k").pseudonymize("ipv4_public", "54.12.1.9")
    assert out != "54.12.1.9" and not ipaddress.ip_address(out).is_private


def test_ipv6_mac_and_uuid_keep_their_format() -> None:
    vault = Vault("k")
    assert ipaddress.ip_address(vault.pseudonymize("ipv6_private", "fd12:3456::1")).is_private
    assert re.fullmatch(r"([0-9a-f]{2}:){5}[0-9a-f]{2}",
                        vault.pseudonymize("mac_address", "00:1a:2b:3c:4d:5e"))
    out = vault.pseudonymize("uuid", "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", out)


def test_azure_ids_keep_their_structure() -> None:
    rid = ("/subscriptions/3f2504e0-4f89-11d3-9a0c-0305e82c3301/resourceGroups/payments/"
           "providers/Microsoft.Compute/virtualMachines/vm-payroll")
    out = Vault("k").pseudonymize("azure_resource_id", rid)
    parts = out.split("/")
    assert parts[1] == "subscriptions" and parts[3] == "resourceGroups"
    assert parts[5:8] == ["providers", "Microsoft.Compute", "virtualMachines"]
    assert "payments" not in out and "vm-payroll" not in out


def test_gcp_names_keep_their_structure() -> None:
    out = Vault("k").pseudonymize(
        "gcp_resource_name", "projects/payroll-prod/zones/europe-west1-b/instances/db-1")
    assert re.fullmatch(r"projects/p-[0-9a-f]{10}/zones/europe-west1-b/instances/res-[0-9a-f]+",
                        out)


def test_reveal_returns_the_original_and_none_for_unknown_tokens() -> None:
    vault = Vault("k")
    token = vault.pseudonymize("email", "a@b.org")
    assert vault.reveal(token) == "a@b.org"
    assert vault.lookup(token) == ("email", "a@b.org")
    assert vault.reveal("user-00000000@d-000000.example") is None


def test_pseudonymizing_a_pseudonym_returns_it_unchanged() -> None:
    vault = Vault("k")
    token = vault.pseudonymize("ipv4_private", "10.1.2.3")
    assert vault.pseudonymize("ipv4_private", token) == token


def test_key_comes_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv(KEY_ENV, "from-env")
    assert not Vault.from_config().ephemeral
    assert Vault.from_config().pseudonymize("uuid", "x") == Vault("from-env").pseudonymize(
        "uuid", "x")


def test_key_from_config_beats_the_environment(monkeypatch) -> None:
    monkeypatch.setenv(KEY_ENV, "from-env")
    assert Vault.from_config({"key": "cfg"}).pseudonymize("uuid", "x") == Vault(
        "cfg").pseudonymize("uuid", "x")


def test_key_env_names_another_variable(monkeypatch) -> None:
    monkeypatch.setenv("TEAM_VAULT_KEY", "team")
    assert Vault.from_config({"key_env": "TEAM_VAULT_KEY"}).pseudonymize("uuid", "x") == Vault(
        "team").pseudonymize("uuid", "x")


def test_without_a_key_the_vault_is_random_and_warns_once(monkeypatch, caplog) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    vault = Vault.from_config()
    assert vault.ephemeral
    with caplog.at_level(logging.WARNING, logger="cloudg.privacy"):
        vault.pseudonymize("uuid", "a")
        vault.pseudonymize("uuid", "b")
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert Vault.from_config().pseudonymize("uuid", "a") != vault.pseudonymize("uuid", "a")


def test_persisted_vault_survives_a_restart(tmp_path) -> None:
    path = tmp_path / "vault.bin"
    first = Vault("k", path=path)
    token = first.pseudonymize("email", "a@b.org")
    first.save()
    assert Vault("k", path=path).reveal(token) == "a@b.org"


def test_vault_file_is_0600_and_encrypted(tmp_path) -> None:
    path = tmp_path / "vault.bin"
    vault = Vault("k", path=path)
    token = vault.pseudonymize("email", "alice@payments.example.org")
    vault.save()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    data = path.read_bytes()
    assert b"alice" not in data and token.encode() not in data


def test_save_replaces_the_file_atomically_leaving_no_temporary_files(tmp_path) -> None:
    path = tmp_path / "vault.bin"
    vault = Vault("k", path=path)
    vault.pseudonymize("uuid", "a")
    vault.save()
    inode = os.stat(path).st_ino
    vault.pseudonymize("uuid", "b")
    vault.save()
    assert os.listdir(tmp_path) == ["vault.bin"] and os.stat(path).st_ino != inode


def test_a_vault_file_written_with_another_key_is_a_clear_error(tmp_path) -> None:
    path = tmp_path / "vault.bin"
    vault = Vault("k1", path=path)
    vault.pseudonymize("uuid", "a")
    vault.save()
    with pytest.raises(VaultError, match="cannot be decrypted with this key"):
        Vault("k2", path=path)


def test_flush_saves_only_after_the_interval(tmp_path) -> None:
    path = tmp_path / "vault.bin"
    vault = Vault("k", path=path, save_interval=3600)
    vault.pseudonymize("uuid", "a")
    vault.flush()
    assert path.exists()  # first flush: nothing saved yet, so it saves
    vault.pseudonymize("uuid", "b")
    vault.flush()
    assert len(Vault("k", path=path)) == 1
    vault.flush(force=True)
    assert len(Vault("k", path=path)) == 2


def test_max_entries_bounds_the_reverse_map() -> None:
    vault = Vault("k", max_entries=3)
    for i in range(5):
        vault.pseudonymize("uuid", f"value-{i}")
    assert len(vault) == 3


# -- collisions (M1) -------------------------------------------------------------------------

_REAL = [f"192.168.{i // 250}.{1 + i % 250}" for i in range(2000)]


def _ip_registry(seen: list[str]) -> Registry:
    reg = Registry()

    @reg.tool
    def ips(ctx) -> dict:
        return {"addresses": [f"host at {ip}" for ip in _REAL]}

    @reg.tool
    def use(ctx, ip: str) -> dict:
        seen.append(ip)
        return {}

    return reg


async def test_layer_strict_never_emits_a_real_ip_or_shares_a_pseudonym() -> None:
    seen: list[str] = []
    layer = CloudGMCPLayer(policy={"extends": "strict", "vault": {"key": "k" * 32}},
                           registry=_ip_registry(seen))
    out = [s.split(" at ")[1] for s in (await layer.call_tool("ips")).structured["addresses"]]
    assert not set(out) & set(_REAL)
    assert len(set(out)) == len(_REAL)
    await layer.call_tool("use", {"ip": out[1234]})
    assert seen == [_REAL[1234]]


def test_an_issued_pseudonym_in_a_batch_of_real_values_is_not_reserved() -> None:
    vault = Vault("k")
    token = vault.pseudonymize("ipv4_private", "192.168.0.4")
    assert vault.reserve([token, "192.168.0.5"]) == ["192.168.0.5"]
    assert vault.pseudonymize("ipv4_private", token) == token  # idempotent
    assert vault.pseudonymize("ipv4_private", "192.168.0.5") not in (token, "192.168.0.5")


def test_reserved_ipv4_ranges_get_a_large_pseudonym_space() -> None:
    vault = Vault("k")
    real = [f"198.18.{i // 250}.{1 + i % 250}" for i in range(1000)]
    vault.reserve(real)  # one batch, as the redact step does
    outs = {vault.pseudonymize("ipv4_private", ip) for ip in real}
    assert len(outs) == 1000 and not outs & set(real)
    assert all(ipaddress.ip_address(o) in ipaddress.ip_network("198.18.0.0/15") for o in outs)


def test_same_key_and_same_order_give_the_same_pseudonyms_despite_collisions() -> None:
    first, second = Vault("k"), Vault("k")
    first.reserve(_REAL)
    second.reserve(_REAL)
    a = [first.pseudonymize("ipv4_private", ip) for ip in _REAL]
    b = [second.pseudonymize("ipv4_private", ip) for ip in _REAL]
    assert a == b and len(set(a)) == len(a)


def test_a_non_numeric_account_gets_the_pseudonym_it_has_inside_resource_names() -> None:
    vault = Vault("k")
    project = vault.pseudonymize("aws_account_id", "acme-analytics")
    name = vault.pseudonymize("gcp_resource_name", "projects/acme-analytics/topics/events")
    assert project.startswith("p-") and name.startswith(f"projects/{project}/topics/")
    sub = "6f1c2a9e-4b7d-4c1a-9e2f-3a5b7c9d1e0f"
    azure = vault.pseudonymize("azure_resource_id", f"/subscriptions/{sub}/resourceGroups/rg")
    assert azure.startswith(f"/subscriptions/{vault.pseudonymize('aws_account_id', sub)}/")
    assert vault.reveal(project) == "acme-analytics"


def test_an_rds_endpoint_pseudonym_keeps_region_and_service() -> None:
    vault = Vault("k")
    host = "ledger-db.c9akciq32xyz.eu-west-1.rds.amazonaws.com"
    out = vault.pseudonymize("hostname", host)
    assert out.endswith(".eu-west-1.rds.amazonaws.com") and "c9akciq32xyz" not in out
    assert vault.reveal(out) == host


def test_an_msk_broker_pseudonym_keeps_service_and_region() -> None:
    out = Vault("k").pseudonymize("hostname", "b-1.ledger.abc123.c2.kafka.eu-west-1.amazonaws.com")
    assert out.endswith(".kafka.eu-west-1.amazonaws.com") and "abc123" not in out


def test_find_known_finds_learned_projects_as_whole_parts_of_names() -> None:
    vault = Vault("k")
    assert vault.find_known("gcp_project", "Project acme-analytics") == []
    vault.learn("gcp_project", ["acme-analytics", "Not A Project"])
    text = "Project acme-analytics. acme-analytics-raw, x.acme-analytics.io, (acme-analytics)"
    assert vault.find_known("gcp_project", text) == [(8, 22), (24, 38), (46, 60), (66, 80)]


def test_find_known_finds_a_project_inside_bucket_names_and_prowler_finding_ids() -> None:
    vault = Vault("k")
    vault.learn("gcp_project", ["shop-prod-381214"])
    text = "prowler-gcp-bucket_public-shop-prod-381214-EU-shop-prod-381214-backups-7d3f9a"
    assert [text[a:b] for a, b in vault.find_known("gcp_project", text)] == [
        "shop-prod-381214", "shop-prod-381214"]


def test_find_known_leaves_a_project_that_is_only_part_of_a_longer_part() -> None:
    vault = Vault("k")
    vault.learn("gcp_project", ["acme-analytics"])
    text = "xacme-analytics acme-analytics2 acme-analyticsraw acme-analytic"
    assert vault.find_known("gcp_project", text) == []


def test_find_known_finds_learned_accounts_inside_names_but_not_longer_numbers() -> None:
    vault = Vault("k")
    vault.learn("aws_account_id", ["210987654321", "acme"])
    text = "cdk-hnb659fds-assets-210987654321-eu-west-1 and 92109876543210"
    assert vault.find_known("aws_account_id", text) == [(21, 33)]


def test_pseudonymised_projects_and_accounts_are_learned_as_words() -> None:
    vault = Vault("k")
    vault.pseudonymize("gcp_resource_name", "projects/zephyr-billing-prod/topics/t")
    vault.pseudonymize("aws_arn", "arn:aws:iam::210987654321:role/r")
    assert vault.find_known("gcp_project", "Project zephyr-billing-prod is public")
    assert vault.find_known("aws_account_id", "logs-210987654321-x")


def test_a_source_is_read_once_per_key_and_only_when_words_are_looked_for() -> None:
    vault = Vault("k")
    reads: list[str] = []

    def projects() -> list[str]:
        reads.append("read")
        return ["quartz-ml-sandbox"]

    key = ["v1"]
    vault.add_source(lambda: [(key[0], "gcp_project", projects)])
    assert reads == []  # policies that never look for known words never pay
    assert vault.find_known("gcp_project", "in quartz-ml-sandbox") == [(3, 20)]
    vault.find_known("gcp_project", "")
    assert reads == ["read"]
    key[0] = "v2"  # a new dataset version is read again
    vault.find_known("gcp_project", "")
    assert reads == ["read", "read"]
