"""The assistant credential store: random tokens, digests only on disk, revocation seen at once
by another reader of the same file, names checked, and nothing a stolen file can log in with."""

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
    assert store.revoke("cursor") is not None
    assert server_view.verify(token) is None
    assert store.revoke("cursor") is None


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
