"""When a domain's record is looked for (projects.publish.domains): by itself
for three days after a claim, at growing gaps, from the open dialog, a
proxy's `/domain-check` or `manage.py check_domains`, each check made once
whichever process finds it due; and what goes wrong, said in words."""

from __future__ import annotations

import logging
import re
import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection, connections
from django.db.migrations.executor import MigrationExecutor
from django.db.models import F
from django.test import Client, override_settings

from projects.checks import check_dns_servers
from projects.models import DomainClaim, Membership, Project, Site
from projects.publish import dns_records
from projects.publish.domain_proof import next_check
from projects.publish.domains import domain_check_due
from tests.fakes.dns_server import FakeDNS
from tests.projects.publish.test_domain_proofs import (
    RECORD,
    SHOP,
    certified,
    check_now,
    claim,
    record_shown,
    served_at,
    site_project,
)
from tests.projects.publish.test_publish import panel, published

__all__ = ["site_project"]  # a fixture, used by name


def time_passes(project: Project, delta: timedelta) -> None:
    """As if `delta` had gone by since the claim was made and last checked."""
    DomainClaim.objects.filter(site__project=project).update(
        claimed_at=F("claimed_at") - delta,
        checks_from=F("checks_from") - delta,
        checked_at=F("checked_at") - delta,
        next_check_at=F("next_check_at") - delta,
    )


def claimed_with_record(client: Client, project: Project, dns: FakeDNS) -> None:
    """A claim checked at once (nothing there yet), then its record added."""
    published(project)
    value = record_shown(claim(client, project, SHOP))
    assert value is not None
    dns.add_txt(RECORD, value)


def test_checks_come_at_growing_gaps_for_three_days() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)

    def gap(after: timedelta) -> timedelta | None:
        due = next_check(since=start, now=start + after)
        return None if due is None else due - (start + after)

    assert gap(timedelta(0)) == timedelta(minutes=1)
    assert gap(timedelta(hours=2)) == timedelta(minutes=12)
    assert gap(timedelta(days=2)) == timedelta(hours=1)
    assert gap(timedelta(days=3)) is None


