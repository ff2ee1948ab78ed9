"""Results as the notebook sees them: DataFrames, captions, transform notes, error hints."""

from __future__ import annotations

from cloudg_nb.notebook.call_result import Result, hints_from


def _wire(structured: object, *, meta: dict | None = None, error: bool = False,
          text: str = "t") -> dict:
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured,
            "isError": error, "_meta": meta or {}}


def test_items_become_a_dataframe_and_caption_counts_them() -> None:
    result = Result.from_wire("find_assets", {}, _wire(
        {"dataset": "demo", "total": 40, "returned": 2, "next_cursor": "c2",
         "items": [{"id": "a"}, {"id": "b"}]}))
    assert list(result.df["id"]) == ["a", "b"]
    assert result.next_cursor == "c2"
    assert result.caption == "2 of 40 rows · dataset demo · next page: %cloudg next"


def test_caption_shows_the_dataset_version_when_the_result_has_one() -> None:
    result = Result.from_wire("x", {}, _wire(
        {"dataset": "demo", "version": 3, "total": 1, "items": [{"id": "a"}]}))
    assert result.caption == "1 rows · dataset demo v3"


def test_one_list_of_records_beside_scalars_is_a_list_result() -> None:
    result = Result.from_wire("attack_paths", {}, _wire(
        {"dataset": "demo", "paths": [{"hops": 2}, {"hops": 3}]}))
    assert list(result.df["hops"]) == [2, 3]


def test_a_record_with_nested_parts_is_a_dict_result() -> None:
    result = Result.from_wire("get_asset", {}, _wire(
        {"asset": {"id": "a"}, "findings": [{"id": "f"}]}))
    assert result.df is None and not result.is_list


def test_error_result_carries_code_message_and_close_matches() -> None:
    result = Result.from_wire("get_asset", {"ref": "web"}, _wire(
        None, error=True, text="No asset matches the ref.",
        meta={"cloudg/error_code": -32602,
              "cloudg/error_data": {"field": "ref", "close_matches": ["web-1", "web-2"]}}))
    assert result.is_error and result.error is not None
    assert (result.error.code, result.error.message) == (-32602, "No asset matches the ref.")
    assert result.error.hints == ["web-1", "web-2"]
    assert result.error.data["field"] == "ref"


def test_validation_errors_hint_the_accepted_argument_closest_to_the_unknown_one() -> None:
    data = [{"loc": ["limt"], "msg": "Extra inputs are not permitted", "type": "extra_forbidden"},
            {"loc": [], "msg": "Accepted arguments: query, limit, cursor",
             "type": "accepted_arguments"}]
    assert hints_from(data) == ["limit"]


def test_transform_note_counts_what_the_policy_changed() -> None:
    result = Result.from_wire("x", {}, _wire({}, meta={"cloudg/transforms": {
        "classification": "internal", "redacted": {"secret": 2, "email": 1},
        "pseudonymized": {"account_id": 5}}}))
    assert result.transform_note == "redacted 3 (email, secret) · pseudonymized 5 (account_id)"


def test_transform_note_is_none_when_nothing_changed() -> None:
    result = Result.from_wire("x", {}, _wire({}, meta={"cloudg/transforms": {
        "classification": "internal", "audience": ["user"]}}))
    assert result.transform_note is None
