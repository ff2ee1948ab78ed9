"""Assistants as principals: their credentials (``store``) and who they are in the layer.

An assistant connects with its own token and acts as ``assistant:NAME`` with role
``assistant``; the analyst (Jupyter login) stays the owner. The role, never the id, says who
is an assistant (``is_assistant``): the id is a name for people (activity, audit). Framework-free:
the Jupyter extension, the CLI and the notebook side all build on this.
"""

from __future__ import annotations

from ..layer.context import Principal
from .store import (
    ASSISTANT_PREFIX,
    TOKEN_PREFIX,
    AssistantRecord,
    AssistantStore,
    AssistantStoreError,
    assistant_id,
    default_store_path,
    looks_like_assistant_token,
    server_identity,
    valid_name,
)

__all__ = [
    "ASSISTANT_PREFIX", "ASSISTANT_ROLE", "DEFAULT_PROFILE", "TOKEN_PREFIX", "AssistantRecord",
    "AssistantStore", "AssistantStoreError", "assistant_id", "assistant_principal",
    "default_store_path",
    "is_assistant", "looks_like_assistant_token", "server_identity", "valid_name",
]

#: The one role every assistant principal has (policies may match it in rules).
ASSISTANT_ROLE = "assistant"
#: The policy profile an assistant's calls run under unless its credential names another.
DEFAULT_PROFILE = "assistant"


def assistant_principal(record: AssistantRecord, **claims: object) -> Principal:
    """The principal an assistant's requests act as: ``assistant:NAME``, role ``assistant``,
    with its profile and client in the claims (claims never grant roles)."""
    return Principal(record.principal_id, frozenset({ASSISTANT_ROLE}),
                     {"assistant": record.name, "profile": record.profile,
                      "client": record.client, **claims})


def is_assistant(principal: Principal) -> bool:
    """Whether ``principal`` is an assistant (not the owner or another Jupyter user): it has
    the assistant role, whatever its id says."""
    return principal.has_role(ASSISTANT_ROLE)
