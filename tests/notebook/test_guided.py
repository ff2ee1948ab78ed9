"""The guided investigation's self-checks (notebook 05): for each task a right answer is
right and a wrong one is not, a wrong answer gets a hint that does not give the answer away,
names and ids are accepted in any case and order, and no answer yet is not a wrong one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import cloudg_nb
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.guided import TASKS, check

#: The demo estate's answers (the module recomputes them; a test states them).
RIGHT = {
    "vulnerable-asset": "web-1",
    "entry-point": "web-alb",
    "crown-jewels": ["customers-db", "customer-pii-exports", "db-credentials"],
    "admin-doors": ["bastion-1", "kibana-1", "vm-jump-01"],
}
WRONG = {
    "vulnerable-asset": "web-2",
    "entry-point": "bastion-1",
    "crown-jewels": ["customers-db", "db-credentials"],
    "admin-doors": ["bastion-1", "kibana-1", "vm-jump-01", "web-alb"],
}
#: Every name a right answer holds (a hint must not show any of them).
ANSWER_NAMES = {"web-1", "web-alb", "customers-db", "customer-pii-exports", "db-credentials",
                "bastion-1", "kibana-1", "vm-jump-01"}


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    yield opened
    opened.close()


def test_every_task_of_the_notebook_has_a_right_and_a_wrong_answer_here() -> None:
    assert set(RIGHT) == set(WRONG) == set(TASKS)


@pytest.mark.parametrize("task", list(RIGHT))
def test_the_right_answer_is_right(client: Client, task: str) -> None:
    verdict = check(task, RIGHT[task], client)
    assert verdict.right is True and bool(verdict)
    assert "✓ Right" in verdict._repr_html_()


@pytest.mark.parametrize("task", list(WRONG))
def test_a_wrong_answer_is_not_right_and_gets_a_hint_without_the_answer(
        client: Client, task: str) -> None:
    verdict = check(task, WRONG[task], client)
    assert verdict.right is False and not verdict
    assert "Hint: " in verdict.message
    given = set(WRONG[task]) if isinstance(WRONG[task], list) else {WRONG[task]}
    assert not (ANSWER_NAMES - given) & set(verdict.message.replace(",", " ").split())


def test_names_and_ids_are_accepted_in_any_case_and_order(client: Client) -> None:
    assert check("vulnerable-asset", "AWS-EC2-WEB-1", client)
    assert check("crown-jewels", "db-credentials, aws-rds-customers, Customer-PII-Exports",
                 client)
    assert check("admin-doors", {"vm-jump-01", "kibana-1", "bastion-1"}, client)


def test_one_asset_asked_and_a_list_given_is_not_right(client: Client) -> None:
    verdict = check("entry-point", ["web-alb", "web-1"], client)
    assert verdict.right is False and "one asset" in verdict.message


@pytest.mark.parametrize("blank", [..., None, ""])
def test_no_answer_yet_is_neither_right_nor_wrong(client: Client, blank: object) -> None:
    verdict = check("entry-point", blank, client)
    assert verdict.right is None and "Replace the ..." in verdict.message


def test_an_unknown_task_names_the_tasks(client: Client) -> None:
    verdict = check("entrypoint", "web-alb", client)
    assert verdict.right is False and "entry-point" in verdict.message


def test_without_the_demo_estate_the_check_says_how_to_load_it() -> None:
    with cloudg_nb.local(sample=None) as empty:
        verdict = check("entry-point", "web-alb", empty)
    assert verdict.right is False and "sample_estate name=demo" in verdict.message