def test_the_sweep_finds_the_record_once_the_check_is_due(
    user_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    claimed_with_record(user_client, site_project, dns)
    call_command("check_domains")  # checked a moment ago: not due
    assert served_at(SHOP) == 400
    time_passes(site_project, timedelta(minutes=2))
    call_command("check_domains")
    assert served_at(SHOP) == 200
    assert "Proven" in panel(user_client, site_project)


def test_a_proxys_question_makes_the_check_that_is_due(
    user_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    claimed_with_record(user_client, site_project, dns)
    asked = dns.asked_about(RECORD)
    assert certified(SHOP) == 404
    assert dns.asked_about(RECORD) == asked  # not due: no look-up for the asking
    time_passes(site_project, timedelta(minutes=2))
    assert certified(SHOP) == 200
    assert served_at(SHOP) == 200
    # A name nobody claims costs no look-up, however often it is asked about.
    for _ in range(3):
        assert certified("guess.example.net") == 404
    assert dns.asked_about("_builtit.guess.example.net") == 0


def test_the_open_dialog_hears_of_the_proof_and_stops_asking(
    user_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    claimed_with_record(user_client, site_project, dns)
    shown = panel(user_client, site_project)
    asks = re.search(r'hx-get="([^"]+/publish/domain/state/\?seen=[^"]+)"', shown)
    assert asks is not None
    url = asks.group(1).replace("&amp;", "&")
    assert user_client.get(url).status_code == 204  # nothing new
    time_passes(site_project, timedelta(minutes=2))
    news = user_client.get(url)
    assert news.status_code == 200
    text = news.content.decode()
    assert "Proven" in text
    assert 'id="domain-news" hx-swap-oob="innerHTML">Proven: the site answers at shop' in text
    assert "hx-trigger" not in text  # proven: the dialog asks no more


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_a_member_s_poll_only_reads_the_state_and_never_starts_a_check(
    user_client: Client,
    site_project: Project,
    dns: FakeDNS,
    other_user: User,
    other_client: Client,
    role: str,
) -> None:
    """A check is a DNS look-up made for whoever asks: only someone who may
    publish makes one from the dialog; the sweep checks for everyone else."""
    claimed_with_record(user_client, site_project, dns)
    Membership.objects.create(project=site_project, user=other_user, role=role)
    time_passes(site_project, timedelta(minutes=2))  # a check is due
    asks = re.search(
        r'hx-get="([^"]+/publish/domain/state/\?seen=[^"]+)"', panel(user_client, site_project)
    )
    assert asks is not None
    url = asks.group(1).replace("&amp;", "&")
    looked = dns.asked_about(RECORD)
    assert other_client.get(url).status_code == 204  # the state as it was: nothing new
    assert dns.asked_about(RECORD) == looked
    assert served_at(SHOP) == 400
    assert user_client.get(url).status_code == 200  # the owner's poll makes the check
    assert dns.asked_about(RECORD) > looked
    assert served_at(SHOP) == 200


def test_checks_by_itself_end_after_three_days_and_check_now_starts_them_again(
    user_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    published(site_project)
    claim(user_client, site_project, SHOP)
    time_passes(site_project, timedelta(days=3, minutes=1))
    call_command("check_domains")
    assert DomainClaim.objects.get().next_check_at is None
    shown = panel(user_client, site_project)
    assert "No longer checked by itself" in shown
    assert "hx-trigger" not in shown
    check_now(user_client, site_project)
    assert DomainClaim.objects.get().next_check_at is not None
    assert "Checked again by itself" in panel(user_client, site_project)


def test_check_now_pressed_again_at_once_looks_no_again(
    user_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    published(site_project)
    claim(user_client, site_project, SHOP)
    check_now(user_client, site_project)
    asked = dns.asked_about(RECORD)
    again = user_client.post(f"/projects/{site_project.pk}/publish/domain/check/")
    assert "Checked a moment ago" in again.content.decode()
    assert dns.asked_about(RECORD) == asked


@pytest.mark.django_db(transaction=True)
def test_a_due_check_is_made_once_whichever_processes_find_it(
    user_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    published(site_project)
    claim(user_client, site_project, SHOP)
    time_passes(site_project, timedelta(minutes=2))
    asked = dns.asked_about(RECORD)
    start = threading.Barrier(4)

    def find_it() -> None:
        start.wait()
        try:
            domain_check_due(domain=SHOP)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=find_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert dns.asked_about(RECORD) == asked + 1


def test_a_dropped_claims_record_proves_no_new_claim(
    user_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    claimed_with_record(user_client, site_project, dns)
    first = record_shown(check_now(user_client, site_project))
    assert served_at(SHOP) == 200
    claim(user_client, site_project, "")
    again = claim(user_client, site_project, SHOP)
    assert record_shown(again) not in {None, first}
    assert served_at(SHOP) == 400


def test_a_record_too_large_for_udp_is_read_over_tcp(
    user_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    published(site_project)
    value = record_shown(claim(user_client, site_project, SHOP))
    assert value is not None
    dns.set_txt(RECORD, *[f"note-{n}-" + "x" * 200 for n in range(8)], value)
    assert "Proven" in check_now(user_client, site_project)
    assert ("_builtit.shop.example.org", "tcp") in dns.asked


# --- what goes wrong, in words -------------------------------------------------------------


def test_what_the_dns_servers_say_when_they_fail_is_shown_in_words(
    user_client: Client,
    site_project: Project,
    dns: FakeDNS,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    published(site_project)
    dns.fail(RECORD)
    said = claim(user_client, site_project, SHOP)
    assert f"No DNS server could answer for {RECORD} (SERVFAIL)." in said
    monkeypatch.setattr(dns_records, "TIMEOUT", 0.2)
    monkeypatch.setattr(dns_records, "LIFETIME", 0.4)
    dns.silence(RECORD)
    assert "The DNS servers did not answer within 0.4 seconds." in check_now(
        user_client, site_project
    )
    with override_settings(BUILTIT_DNS_SERVERS="dns.example.net"):
        said = check_now(user_client, site_project)
    assert "BUILTIT_DNS_SERVERS is wrong" in said
    assert served_at(SHOP) == 400
    assert not [record for record in caplog.records if record.exc_info]
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


@pytest.mark.parametrize(
    ("servers", "error"),
    [
        ("", False),
        ("9.9.9.9, 149.112.112.112", False),
        ("127.0.0.1:5353,[::1]:53,2620:fe::fe", False),
        ("dns.google", True),
        ("9.9.9.9:99999", True),
        ("9.9.9.9:", True),
        ("[::1]x", True),
    ],
)
def test_a_malformed_dns_servers_setting_is_a_configuration_error(
    servers: str, error: bool
) -> None:
    with override_settings(BUILTIT_DNS_SERVERS=servers):
        found = check_dns_servers()
    assert [message.id for message in found] == (["projects.E002"] if error else [])


@pytest.mark.django_db(transaction=True)
def test_the_migration_makes_every_domain_named_before_wait_for_its_record(
    user: object,
) -> None:
    old = [("projects", "0012_site_password_domain_held_names")]
    executor = MigrationExecutor(connection)
    executor.migrate(old)
    old_apps = executor.loader.project_state(old).apps
    owner = old_apps.get_model("auth", "User").objects.create(username="before-proofs")
    project = old_apps.get_model("projects", "Project").objects.create(owner=owner, name="Old")
    old_apps.get_model("projects", "Site").objects.create(
        project=project, name="old-site", domain=SHOP
    )
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    site = Site.objects.get(name="old-site")
    assert site.domain is None
    claim_row = DomainClaim.objects.get(site=site)
    assert claim_row.domain == SHOP
    assert claim_row.state == DomainClaim.State.WAITING
    assert claim_row.next_check_at is not None
    assert served_at(SHOP) == 400


def test_staff_see_a_sites_claim_and_can_drop_its_domain(
    admin_client: Client, user_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    claimed_with_record(user_client, site_project, dns)
    check_now(user_client, site_project)
    site = Site.objects.get()
    shown = admin_client.get(f"/admin/projects/site/{site.pk}/change/").content.decode()
    assert f"{SHOP}: proven. The record is in place." in shown
    dropped = admin_client.post(
        "/admin/projects/site/", {"action": "drop_domains", "_selected_action": [site.pk]}
    )
    assert dropped.status_code == 302
    assert served_at(SHOP) == 400
    assert not DomainClaim.objects.exists()
    assert "Remove" not in panel(user_client, site_project)
