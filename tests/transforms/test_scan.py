"""The batch scanner: scanning many strings at once finds exactly what scanning each string
alone finds (positions relative to each string), matches never span two strings, and strings
holding NUL fall back to one-by-one scanning."""

from __future__ import annotations

import pytest

from cloudg_nb.transforms.detectors import BUILTIN_DETECTORS
from cloudg_nb.transforms.scan import Scanner

SCANNER = Scanner(BUILTIN_DETECTORS)
STRINGS = [
    "plain", "AKIAHBRPOIG8F1CBFNO6", "owner bob@corp.example.org from 10.0.0.1",
    "arn:aws:iam::123456789012:role/x", "", "postgres://u:Pw-123456@h/db",
    "tzQPxC5HChpoevbLJoLoaeTOdoe5c3ve and again tzQPxC5HChpoevbLJoLoaeTOdoe5c3ve",
] + [f"filler-{i}" for i in range(200)] + ["token=ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ"]


def _plain(found):
    return [(f.start, f.end, f.entity) for f in found]


def test_batch_scan_equals_per_string_scan() -> None:
    batch = SCANNER.scan_many(STRINGS)
    single = {i: SCANNER.scan(s) for i, s in enumerate(STRINGS)}
    assert {i: _plain(f) for i, f in batch.items()} == {
        i: _plain(f) for i, f in single.items() if f
    }


def test_a_match_never_spans_two_strings() -> None:
    found = SCANNER.scan_many(["AKIAHBRPOIG8", "F1CBFNO6", "10.0.0", ".1"])
    assert found == {}


def test_strings_holding_nul_are_scanned_one_by_one() -> None:
    found = SCANNER.scan_many(["a\x00b", "key AKIAHBRPOIG8F1CBFNO6"])
    assert _plain(found[1]) == [(4, 24, "aws_access_key_id")]


def test_repeated_high_entropy_tokens_are_all_found() -> None:
    found = SCANNER.scan_many(["x", STRINGS[6]])
    assert [f.entity for f in found[1]] == ["high_entropy_string"] * 2


def _counting_scanner(pattern: str) -> tuple[Scanner, list[str]]:
    """A scanner whose one detector matches ``pattern`` and rejects every match, noting each
    match its validator sees (so a rescan of a string shows up)."""
    import re

    from cloudg_nb.transforms.detectors import Detector

    seen: list[str] = []

    def reject(text: str) -> None:
        seen.append(text)
        return None

    det = Detector("probe", "secret", re.compile(pattern), "test probe", validate=reject)
    return Scanner([det]), seen


def test_a_string_found_clean_is_not_scanned_again() -> None:
    scanner, seen = _counting_scanner(r"x+")
    assert scanner.scan_many(["axxb", "yy"]) == {}
    assert scanner.scan_many(["yy", "axxb"]) == {}
    assert seen == ["xx"]


def test_repeated_batches_find_what_each_string_alone_holds() -> None:
    first = SCANNER.scan_many(STRINGS)
    shuffled = STRINGS[::-1]
    again = SCANNER.scan_many(shuffled)
    n = len(STRINGS)
    assert {n - 1 - i: _plain(f) for i, f in again.items()} == {
        i: _plain(f) for i, f in first.items()}


def test_a_secret_among_remembered_clean_strings_is_found_at_its_place() -> None:
    scanner = Scanner(BUILTIN_DETECTORS)
    clean = [f"filler-{i}" for i in range(20)]
    scanner.scan_many(clean)
    found = scanner.scan_many([*clean[:7], "key AKIAHBRPOIG8F1CBFNO6", *clean[7:]])
    assert {i: _plain(f) for i, f in found.items()} == {
        7: [(4, 24, "aws_access_key_id")]}


def test_a_scanner_with_a_position_anchored_pattern_rescans_every_time() -> None:
    scanner, seen = _counting_scanner(r"x+$")
    scanner.scan_many(["b", "axx"])
    scanner.scan_many(["b", "axx"])
    assert seen == ["xx", "xx"]


def test_a_single_string_found_clean_is_not_scanned_again() -> None:
    scanner, seen = _counting_scanner(r"x+")
    assert scanner.scan("axxb") == []
    assert scanner.scan_many(["axxb"]) == {}
    assert scanner.scan("axxb") == []
    assert seen == ["xx"]


