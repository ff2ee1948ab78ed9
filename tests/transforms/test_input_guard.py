"""The input guard refuses argument values that look like secrets — naming the argument and
the kind of secret, never the value — and lets ordinary values (including random-looking
cursors) through."""

from __future__ import annotations

import pytest

from cloudg_nb.layer import InputRejectedError
from cloudg_nb.transforms import GuardSecrets, TransformContext

GH = "ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ"


def _guard(value, **options):
    return GuardSecrets(**options)(value, TransformContext(direction="input"))


def test_a_secret_argument_is_refused_naming_the_argument_not_the_value() -> None:
    with pytest.raises(InputRejectedError) as err:
        _guard({"query": f"find {GH}"})
    assert "'query'" in err.value.message and "github_token" in err.value.message
    assert GH not in err.value.message and GH not in repr(err.value.data)
    assert err.value.data == {"argument": "query", "entity": "github_token"}


def test_nested_secret_arguments_are_found() -> None:
    with pytest.raises(InputRejectedError) as err:
        _guard({"filters": [{"value": "AKIAHBRPOIG8F1CBFNO6"}]})
    assert err.value.data["argument"] == "filters[0].value"


def test_ordinary_arguments_pass_unchanged() -> None:
    args = {"arn": "arn:aws:iam::123456789012:role/x", "cursor": "tzQPxC5HChpoevbLJoLoaeTOdoe5c3ve",
            "limit": 5}
    assert _guard(args) is args


def test_entropy_checking_can_be_switched_on() -> None:
    with pytest.raises(InputRejectedError):
        _guard({"cursor": "tzQPxC5HChpoevbLJoLoaeTOdoe5c3ve"}, entropy=True)
