"""OAuthStore: grants keep token digests only, rotate on issue, remember spent refresh tokens,
and are read again when another process changes the file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from cloudg_nb.assistants import oauth_store
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


# -- clients the owner registers ahead -------------------------------------------------------


def test_a_client_registered_ahead_survives_a_flood_of_dynamic_registrations(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oauth_store, "MAX_CLIENTS", 5)
    store = OAuthStore(tmp_path / "oauth.json")
    assert store.preregister_client("mine", "srv", {"client_id": "mine"}) == "added"
    for n in range(20):
        store.add_client(f"dcr-{n}", "srv", {"client_id": f"dcr-{n}"})
    assert store.client("mine", "srv") == {"client_id": "mine"}
    assert store.client("dcr-0", "srv") is None and store.client("dcr-19", "srv") is not None


def test_registering_ahead_refuses_an_id_in_use(tmp_path: Path) -> None:
    store = OAuthStore(tmp_path / "oauth.json")
    store.add_client("dcr-1", "srv", {"client_id": "dcr-1"})
    assert store.preregister_client("dcr-1", "srv", {"client_id": "x"}) == "taken"
    assert store.preregister_client("mine", "srv", {"client_id": "mine"}) == "added"
    assert store.preregister_client("mine", "other", {"client_id": "mine"}) == "taken"
    assert store.client("dcr-1", "srv") == {"client_id": "dcr-1"}


def test_a_dynamic_registration_cannot_replace_a_client_registered_ahead(
        tmp_path: Path) -> None:
    store = OAuthStore(tmp_path / "oauth.json")
    store.preregister_client("mine", "srv", {"client_id": "mine", "client_name": "Mine"})
    with pytest.raises(ValueError):
        store.add_client("mine", "srv", {"client_id": "mine", "client_name": "Evil"})
    assert store.client("mine", "srv") == {"client_id": "mine", "client_name": "Mine"}


def test_removing_a_client_registered_ahead_ends_its_grants_only(tmp_path: Path) -> None:
    store = OAuthStore(tmp_path / "oauth.json")
    store.preregister_client("c", "srv", {"client_id": "c"})
    _, access, refresh = _grant(store)  # client "c"
    other, other_access, _ = store.issue(Grant(
        id="g2", server="srv", assistant="bot2", credential="d2", client_id="dcr",
        resource="https://x/cloudg/mcp"), 60, 600)
    assert store.remove_client("c", "srv") == 1
    assert store.client("c", "srv") is None and store.preregistered("srv") == {}
    assert store.by_access(access) is None and store.by_refresh(refresh) is None
    assert store.by_access(other_access) == other


def test_removing_names_only_clients_registered_ahead_on_that_server(tmp_path: Path) -> None:
    store = OAuthStore(tmp_path / "oauth.json")
    store.add_client("dcr", "srv", {"client_id": "dcr"})
    store.preregister_client("c", "srv", {"client_id": "c"})
    assert store.remove_client("dcr", "srv") is None
    assert store.remove_client("c", "another-server") is None
    assert store.remove_client("nobody", "srv") is None
    assert set(store.preregistered("srv")) == {"c"} and store.client("dcr", "srv") is not None


def test_registering_ahead_has_a_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oauth_store, "MAX_PREREGISTERED", 2)
    store = OAuthStore(tmp_path / "oauth.json")
    assert [store.preregister_client(c, "srv", {"client_id": c}) for c in "abc"] == [
        "added", "added", "full"]
    assert store.preregister_client("c", "other", {"client_id": "c"}) == "added"