def test_a_scanner_that_forgot_scans_clean_strings_again() -> None:
    scanner, seen = _counting_scanner(r"x+")
    scanner.scan_many(["axxb"])
    scanner.forget()
    scanner.scan_many(["axxb"])
    assert seen == ["xx", "xx"]


def test_urls_without_credentials_among_many_do_not_hide_those_with() -> None:
    """``scheme://`` is everywhere in cloud data (asset URIs, console links); the credential
    detectors search only strings that also hold ``@``, and still find every password."""
    uris = [f"cloudg://findings/f{i:06d}" for i in range(3000)]
    strings = [*uris[:1500], "mongodb+srv://app:S3cr3t-pw@cluster0.example.net/db",
               "see https://deploy:tok3n-xyz@git.example.com/repo.git", "mail ops@example.com",
               *uris[1500:], "REDIS://cache:Hunter2pass@10.0.0.5:6379"]
    batch = SCANNER.scan_many(strings)
    secrets = {strings[i][f.start:f.end] for i, found in batch.items() for f in found
               if f.entity in ("connection_string", "url_credentials")}
    assert secrets == {"S3cr3t-pw", "tok3n-xyz", "Hunter2pass"}
    single = {i: _plain(SCANNER.scan(s)) for i, s in enumerate(strings)}
    assert {i: _plain(f) for i, f in batch.items()} == {i: f for i, f in single.items() if f}


# -- a redaction never leaves part of a secret ------------------------------------------------

REDACTING = Scanner([d for d in BUILTIN_DETECTORS if d.kind in ("secret", "credential")])


def _secrets(text: str) -> list[str]:
    return [text[f.start:f.end] for f in REDACTING.scan(text)]


@pytest.mark.parametrize("text,secret", [
    ("password=Ab1,xyz!9;kQ2&w#e next", "Ab1,xyz!9;kQ2&w#e"),
    ("the password is Zq!8,pL#4;mW@9 (rotate it)", "Zq!8,pL#4;mW@9"),
    ("Server=db;Password=Hk2m,Qp7!Lw'Zx;Encrypt=True", "Hk2m,Qp7!Lw'Zx"),
    ("mysql -u root --password=p&ss|w0rd;x orders", "p&ss|w0rd;x"),
    ("curl -u admin:p@ss:w0rd https://jenkins", "p@ss:w0rd"),
    ("Found password=kGS'imp=731#KeZ;B2R!31 next", "kGS'imp=731#KeZ;B2R!31"),
])
def test_an_open_ended_value_is_carried_over_the_punctuation_inside_it(text: str,
                                                                       secret: str) -> None:
    assert _secrets(text) == [secret]


@pytest.mark.parametrize("text,secret", [
    ("password=Hk2m9x, then rotate", "Hk2m9x"),
    ("Password=Hk2m9x;Encrypt=True", "Hk2m9x"),
    ("?password=Hk2m9x&next=%2F", "Hk2m9x"),
    ('{"password": "Hk2m9x", "user": "a"}', "Hk2m9x"),
    ("echo 'password=Hk2m9x' > .env", "Hk2m9x"),
])
def test_an_open_ended_value_stops_where_the_text_moves_on(text: str, secret: str) -> None:
    assert _secrets(text) == [secret]


def test_overlapping_secret_findings_are_merged_into_one_redaction() -> None:
    assert _secrets('password: "Hk2m Qp7Lw Zx9v"') == ["Hk2m Qp7Lw Zx9v"]
    assert _secrets('{"password": "p\\"ss,w0rd!x"}') == ['p\\"ss,w0rd!x']


def test_a_random_looking_run_merged_into_a_secret_keeps_the_name_in_clear() -> None:
    assert _secrets("password=Hk2m-Qp7Lw-Zx9v-Rt5y") == ["Hk2m-Qp7Lw-Zx9v-Rt5y"]


@pytest.mark.parametrize("text,secret", [
    ("redis://:p@ss:w0rd/x@cache.acme.internal:6379/0", "p@ss:w0rd/x"),
    ("https://me@corp.com:S3cr3t-pw@git.acme.io/r.git", "S3cr3t-pw"),
    ("svc:p@ss,w0rd@db.acme.internal:5432", "p@ss,w0rd"),
])
def test_a_url_password_runs_to_the_last_at_sign_before_the_host(text: str,
                                                                  secret: str) -> None:
    assert _secrets(text) == [secret]


def test_a_port_before_an_at_sign_in_a_path_is_not_a_password() -> None:
    assert _secrets("https://registry.acme.io:8080/@acme/pkg") == []
