"""OAuthStore: grants keep token digests only, rotate on issue, remember spent refresh tokens,
and are read again when another process changes the file."""

from __future__ import annotations

import stat
from pathlib import Path

from cloudg_nb.assistants.oauth_store import ACCESS_PREFIX, Grant, OAuthStore


def _grant(store: OAuthStore) -> tuple[Grant, str, str]:
    return store.issue(Grant(id="g1", server="srv", assistant="bot", credential="d",
                             client_id="c", resource="https://x/cloudg/mcp"), 60, 600)


def test_tokens_are_found_by_digest_and_never_written(tmp_path: Path) -> None:
    store = OAuthStore(tmp_path / "oauth.json")
    grant, access, refresh = _grant(store)
    assert access.startswith(ACCESS_PREFIX)
    assert store.by_access(access) == grant and store.by_refresh(refresh) == grant
    text = (tmp_path / "oauth.json").read_text()
    assert access not in text and refresh not in text
    assert stat.S_IMODE((tmp_path / "oauth.json").stat().st_mode) == 0o600


def test_issuing_again_rotates_and_remembers_the_spent_refresh_token(tmp_path: Path) -> None:
    store = OAuthStore(tmp_path / "oauth.json")
    grant, access, refresh = _grant(store)
    _, access2, refresh2 = store.issue(grant, 60, 600)
    assert store.by_access(access) is None and store.by_refresh(refresh) is None
    assert store.spent_refresh(refresh) is not None
    assert store.by_access(access2) is not None and store.by_refresh(refresh2) is not None


def test_ending_a_grant_ends_both_tokens(tmp_path: Path) -> None:
    store = OAuthStore(tmp_path / "oauth.json")
    _, access, refresh = _grant(store)
    assert store.end(["g1"]) == 1
    assert store.by_access(access) is None and store.by_refresh(refresh) is None


def test_another_process_ending_a_grant_is_seen(tmp_path: Path) -> None:
    mine = OAuthStore(tmp_path / "oauth.json")
    _, access, _ = _grant(mine)
    OAuthStore(tmp_path / "oauth.json").end(["g1"])
    assert mine.by_access(access) is None


def test_a_client_is_known_only_on_the_server_it_registered_on(tmp_path: Path) -> None:
    store = OAuthStore(tmp_path / "oauth.json")
    store.add_client("c1", "srv-a", {"client_id": "c1"})
    assert store.client("c1", "srv-a") == {"client_id": "c1"}
    assert store.client("c1", "srv-b") is None
