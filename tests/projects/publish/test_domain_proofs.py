"""A site's own domain, proven by a DNS TXT record (projects.publish.domains):
a claim serves nothing and blocks nobody until `_builtit.<domain>` holds the
claim's `builtit-verify=` value, as the Publish dialog shows it; the proven
site keeps the domain while its record stays; the server checks by itself
for a while after a claim. Look-ups go to the run's own DNS server
(tests/fakes/dns_server.py, BUILTIT_DNS_SERVERS)."""

from __future__ import annotations

import logging
import re

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client, override_settings

from projects.lifecycle import project_purge, project_trash
from projects.models import Project
from tests.conftest import SITES_HOST
from tests.fakes.dns_server import FakeDNS
from tests.projects.publish.test_publish import page, panel, published, site_project, write

__all__ = ["site_project"]  # a fixture, used by name

SHOP = "shop.example.org"
RECORD = "_builtit." + SHOP
_NAME = re.compile(r'id="domain-record-name">([^<]+)<')
_VALUE = re.compile(r'id="domain-record-value">(builtit-verify=[0-9a-f]{32})<')


@pytest.fixture(autouse=True)
def _no_presses_counted():
    cache.clear()  # Check now's bound on presses
    yield
    cache.clear()


@pytest.fixture
def rival(other_user: User) -> Project:
    """Another person's published site."""
    project = Project.objects.create(owner=other_user, name="Rival")
    write(project, "/index.html", page("<h1>Rival</h1>"))
    published(project, "rival-site")
    return project


def claim(client: Client, project: Project, domain: str) -> str:
    return client.post(
        f"/projects/{project.pk}/publish/domain/", {"domain": domain}
    ).content.decode()


def check_now(client: Client, project: Project) -> str:
    cache.clear()  # a press a moment after another would not look again
    return client.post(f"/projects/{project.pk}/publish/domain/check/").content.decode()


def record_shown(html: str) -> str | None:
    """The TXT value the dialog asks its person to add."""
    found = _VALUE.search(html)
    return found.group(1) if found else None


def prove(client: Client, project: Project, domain: str, dns: FakeDNS) -> str:
    """Claim `domain`, add the TXT record the dialog shows, and Check now."""
    said = claim(client, project, domain)
    name, value = _NAME.search(said), record_shown(said)
    if name is not None and value is not None:
        dns.add_txt(name.group(1), value)
    return check_now(client, project)


def served_at(domain: str) -> int:
    return Client(HTTP_HOST=domain).get("/").status_code


def certified(domain: str) -> int:
    """What a proxy with certificates on demand hears."""
    return Client(HTTP_HOST=SITES_HOST).get("/domain-check", {"domain": domain}).status_code


# --- a claim serves nothing until proven -------------------------------------------------


