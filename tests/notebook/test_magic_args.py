"""The %cloudg argument grammar: words, key=value values as JSON/Python literals, options."""

from __future__ import annotations

import pytest

from cloudg_nb.notebook.magic_args import (
    MagicArgumentError,
    check_variable_name,
    parse_body,
    parse_line,
    parse_value,
    split_partial,
    split_words,
)


def test_values_parse_as_json_numbers_booleans_lists_and_objects() -> None:
    assert parse_value("5") == 5
    assert parse_value("2.5") == 2.5
    assert parse_value("true") is True
    assert parse_value('["HIGH", "LOW"]') == ["HIGH", "LOW"]
    assert parse_value('{"env": "prod"}') == {"env": "prod"}


def test_values_that_are_not_json_stay_strings() -> None:
    assert parse_value("customers-db") == "customers-db"
    assert parse_value("arn:aws:s3:::bucket") == "arn:aws:s3:::bucket"
    assert parse_value("[HIGH") == "[HIGH"


def test_python_literals_from_dollar_expansion_parse() -> None:
    assert parse_value("['HIGH', 'LOW']") == ["HIGH", "LOW"]
    assert parse_value("True") is True
    assert parse_value("('a', 'b')") == ["a", "b"]


def test_quoted_value_stays_a_string_even_when_it_looks_like_a_number() -> None:
    assert parse_line('name="123"').arguments == {"name": "123"}


def test_brackets_and_quotes_keep_spaces_inside_one_word() -> None:
    assert split_words('call x ids=["a", "b"] query="web server" -o df') == [
        "call", "x", 'ids=["a", "b"]', 'query="web server"', "-o", "df"]


def test_unclosed_bracket_is_an_error_that_says_how_to_close_it() -> None:
    with pytest.raises(MagicArgumentError, match=r"close it with '\]'"):
        split_words("call x ids=[1, 2")


def test_partial_split_tolerates_an_unfinished_word() -> None:
    assert split_partial('call x ids=["F-') == (["call", "x"], 'ids=["F-')
    assert split_partial("call x ") == (["call", "x"], "")


def test_line_splits_into_words_arguments_and_options() -> None:
    parsed = parse_line("call find_assets internet_exposed=true limit=5 -o df",
                        options={"-o": "out", "--out": "out"})
    assert parsed.words == ["call", "find_assets"]
    assert parsed.arguments == {"internet_exposed": True, "limit": 5}
    assert parsed.options == {"out": "df"}


def test_negative_numbers_are_words_not_options() -> None:
    assert parse_line("audit -5").words == ["audit", "-5"]


def test_unknown_option_names_the_accepted_ones() -> None:
    with pytest.raises(MagicArgumentError, match="Accepted here: --out, -o"):
        parse_line("call x -x 1", options={"-o": "out", "--out": "out"})


def test_option_without_value_is_an_error() -> None:
    with pytest.raises(MagicArgumentError, match="-o needs a value"):
        parse_line("call x -o", options={"-o": "out"})


def test_repeated_argument_is_an_error() -> None:
    with pytest.raises(MagicArgumentError, match="limit is given twice"):
        parse_line("call x limit=1 limit=2")


def test_output_variable_must_be_an_identifier() -> None:
    assert check_variable_name("df") == "df"
    with pytest.raises(MagicArgumentError, match="Python variable name"):
        check_variable_name("1df")
    with pytest.raises(MagicArgumentError):
        check_variable_name("class")


def test_cell_body_parses_as_json_object() -> None:
    assert parse_body('{"ids": ["F-1"], "reason": "accepted risk"}') == {
        "ids": ["F-1"], "reason": "accepted risk"}


def test_cell_body_parses_as_yaml_mapping() -> None:
    assert parse_body("ids:\n  - F-1\n  - F-2\nreason: accepted risk\n") == {
        "ids": ["F-1", "F-2"], "reason": "accepted risk"}


def test_cell_body_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(MagicArgumentError, match="one mapping"):
        parse_body("- a\n- b\n")


def test_empty_cell_body_means_no_arguments() -> None:
    assert parse_body("  \n") == {}
