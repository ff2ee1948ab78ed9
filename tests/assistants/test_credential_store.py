"""The assistant credential store: random tokens, digests only on disk, revocation seen at once
by another reader of the same file, names checked, nothing a stolen file can log in with, each
credential bound to the server it was minted for, and a private folder and file."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from cloudg_nb.assistants import (
    TOKEN_PREFIX,
    AssistantStore,
    AssistantStoreError,
    assistant_principal,
    is_assistant,
    server_identity,
)


@pytest.fixture
def store(tmp_path: Path) -> AssistantStore:
    return AssistantStore(tmp_path / "cloudg" / "assistants.json")


def test_minted_token_is_long_random_and_verifies(store: AssistantStore) -> None:
    token, record, replaced = store.mint("cursor", client="cursor")
    assert token.startswith(TOKEN_PREFIX) and len(token) >= len(TOKEN_PREFIX) + 43  # 256 bits
    assert not replaced
    assert store.verify(token) == record
    assert record.principal_id == "assistant:cursor"
    other, _, _ = store.mint("claude-code")
    assert other != token


def test_store_file_holds_digests_only_and_is_private(store: AssistantStore) -> None:
    token, _, _ = store.mint("cursor")
    text = store.path.read_text()
    assert token not in text and token[len(TOKEN_PREFIX):] not in text
    assert token[len(TOKEN_PREFIX):][8:] not in text  # not even most of it (a short hint only)
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600


def test_a_stolen_store_file_does_not_authenticate(store: AssistantStore) -> None:
    store.mint("cursor")
    data = json.loads(store.path.read_text())
    entry = data["assistants"][0]
    for guess in (entry["token_sha256"], TOKEN_PREFIX + entry["token_sha256"],
                  entry["hint"], entry["hint"].rstrip(".")):
        assert store.verify(guess) is None


def test_revocation_is_seen_by_another_reader_of_the_same_file(store: AssistantStore) -> None:
    token, _, _ = store.mint("cursor")
    server_view = AssistantStore(store.path)
    assert server_view.verify(token) is not None
    assert [r.name for r in store.revoke("cursor")] == ["cursor"]
    assert server_view.verify(token) is None
    assert store.revoke("cursor") == []


def test_minting_a_name_again_replaces_its_token(store: AssistantStore) -> None:
    first, _, _ = store.mint("cursor")
    second, _, replaced = store.mint("cursor")
    assert replaced
    assert store.verify(first) is None and store.verify(second) is not None
    assert [r.name for r in store.records()] == ["cursor"]


def test_credentials_survive_a_new_store_object(store: AssistantStore) -> None:
    token, _, _ = store.mint("cursor", profile="strict")
    again = AssistantStore(store.path)
    assert again.verify(token) is not None
    assert again.get("cursor").profile == "strict"  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["", "Cursor", "a b", "-x", "x" * 49, "../etc", "a:b"])
def test_bad_names_are_refused_with_what_is_allowed(store: AssistantStore, name: str) -> None:
    with pytest.raises(AssistantStoreError, match="lower-case letters"):
        store.mint(name)
    assert not store.path.exists()


@pytest.mark.parametrize("token", [None, "", "cgat_", "cgat_short", "not-a-cgat_token",
                                   "cgat_" + "x" * 200, "cgat_!!!!!!!!!!!!!!!!!!!!!!!!!"])
def test_malformed_tokens_verify_to_nobody(store: AssistantStore, token: str | None) -> None:
    store.mint("cursor")
    assert store.verify(token) is None


def test_unreadable_store_says_what_to_do_without_a_token(store: AssistantStore) -> None:
    token, _, _ = store.mint("cursor")
    store.path.write_text("{not json")
    with pytest.raises(AssistantStoreError, match="mint new assistant credentials") as err:
        store.verify(token)
    assert TOKEN_PREFIX not in str(err.value)


def test_assistant_principal_is_named_and_has_only_the_assistant_role(
        store: AssistantStore) -> None:
    _, record, _ = store.mint("cursor", client="cursor", profile="strict")
    principal = assistant_principal(record)
    assert principal.id == "assistant:cursor"
    assert principal.roles == frozenset({"assistant"})
    assert principal.claims["profile"] == "strict"
    assert is_assistant(principal)


# -- bound to a server --------------------------------------------------------------------------

A = server_identity("/srv/a", "/")
B = server_identity("/srv/b", "/")


def test_server_identity_names_base_url_and_resolved_root(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    resolved = (tmp_path / "real").resolve()
    assert server_identity(tmp_path / "link", "/user/alice") == f"/user/alice/ on {resolved}"
    assert server_identity(tmp_path / "real", "user/alice/") == f"/user/alice/ on {resolved}"
    assert server_identity(tmp_path, "/") != server_identity(tmp_path, "/user/bob/")
    assert server_identity(tmp_path / "real", "/") != server_identity(tmp_path, "/")


def test_a_credential_is_bound_to_the_server_it_was_minted_for(store: AssistantStore) -> None:
    token, record, _ = store.mint("cursor", server=A)
    found = store.verify(token)
    assert found == record and found is not None
    assert found.bound_to(A) and not found.bound_to(B) and not found.bound_to("")
    assert json.loads(store.path.read_text())["assistants"][0]["server"] == A


def test_a_credential_of_no_server_is_bound_to_none(store: AssistantStore) -> None:
    token, _, _ = store.mint("legacy")
    data = json.loads(store.path.read_text())
    del data["assistants"][0]["server"]  # as cloudg-nb wrote it before binding
    store.path.write_text(json.dumps(data))
    found = AssistantStore(store.path).verify(token)
    assert found is not None and found.server == ""
    assert not found.bound_to("") and not found.bound_to(A)
    assert found.public()["server"] is None


def test_one_name_on_two_servers_is_two_credentials(store: AssistantStore) -> None:
    on_a, _, _ = store.mint("claude-code", server=A)
    on_b, _, replaced = store.mint("claude-code", server=B)
    assert not replaced
    assert store.verify(on_a).server == A  # type: ignore[union-attr]
    assert store.verify(on_b).server == B  # type: ignore[union-attr]
    assert [r.server for r in store.records()] == sorted([A, B])
    assert [r.server for r in store.records(A)] == [A]


def test_minting_on_a_server_replaces_that_servers_and_the_unbound_credential(
        store: AssistantStore) -> None:
    legacy, _, _ = store.mint("cursor")
    first, _, _ = store.mint("cursor", server=A)
    other, _, _ = store.mint("cursor", server=B)
    assert store.verify(legacy) is None  # replaced by the first mint on A
    second, _, replaced = store.mint("cursor", server=A)
    assert replaced
    assert store.verify(first) is None and store.verify(second) is not None
    assert store.verify(other) is not None


def test_listing_for_a_server_shows_its_own_and_unbound_credentials(
        store: AssistantStore) -> None:
    store.mint("mine", server=A)
    store.mint("theirs", server=B)
    store.mint("old")
    assert [(r.name, r.server) for r in store.records(A)] == [("old", ""), ("mine", A)]
    assert store.get("mine", A) is not None and store.get("mine", B) is None


def test_revoking_on_a_server_leaves_other_servers_credentials(store: AssistantStore) -> None:
    on_a, _, _ = store.mint("cursor", server=A)
    on_b, _, _ = store.mint("cursor", server=B)
    assert [r.server for r in store.revoke("cursor", A)] == [A]
    assert store.verify(on_a) is None and store.verify(on_b) is not None


def test_revoking_without_a_server_revokes_the_name_everywhere(store: AssistantStore) -> None:
    tokens = [store.mint("cursor", server=s)[0] for s in (A, B)]
    assert sorted(r.server for r in store.revoke("cursor")) == sorted([A, B])
    assert all(store.verify(t) is None for t in tokens)


def test_the_generation_changes_only_when_the_file_does(store: AssistantStore) -> None:
    store.mint("cursor", server=A)
    reader = AssistantStore(store.path)
    seen = reader.generation()
    assert reader.generation() == seen
    store.revoke("cursor")
    assert reader.generation() != seen


# -- a private folder and file ------------------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_store_folder_is_created_private(tmp_path: Path) -> None:
    store = AssistantStore(tmp_path / "new" / "cloudg" / "assistants.json")
    store.mint("cursor", server=A)
    assert _mode(store.path.parent) == 0o700
    assert _mode(store.path) == 0o600
    assert _mode(store.path.parent / ".assistants.json.lock") == 0o600


def test_a_private_folder_left_open_is_tightened(tmp_path: Path) -> None:
    folder = tmp_path / "cloudg"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)  # as the audit log's folder was created before
    store = AssistantStore(folder / "assistants.json", private_folder=True)
    store.secure_folder()
    assert _mode(folder) == 0o700


def test_a_configured_folder_keeps_the_mode_its_owner_gave_it(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, 0o750)
    store = AssistantStore(folder / "assistants.json")
    assert not store.private_folder
    store.mint("cursor", server=A)
    assert _mode(folder) == 0o750 and _mode(store.path) == 0o600


def test_the_default_store_is_private(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data" / "cloudg").mkdir(parents=True)
    os.chmod(tmp_path / "data" / "cloudg", 0o755)
    store = AssistantStore()
    assert store.private_folder
    store.mint("cursor", server=A)
    assert _mode(tmp_path / "data" / "cloudg") == 0o700


def test_a_store_file_left_readable_by_others_is_made_private_again(
        store: AssistantStore) -> None:
    token, _, _ = store.mint("cursor", server=A)
    os.chmod(store.path, 0o644)  # an editor that wrote it anew with the umask's mode
    reader = AssistantStore(store.path)
    assert reader.verify(token) is not None
    assert _mode(store.path) == 0o600
