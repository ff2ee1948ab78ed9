"""Who a request to the endpoint acts as (``cloudg_jupyter.identity``, in-process): under
Jupyter's own shared-secret providers every caller is the owner; under others (JupyterHub's)
the provider's user; an assistant is its credential's principal. Scope entries are built once
per user or credential and dropped when a credential ends."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from cloudg_jupyter.identity import (
    MAX_CACHED_USERS,
    PRINCIPAL_SCOPE_KEY,
    Identity,
    owner_name,
    scope_is_assistant,
    scope_owner,
    scope_principal,
)
from jupyter_server.auth.identity import IdentityProvider, PasswordIdentityProvider, User

from cloudg_nb.assistants import AssistantRecord, AssistantStore


class HubProvider(IdentityProvider):
    """Stands for JupyterHub's provider: any provider but Jupyter's own names real users."""


def alice() -> User:
    return User(username="alice", name="Alice")


@pytest.fixture
def record(tmp_path: Path) -> AssistantRecord:
    store = AssistantStore(tmp_path / "assistants.json")
    return store.mint("bot", client="cursor", profile="strict", server="here")[1]


@pytest.mark.parametrize("provider", [IdentityProvider(token="t"), PasswordIdentityProvider()])
def test_under_a_shared_secret_every_caller_is_the_owner(provider: IdentityProvider) -> None:
    identity = Identity(provider, {}, ["default"])
    assert identity.user_name(alice()) == owner_name()
    assert identity.user_name(User(username="anonymous-42")) == owner_name()


def test_under_another_provider_the_user_is_the_providers() -> None:
    assert Identity(HubProvider(), {}, ["default"]).user_name(alice()) == "alice"


def test_a_users_roles_come_from_roles_else_default_roles() -> None:
    identity = Identity(HubProvider(), {"alice": ["analyst", "default"]}, ["viewer"])
    assert identity.principal_for(alice()).roles == {"analyst", "default"}
    assert identity.principal_for(User(username="bob")).roles == {"viewer"}
    assert Identity(HubProvider(), {}, []).principal_for(alice()).roles == {"default"}


def test_the_owner_user_is_named_after_the_os_account() -> None:
    owner = Identity(IdentityProvider(token="t"), {}, []).owner_user
    assert (owner.username, owner.name) == (owner_name(), owner_name())


def test_a_users_scope_carries_the_principal_and_an_sdk_user_bound_to_it() -> None:
    identity = Identity(HubProvider(), {}, ["default"])
    scope = identity.request_scope(alice())
    assert scope[PRINCIPAL_SCOPE_KEY] == identity.principal_for(alice())
    assert scope["user"].access_token.client_id == "alice"
    assert scope_owner(scope) == "alice"


def test_a_users_scope_is_built_once() -> None:
    identity = Identity(HubProvider(), {}, ["default"])
    assert identity.request_scope(alice()) is identity.request_scope(alice())


def test_scopes_of_users_past_the_cache_are_built_each_time() -> None:
    identity = Identity(HubProvider(), {}, ["default"])
    for n in range(MAX_CACHED_USERS):
        identity.request_scope(User(username=f"user{n}"))
    late = User(username="late")
    first, again = identity.request_scope(late), identity.request_scope(late)
    assert first is not again and first[PRINCIPAL_SCOPE_KEY] == again[PRINCIPAL_SCOPE_KEY]
    assert identity.request_scope(User(username="user0")) is identity.request_scope(
        User(username="user0"))


def test_an_assistants_scope_is_its_credentials_principal(record: AssistantRecord) -> None:
    scope = Identity(HubProvider(), {}, []).assistant_scope(record)
    assert scope[PRINCIPAL_SCOPE_KEY].id == "assistant:bot"
    assert scope[PRINCIPAL_SCOPE_KEY].claims["profile"] == "strict"
    assert scope["user"].access_token.client_id == "assistant:bot"
    assert record.token_sha256[:16] in scope["user"].access_token.token


def test_a_request_is_an_assistants_by_its_principals_role_not_its_name(
        record: AssistantRecord) -> None:
    identity = Identity(HubProvider(), {}, [])
    lookalike = User(username="assistant:eve", name="Eve")  # a hub user, named oddly
    assert scope_is_assistant(identity.assistant_scope(record))
    assert not scope_is_assistant(identity.request_scope(lookalike))
    assert not scope_is_assistant(identity.request_scope(alice()))
    assert not scope_is_assistant({})


def test_forgetting_a_principal_drops_its_scope_and_keeps_the_others(
        record: AssistantRecord) -> None:
    identity = Identity(HubProvider(), {}, [])
    assistant, user = identity.assistant_scope(record), identity.request_scope(alice())
    identity.forget("assistant:bot")
    assert identity.assistant_scope(record) is not assistant
    assert identity.request_scope(alice()) is user


def test_the_binding_resolver_reads_the_principal_from_the_request_scope() -> None:
    principal = Identity(HubProvider(), {}, []).principal_for(alice())
    request = SimpleNamespace(scope={PRINCIPAL_SCOPE_KEY: principal})
    info = SimpleNamespace(request_context=SimpleNamespace(request=request))
    assert scope_principal(info) is principal  # type: ignore[arg-type]
    assert scope_principal(SimpleNamespace(request_context=None)) is None  # type: ignore[arg-type]
    assert scope_owner({}) is None
