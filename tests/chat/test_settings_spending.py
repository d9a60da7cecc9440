"""Your spending on the Settings page (chat.spending.person_spending): what a
person's own turns cost today and this month, in the windows their caps count,
against their caps, and this month by project: their own and those shared with
them, a project deleted since by the name the ledger kept. Other people's turns
are theirs."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import Settings

from chat.agent.person_limits import person_caps
from chat.models import Charge, PersonLimits
from chat.spending import person_spending
from projects.lifecycle import project_create, project_purge, project_trash
from projects.models import Project
from projects.sharing import membership_add, membership_remove

URL = "/settings/"


def _project(owner: User, name: str) -> Project:
    made = project_create(owner=owner, name=name)
    assert isinstance(made, Project)
    return made


def _charge(user: User, project: Project, cost: str, **when: object) -> None:
    Charge.objects.create(
        user=user, project=project, project_name=project.name, cost=Decimal(cost), **when
    )


@pytest.fixture
def shared(user: User, other_user: User) -> Project:
    """mallory's project, shared with ada (`user`) as an editor."""
    project = _project(other_user, "Mallory's shop")
    added = membership_add(project=project, by=other_user, username=user.username, role="editor")
    assert not isinstance(added, Exception)
    return project


@pytest.mark.django_db
def test_their_turns_in_their_own_and_a_shared_project_count_and_no_one_elses(
    user: User, other_user: User, project: Project, shared: Project
) -> None:
    now = timezone.now()
    day_start, month_start = now - timedelta(hours=1), now - timedelta(days=10)
    _charge(user, project, "0.30")
    _charge(user, shared, "0.12")
    _charge(user, project, "1.00", created_at=now - timedelta(days=2))  # this month, not today
    _charge(user, project, "7.00", created_at=now - timedelta(days=11))  # before this month
    _charge(other_user, shared, "5.00")  # mallory's own turn in her project
    _charge(other_user, project, "3.00")  # and in ada's

    spent = person_spending(user=user, day_start=day_start, month_start=month_start)

    assert spent.today == Decimal("0.42")
    assert spent.this_month == Decimal("1.42")
    assert [(row.name, row.spent, row.can_open) for row in spent.projects] == [
        ("Empty site", Decimal("1.30"), True),
        ("Mallory's shop", Decimal("0.12"), True),
    ]
    assert spent.others == 0


@pytest.mark.django_db
def test_a_deleted_project_reads_by_its_ledger_name_and_an_unshared_one_is_not_opened(
    user: User, other_user: User, project: Project, shared: Project
) -> None:
    _charge(user, project, "0.20")
    _charge(user, shared, "0.10")
    assert project_trash(project=project) is None
    assert project_purge(project=Project.all_objects.get(pk=project.pk)) is None
    assert membership_remove(project=shared, by=other_user, user=user) is None

    start = timezone.now() - timedelta(hours=1)
    spent = person_spending(user=user, day_start=start, month_start=start)

    assert [(row.project_id, row.name, row.can_open) for row in spent.projects] == [
        (None, "Empty site", False),
        (shared.pk, "Mallory's shop", False),
    ]
    assert spent.this_month == Decimal("0.30")


@pytest.mark.django_db
def test_past_the_bound_the_rest_are_summed(user: User) -> None:
    for number, cost in enumerate(["0.50", "0.40", "0.03", "0.02"]):
        _charge(user, _project(user, f"Site {number}"), cost)
    start = timezone.now() - timedelta(hours=1)

    spent = person_spending(user=user, day_start=start, month_start=start, shown=2)

    assert [row.name for row in spent.projects] == ["Site 0", "Site 1"]
    assert (spent.others, spent.others_spent) == (2, Decimal("0.05"))


@pytest.mark.django_db
def test_the_page_shows_what_was_spent_against_the_caps(
    user: User,
    user_client: Client,
    other_user: User,
    project: Project,
    shared: Project,
    settings: Settings,
) -> None:
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal("5.00")
    settings.BUILTIT_USER_MONTHLY_COST_LIMIT = Decimal("20.00")
    PersonLimits.objects.create(user=user, monthly_cost_limit=Decimal("30.00"))
    _charge(user, project, "0.30")
    _charge(user, shared, "0.12")
    _charge(other_user, shared, "5.00")
    # Just before the month the caps count began: not this month's.
    before = person_caps(user_id=user.pk, project_cap=None).month_start - timedelta(seconds=1)
    _charge(user, project, "9.00", created_at=before)

    page = user_client.get(URL).content.decode()

    assert "<strong>$0.4200</strong> of your $5.00 today: $4.58 left." in page
    assert "<strong>$0.4200</strong> of your $30.00 this month: $29.58 left." in page
    assert f'<a href="/projects/{project.pk}/">Empty site</a>' in page
    assert f'<a href="/projects/{shared.pk}/">Mallory&#x27;s shop</a>' in page


@pytest.mark.django_db
def test_without_caps_or_spending_the_page_says_so(user_client: Client, settings: Settings) -> None:
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal(0)
    settings.BUILTIT_USER_MONTHLY_COST_LIMIT = Decimal(0)

    page = user_client.get(URL).content.decode()

    assert "<strong>$0.00</strong> today, with no daily limit." in page
    assert "<strong>$0.00</strong> this month, with no monthly limit." in page
    assert "Nothing spent this month." in page


@pytest.mark.django_db
def test_the_page_names_a_deleted_project(user: User, user_client: Client) -> None:
    gone = _project(user, "Old blog")
    _charge(user, gone, "0.05")
    assert project_trash(project=gone) is None
    assert project_purge(project=Project.all_objects.get(pk=gone.pk)) is None

    page = user_client.get(URL).content.decode()

    assert 'Old blog <span class="muted small">(deleted)</span>' in page


@pytest.mark.django_db
def test_a_project_they_left_keeps_its_ledger_name_when_renamed(
    user: User, user_client: Client, other_user: User, shared: Project
) -> None:
    _charge(user, shared, "0.10")
    assert membership_remove(project=shared, by=other_user, user=user) is None
    shared.name = "Secret merger with Initech"
    shared.save()

    page = user_client.get(URL).content.decode()

    assert "Secret merger" not in page
    assert "Mallory&#x27;s shop" in page


@pytest.mark.django_db
def test_a_project_they_still_open_reads_by_its_name_now(user: User, shared: Project) -> None:
    _charge(user, shared, "0.10")
    shared.name = "Renamed shop"
    shared.save()
    start = timezone.now() - timedelta(hours=1)

    spent = person_spending(user=user, day_start=start, month_start=start)

    assert [(row.name, row.can_open) for row in spent.projects] == [("Renamed shop", True)]
