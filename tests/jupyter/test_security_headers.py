"""cloudg's response policy: Jupyter's (or the operator's) Content-Security-Policy with the
handler's own directives in place of the same-named ones, and framing always denied."""

from __future__ import annotations

import pytest
from cloudg_jupyter.security_headers import JSON_CSP, merged_csp, security_headers

JUPYTER_DEFAULT = "frame-ancestors 'self'; report-uri /api/security/csp-report"


def directives(policy: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in policy.split(";"):
        name, _, value = part.strip().partition(" ")
        assert name not in found, f"{name} twice in {policy!r}"
        found[name] = value
    return found


def test_jupyters_default_policy_keeps_its_report_uri_and_loses_self_framing() -> None:
    assert directives(merged_csp(JUPYTER_DEFAULT, JSON_CSP)) == {
        "default-src": "'none'", "frame-ancestors": "'none'",
        "report-uri": "/api/security/csp-report"}


@pytest.mark.parametrize("operator", [
    "frame-ancestors 'self' https://portal.example.org",
    "FRAME-ANCESTORS *; frame-ancestors 'none'",
    "default-src *; frame-ancestors https:",
    "",
])
def test_no_operator_policy_lets_a_page_be_framed(operator: str) -> None:
    found = directives(merged_csp(operator, {"default-src": "'none'"}))
    assert found["frame-ancestors"] == "'none'" and found["default-src"] == "'none'"


def test_the_operators_other_directives_are_kept_once() -> None:
    operator = "upgrade-insecure-requests; report-uri /a; report-uri /b; sandbox allow-forms"
    assert directives(merged_csp(operator, {"style-src": "'unsafe-inline'"})) == {
        "style-src": "'unsafe-inline'", "frame-ancestors": "'none'",
        "upgrade-insecure-requests": "", "report-uri": "/a", "sandbox": "allow-forms"}


def test_the_page_directives_replace_the_operators() -> None:
    found = directives(merged_csp("default-src 'self' https:; form-action *", {
        "default-src": "'none'", "form-action": "'self'"}))
    assert found["default-src"] == "'none'" and found["form-action"] == "'self'"


def test_every_response_denies_framing_sniffing_and_referrers() -> None:
    assert security_headers("x") == {
        "Content-Security-Policy": "x", "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