def test_a_claimed_domain_serves_nothing_until_its_record_is_seen(
    user_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    published(site_project)
    said = claim(user_client, site_project, "https://Shop.Example.org/")
    assert "Add the records below at the DNS host of shop.example.org" in said
    assert RECORD in said
    value = record_shown(said)
    assert value is not None
    assert "Waiting" in said
    assert f"No TXT record at {RECORD} yet." in said
    assert served_at(SHOP) == 400
    assert certified(SHOP) == 404

    dns.set_txt(RECORD, "v=spf1 -all")
    assert "holds 1 TXT value, none of them this site&#x27;s: “v=spf1 -all”" in check_now(
        user_client, site_project
    )
    assert served_at(SHOP) == 400

    dns.add_txt(RECORD, value)
    said = check_now(user_client, site_project)
    assert f"Proven: the record is in place, and the site answers at {SHOP}." in said
    assert served_at(SHOP) == 200
    assert Client(HTTP_HOST=SHOP).get("/about").content.decode() == page("<h1>About us</h1>")
    assert certified(SHOP) == 200
    # The same claim saved again keeps its record: nothing to add anew.
    assert record_shown(claim(user_client, site_project, SHOP)) == value
    assert served_at(SHOP) == 200


def test_a_dropped_domain_whose_dns_still_points_here_waits_for_the_new_claimants_record(
    user_client: Client, other_client: Client, site_project: Project, rival: Project, dns: FakeDNS
) -> None:
    published(site_project)
    prove(user_client, site_project, SHOP, dns)
    assert served_at(SHOP) == 200
    assert "Its own domain is removed." in claim(user_client, site_project, "")
    # The owner's record is still at the DNS host, the CNAME still points here.
    said = claim(other_client, rival, SHOP)
    assert served_at(SHOP) == 400
    assert b"Rival" not in Client(HTTP_HOST=SHOP).get("/").content
    assert certified(SHOP) == 404
    assert "none of them this site&#x27;s" in said
    assert "none of them this site&#x27;s" in check_now(other_client, rival)
    assert served_at(SHOP) == 400
    # Whoever manages the domain's DNS adds the new claimant's record: now it is theirs.
    prove(other_client, rival, SHOP, dns)
    assert Client(HTTP_HOST=SHOP).get("/").content.decode() == page("<h1>Rival</h1>")


def test_a_purged_projects_proof_goes_with_it(
    user_client: Client, other_client: Client, site_project: Project, rival: Project, dns: FakeDNS
) -> None:
    published(site_project)
    prove(user_client, site_project, SHOP, dns)
    assert project_trash(project=site_project) is None
    assert served_at(SHOP) == 410  # in the trash: its domain says the site is gone
    project_purge(project=site_project)
    assert served_at(SHOP) == 400
    claim(other_client, rival, SHOP)
    assert served_at(SHOP) == 400
    assert certified(SHOP) == 404


def test_claiming_before_the_owner_blocks_nobody_and_the_owner_who_proves_takes_it(
    user_client: Client, other_client: Client, site_project: Project, rival: Project, dns: FakeDNS
) -> None:
    said = claim(other_client, rival, SHOP)  # first, but not the domain's owner
    assert served_at(SHOP) == 400
    assert "Saved." in said
    published(site_project)
    said = prove(user_client, site_project, SHOP, dns)
    assert "Another site" not in said
    assert "Proven" in said
    assert served_at(SHOP) == 200
    assert b"Fresh bread" in Client(HTTP_HOST=SHOP).get("/").content
    # The early claim still waits, and is told what the record holds.
    assert "none of them this site&#x27;s" in check_now(other_client, rival)
    assert b"Fresh bread" in Client(HTTP_HOST=SHOP).get("/").content


def test_the_holder_keeps_the_domain_while_its_record_stays_and_loses_it_once_gone(
    user_client: Client, other_client: Client, site_project: Project, rival: Project, dns: FakeDNS
) -> None:
    published(site_project)
    prove(user_client, site_project, SHOP, dns)
    mine = dns_values(dns)
    # Both records at the DNS host: the holder keeps it, the newcomer is told why.
    said = prove(other_client, rival, SHOP, dns)
    assert "another site here holds shop.example.org" in said
    assert b"Fresh bread" in Client(HTTP_HOST=SHOP).get("/").content
    # The holder's record goes: the next proof takes the domain.
    dns.set_txt(RECORD, *[value for value in dns_values(dns) if value not in mine])
    assert "Proven" in check_now(other_client, rival)
    assert b"Rival" in Client(HTTP_HOST=SHOP).get("/").content
    lost = panel(user_client, site_project)
    assert "Taken" in lost
    assert "Another site here proved shop.example.org" in lost


def dns_values(dns: FakeDNS) -> list[str]:
    return list(dns._txt.get(RECORD, []))


# --- refused in words ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("domain", "said"),
    [
        ("evil.localhost", "evil.localhost is under localhost, and localhost is this server"),
        ("x.testserver", "x.testserver is under testserver"),
        ("sites.testserver", "sites.testserver is where this server names its sites"),
        ("shop.sites.testserver", "is where this server names its sites"),
        ("shop.sites.localhost", "is where this server names its sites"),
    ],
)
def test_a_domain_under_the_servers_own_hosts_is_refused_in_words(
    user_client: Client, site_project: Project, domain: str, said: str
) -> None:
    published(site_project)
    answer = claim(user_client, site_project, domain)
    assert said in answer.replace("&#x27;", "'")
    assert record_shown(answer) is None


@override_settings(
    ALLOWED_HOSTS=[
        "testserver",
        "sites.testserver",
        "builder.example.com",
        "sites.builder.example.com",
    ]
)
def test_in_production_a_name_under_the_apps_host_is_refused(
    user_client: Client, site_project: Project
) -> None:
    published(site_project)
    said = claim(user_client, site_project, "x.builder.example.com")
    assert "under builder.example.com, and builder.example.com is this server" in said.replace(
        "&#x27;", "'"
    )
    assert "names its sites" in claim(user_client, site_project, "a.sites.builder.example.com")


def test_a_host_the_server_does_not_answer_is_400_in_one_line_of_the_log(
    user_client: Client, site_project: Project, caplog: pytest.LogCaptureFixture
) -> None:
    published(site_project)
    claim(user_client, site_project, SHOP)  # claimed, never proven
    for host in ("scanner-guess.example.net", "evil.localhost", "Bad_Name." + SITES_HOST, SHOP):
        caplog.clear()
        with caplog.at_level(logging.INFO):
            answer = Client(HTTP_HOST=host).get("/wp-login.php")
        assert answer.status_code == 400, host
        lines = [record for record in caplog.records if record.levelno >= logging.WARNING]
        assert [line.exc_info for line in lines] == [None], [line.getMessage() for line in lines]
        assert host[:10] in lines[0].getMessage()
        assert "\n" not in lines[0].getMessage()
        assert b"serves nothing at this address" in answer.content
