"""The depseudonymiser restores pseudonyms the vault issued — whole values and pseudonyms
inside longer text, in nested arguments — and leaves everything else alone."""

from __future__ import annotations

from cloudg_nb.transforms import Depseudonymize, TransformContext, Vault


def _restore(value, vault):
    ctx = TransformContext(direction="input", vault=vault)
    return Depseudonymize()(value, ctx), ctx.report


def test_whole_and_embedded_pseudonyms_are_restored() -> None:
    vault = Vault("k")
    arn = vault.pseudonymize("aws_arn", "arn:aws:iam::123456789012:role/deployer")
    ip = vault.pseudonymize("ipv4_private", "10.1.2.3")
    out, report = _restore({"arn": arn, "q": [f"who used {ip} last?"]}, vault)
    assert out == {"arn": "arn:aws:iam::123456789012:role/deployer",
                   "q": ["who used 10.1.2.3 last?"]}
    assert report == {"depseudonymized": {"aws_arn": 1, "ipv4_private": 1}}


def test_parts_of_a_pseudonymised_arn_are_restored_on_their_own() -> None:
    vault = Vault("k")
    arn = vault.pseudonymize("aws_arn", "arn:aws:ec2:eu-west-1:123456789012:instance/i-0abc12345")
    account = arn.split(":")[4]
    out, _ = _restore({"account": account, "edited": arn + "/extra"}, vault)
    assert out["account"] == "123456789012"
    assert "123456789012" in out["edited"] and "i-0abc12345" in out["edited"]


def test_a_project_pseudonym_inside_a_name_is_restored() -> None:
    vault = Vault("k")
    project = vault.pseudonymize("gcp_project", "shop-prod-381214")
    name = f"prowler-gcp-check-{project}-EU-{project}-backups-7d3f9a"
    out, report = _restore({"ref": f"{project}-backups-7d3f9a", "finding_id": name}, vault)
    assert out == {"ref": "shop-prod-381214-backups-7d3f9a",
                   "finding_id": "prowler-gcp-check-shop-prod-381214-EU-shop-prod-381214"
                                 "-backups-7d3f9a"}
    assert report == {"depseudonymized": {"gcp_project": 3}}


def test_unknown_values_are_left_alone() -> None:
    vault = Vault("k")
    vault.pseudonymize("email", "a@b.org")
    value = {"ip": "10.9.9.9", "mail": "user-00000000@d-000000.example", "n": 3}
    assert _restore(value, vault)[0] == value


def test_an_empty_vault_costs_nothing() -> None:
    value = {"a": "b"}
    assert _restore(value, Vault("k"))[0] is value
