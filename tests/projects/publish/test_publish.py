"""Publishing: a check in words, then a frozen version live at a
stable address on the sites origin, served like a static host; Update, an
earlier version made live again, Unpublish, a version as a ZIP."""

from __future__ import annotations

import gzip
import io
import zipfile

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from fakes.images import png
from projects.files.results import FileWrite
from projects.lifecycle import project_purge, project_restore, project_trash
from projects.locks import LockHeld, lock_acquire, lock_release
from projects.models import Project, RevisionBlob, Site
from projects.publish import checking, services
from projects.publish.names import name_problem, name_suggested
from projects.publish.services import PublishRefused, site_publish
from projects.services import Author, file_create, file_delete, file_update, file_upload
from projects.sweep import project_sweep
from projects.usage import storage_used
from projects.views.preview import PAGE_REPORT_SCRIPT
from tests.conftest import SITES_HOST

HEAD = '<!doctype html><html lang="en"><head><meta charset="utf-8">'
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'


def page(body: str, title: str = "Bakery") -> str:
    return f"{HEAD}{VIEWPORT}<title>{title}</title></head><body>{body}</body></html>"


def write(project: Project, path: str, content: str) -> None:
    author = Author.person(project.owner)
    if project.files.filter(path=path).exists():
        result = file_update(project=project, path=path, content=content, author=author)
    else:
        result = file_create(project=project, path=path, content=content, author=author)
    assert isinstance(result, FileWrite), result


@pytest.fixture
def site_project(user: User) -> Project:
    project = Project.objects.create(owner=user, name="Lisbon Bakery")
    write(project, "/index.html", page("<h1>Fresh bread</h1><a href='about'>About</a>"))
    write(project, "/about.html", page("<h1>About us</h1>"))
    write(project, "/blog/index.html", page("<h1>Blog</h1>"))
    write(project, "/styles.css", "body { color: #333; }\n" * 60)
    return project


def published(project: Project, name: str = "lisbon-bakery") -> Site:
    version = site_publish(project=project, user=project.owner, name=name)
    assert not isinstance(version, PublishRefused), version
    return version.site


def panel(client: Client, project: Project) -> str:
    return client.get(f"/projects/{project.pk}/publish/").content.decode()


def publish(client: Client, project: Project, **fields: str) -> str:
    return client.post(f"/projects/{project.pk}/publish/go/", fields).content.decode()


# --- the workspace's dialog ----------------------------------------------------------


def test_a_person_publishes_edits_updates_rolls_back_and_unpublishes(
    user_client: Client, sites_client: Client, site_project: Project
) -> None:
    assert 'value="lisbon-bakery"' in panel(user_client, site_project)  # suggested

    said = publish(user_client, site_project, name="lisbon-bakery")
    assert "Version 1 is live." in said
    assert "http://lisbon-bakery.sites.testserver/" in said  # a host of its own
    assert "Fresh bread" in sites_client.get("/s/lisbon-bakery/").content.decode()

    write(site_project, "/index.html", page("<h1>Fresh bread, daily</h1>"))
    assert "daily" not in sites_client.get("/s/lisbon-bakery/").content.decode()  # frozen
    assert "1 file changed since" in panel(user_client, site_project)

    assert "Version 2 is live." in publish(user_client, site_project)  # Update
    assert "daily" in sites_client.get("/s/lisbon-bakery/").content.decode()
    assert "Your files are as published." in panel(user_client, site_project)

    again = user_client.post(f"/projects/{site_project.pk}/publish/versions/1/live/")
    assert "Version 1 is live again." in again.content.decode()
    assert "daily" not in sites_client.get("/s/lisbon-bakery/").content.decode()

    said = user_client.post(f"/projects/{site_project.pk}/publish/off/").content.decode()
    assert "Taken offline" in said
    gone = sites_client.get("/s/lisbon-bakery/")
    assert gone.status_code == 410
    assert "not published" in gone.content.decode()
    assert sites_client.get("/s/lisbon-bakery/about").status_code == 410

    assert "Version 3 is live." in publish(user_client, site_project)  # publish again
    assert sites_client.get("/s/lisbon-bakery/").status_code == 200


def test_the_check_speaks_first_and_publish_anyway_goes_ahead(
    user_client: Client, sites_client: Client, site_project: Project
) -> None:
    write(site_project, "/index.html", "<p>Lorem ipsum</p><a href='menu.html'>Menu</a>")
    said = publish(user_client, site_project, name="lisbon-bakery")
    assert "Links and files that lead nowhere" in said
    assert "<code>/index.html</code>, line 1: menu.html leads to no file." in said
    assert "Publish anyway" in said
    assert not Site.objects.exists()
    assert sites_client.get("/s/lisbon-bakery/").status_code == 404

    said = publish(user_client, site_project, name="lisbon-bakery", anyway="1")
    assert "Version 1 is live." in said
    assert sites_client.get("/s/lisbon-bakery/").status_code == 200


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("ab", "at least 3 characters"),
        ("My Bakery", "lower-case letters, digits and hyphens"),
        ("-bakery", "lower-case letters, digits and hyphens"),
        ("bak--ery", "two hyphens in a row"),
        ("preview", "kept for the server itself"),
        ("static", "kept for the server itself"),
        ("a" * 64, "at most 63 characters"),
    ],
)
def test_a_name_that_cannot_be_an_address_is_refused_in_words(
    user_client: Client, site_project: Project, name: str, said: str
) -> None:
    answer = publish(user_client, site_project, name=name, anyway="1")
    assert said in answer
    assert not Site.objects.exists()


def test_a_name_is_one_sites_only(
    user_client: Client, other_user: User, site_project: Project
) -> None:
    theirs = Project.objects.create(owner=other_user, name="Other")
    write(theirs, "/index.html", page("theirs"))
    published(theirs, "lisbon-bakery")
    said = publish(user_client, site_project, name="lisbon-bakery", anyway="1")
    assert "“lisbon-bakery” is taken: choose another name." in said


def test_names_are_suggested_from_the_project_name() -> None:
    assert name_suggested("Café Lisboa!") == "cafe-lisboa"
    assert name_suggested("  A  ") == "a-site"
    assert name_suggested("Preview") == "preview-site"
    assert name_suggested("日本語") == "my-site"
    assert name_problem(name_suggested("The bakery of Ana & Rui, since 1987")) is None


def test_a_stranger_can_neither_see_nor_change_anothers_publishing(
    other_client: Client, site_project: Project
) -> None:
    published(site_project)
    base = f"/projects/{site_project.pk}/publish/"
    assert other_client.get(base).status_code == 404
    assert other_client.post(base + "go/", {"anyway": "1"}).status_code == 404
    assert other_client.post(base + "off/").status_code == 404
    assert other_client.post(base + "versions/1/live/").status_code == 404
    assert other_client.get(base + "versions/1/zip/").status_code == 404
    assert Client().get(base).status_code == 302  # to sign in


def test_an_empty_project_has_nothing_to_publish(user_client: Client, project: Project) -> None:
    said = publish(user_client, project, name="empty-one", anyway="1")
    assert "nothing to publish" in said


def test_a_version_downloads_as_a_zip_of_what_was_published(
    user_client: Client, site_project: Project
) -> None:
    published(site_project)
    write(site_project, "/index.html", page("changed later"))
    answer = user_client.get(f"/projects/{site_project.pk}/publish/versions/1/zip/")
    assert answer["Content-Disposition"] == 'attachment; filename="lisbon-bakery-v1.zip"'
    archive = zipfile.ZipFile(io.BytesIO(answer.content))
    assert sorted(archive.namelist()) == [
        "about.html",
        "blog/index.html",
        "index.html",
        "styles.css",
    ]
    assert b"Fresh bread" in archive.read("index.html")


# --- serving like a static host ------------------------------------------------------


def test_addresses_resolve_as_a_static_host_resolves_them(
    sites_client: Client, site_project: Project
) -> None:
    published(site_project)
    assert "Fresh bread" in sites_client.get("/s/lisbon-bakery/").content.decode()
    assert "About us" in sites_client.get("/s/lisbon-bakery/about").content.decode()
    assert "About us" in sites_client.get("/s/lisbon-bakery/about.html").content.decode()
    assert "Blog" in sites_client.get("/s/lisbon-bakery/blog/").content.decode()
    moved = sites_client.get("/s/lisbon-bakery/blog")
    assert (moved.status_code, moved["Location"]) == (302, "/s/lisbon-bakery/blog/")
    css = sites_client.get("/s/lisbon-bakery/styles.css")
    assert css["Content-Type"] == "text/css; charset=utf-8"


def test_a_missing_page_is_the_sites_own_404_when_it_has_one(
    sites_client: Client, site_project: Project
) -> None:
    published(site_project)
    plain = sites_client.get("/s/lisbon-bakery/nowhere")
    assert plain.status_code == 404
    assert "This site has no page at this address." in plain.content.decode()
    write(site_project, "/404.html", page("<h1>Lost? Try the bread.</h1>"))
    published(site_project)
    own = sites_client.get("/s/lisbon-bakery/nowhere")
    assert own.status_code == 404
    assert "Lost? Try the bread." in own.content.decode()
    assert sites_client.get("/s/nobody-here/").status_code == 404


def test_a_published_page_is_the_file_as_written_with_static_host_headers(
    user_client: Client, sites_client: Client, site_project: Project
) -> None:
    published(site_project)
    user_client.get("/")  # a session on the app: its cookie goes nowhere near the site
    answer = user_client.get("/s/lisbon-bakery/", HTTP_HOST=SITES_HOST)
    body = answer.content.decode()
    assert body == page("<h1>Fresh bread</h1><a href='about'>About</a>")
    assert PAGE_REPORT_SCRIPT not in body  # never the preview's bridge
    assert not answer.cookies
    assert answer.wsgi_request.COOKIES == {}
    assert answer["X-Content-Type-Options"] == "nosniff"
    assert answer["Content-Security-Policy"].startswith("sandbox allow-scripts")
    assert "allow-same-origin" not in answer["Content-Security-Policy"]
    assert answer["Cache-Control"] == "no-cache"
    assert "X-Frame-Options" not in answer
    assert sites_client.post("/s/lisbon-bakery/").status_code == 405
    head = sites_client.head("/s/lisbon-bakery/")
    assert (head.status_code, head.content) == (200, b"")


def test_etags_gzip_and_byte_ranges(sites_client: Client, site_project: Project) -> None:
    data = png(40, 40)
    stored = file_upload(
        project=site_project,
        path="/img/loaf.png",
        data=data,
        author=Author.person(site_project.owner),
    )
    assert isinstance(stored, FileWrite)
    published(site_project)

    css = sites_client.get("/s/lisbon-bakery/styles.css", HTTP_ACCEPT_ENCODING="gzip, br")
    assert css["Content-Encoding"] == "gzip"
    assert gzip.decompress(css.content) == ("body { color: #333; }\n" * 60).encode()
    assert css["Vary"] == "Accept-Encoding"
    plain = sites_client.get("/s/lisbon-bakery/styles.css")
    assert "Content-Encoding" not in plain
    refused = sites_client.get("/s/lisbon-bakery/styles.css", HTTP_ACCEPT_ENCODING="gzip;q=0")
    assert "Content-Encoding" not in refused

    image = sites_client.get("/s/lisbon-bakery/img/loaf.png")
    assert (image["Content-Type"], image.content) == ("image/png", data)
    again = sites_client.get("/s/lisbon-bakery/img/loaf.png", HTTP_IF_NONE_MATCH=image["ETag"])
    assert again.status_code == 304
    part = sites_client.get("/s/lisbon-bakery/img/loaf.png", HTTP_RANGE="bytes=0-7")
    assert (part.status_code, part.content) == (206, data[:8])
    assert part["Content-Range"] == f"bytes 0-7/{len(data)}"
    beyond = sites_client.get("/s/lisbon-bakery/img/loaf.png", HTTP_RANGE=f"bytes={len(data)}-")
    assert beyond.status_code == 416


def test_a_project_in_the_trash_has_its_site_offline_until_restored(
    sites_client: Client, site_project: Project
) -> None:
    published(site_project)
    assert project_trash(project=site_project) is None
    assert sites_client.get("/s/lisbon-bakery/").status_code == 410
    project_restore(project=site_project)
    assert sites_client.get("/s/lisbon-bakery/").status_code == 200


# --- storage -------------------------------------------------------------------------


def test_a_version_keeps_its_files_through_edits_deletes_and_sweeps(
    sites_client: Client, site_project: Project
) -> None:
    published(site_project)
    author = Author.person(site_project.owner)
    assert isinstance(
        file_delete(project=site_project, path="/about.html", author=author), FileWrite
    )
    project_sweep(project_id=site_project.pk)
    assert "About us" in sites_client.get("/s/lisbon-bakery/about").content.decode()


def test_publishing_costs_no_storage_history_does_not_already_count(
    site_project: Project,
) -> None:
    before = storage_used(site_project.owner_id)
    blobs = RevisionBlob.objects.count()
    published(site_project)
    published(site_project)
    assert storage_used(site_project.owner_id) == before
    assert RevisionBlob.objects.count() == blobs


def test_purging_a_project_takes_its_site_and_versions_with_it(
    sites_client: Client, site_project: Project
) -> None:
    published(site_project)
    assert project_trash(project=site_project) is None
    assert project_purge(project=site_project) is None
    assert not Site.objects.exists()
    assert sites_client.get("/s/lisbon-bakery/").status_code == 404


# --- staff ---------------------------------------------------------------------------


def test_staff_take_a_site_down_with_a_reason_and_put_it_back(
    admin_client: Client, user_client: Client, sites_client: Client, site_project: Project
) -> None:
    site = published(site_project)
    listed = admin_client.get("/admin/projects/site/").content.decode()
    assert "lisbon-bakery" in listed
    change = f"/admin/projects/site/{site.pk}/change/"
    reason = "Reported as <phishing>; see ticket 42."
    assert admin_client.post(change, {"taken_down": reason}).status_code == 302

    down = sites_client.get("/s/lisbon-bakery/about")
    assert down.status_code == 410
    assert "Reported as &lt;phishing&gt;; see ticket 42." in down.content.decode()
    own = Client(HTTP_HOST="lisbon-bakery." + SITES_HOST).get("/about")
    assert own.status_code == 410  # at its own host too
    assert own["Clear-Site-Data"] == '"cache", "storage"'  # its service worker with it
    assert "Reported as &lt;phishing&gt;" in own.content.decode()
    said = publish(user_client, site_project, anyway="1")
    assert "Staff took this site down" in said
    assert "Version 2" not in said
    again = user_client.post(f"/projects/{site_project.pk}/publish/versions/1/live/")
    assert "stays down until they put it back" in again.content.decode()
    assert sites_client.get("/s/lisbon-bakery/").status_code == 410

    preview = sites_client.get(f"/preview/{site_project.preview_token}/")
    assert preview.status_code == 410  # the preview link is no way round it
    assert "Update" not in user_client.get(f"/projects/{site_project.pk}/publish/").content.decode()

    assert admin_client.post(change, {"taken_down": ""}).status_code == 302
    assert sites_client.get(f"/preview/{site_project.preview_token}/").status_code == 200
    assert sites_client.get("/s/lisbon-bakery/").status_code == 200
    assert admin_client.get("/admin/projects/site/add/").status_code == 403


# --- manage.py publish ---------------------------------------------------------------


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("publish", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_a_script_publishes_rolls_back_and_unpublishes(
    sites_client: Client, site_project: Project
) -> None:
    project = str(site_project.pk)
    assert run(project, "--name", "lisbon-bakery")[0] == "lisbon-bakery: version 1 is live.\n"
    write(site_project, "/index.html", page("<h1>v2</h1>"))
    assert run(project)[0] == "lisbon-bakery: version 2 is live.\n"
    assert "v2" in sites_client.get("/s/lisbon-bakery/").content.decode()
    assert run(project, "--make-live", "1")[0] == "lisbon-bakery: version 1 is live again.\n"
    assert "Fresh bread" in sites_client.get("/s/lisbon-bakery/").content.decode()
    assert run(project, "--unpublish")[0] == "lisbon-bakery: taken offline.\n"
    assert sites_client.get("/s/lisbon-bakery/").status_code == 410


def test_a_script_is_told_what_the_check_found_and_why_nothing_happened(
    site_project: Project,
) -> None:
    write(site_project, "/index.html", "<p>TODO</p>")
    with pytest.raises(CommandError, match="nothing was published"):
        run(str(site_project.pk), "--name", "lisbon-bakery")
    assert not Site.objects.exists()
    out, err = run(str(site_project.pk), "--name", "lisbon-bakery", "--anyway")
    assert "/index.html: It has no <title>" in err
    assert out == "lisbon-bakery: version 1 is live.\n"
    with pytest.raises(CommandError, match="has no version 7"):
        run(str(site_project.pk), "--make-live", "7")
    with pytest.raises(CommandError, match="not a project id"):
        run("bakery")
    other = Project.objects.create(owner=site_project.owner, name="Other")
    with pytest.raises(CommandError, match="nothing to publish"):
        run(str(other.pk), "--name", "other-one")
    write(other, "/index.html", page("Other"))
    with pytest.raises(CommandError, match="kept for the server itself"):
        run(str(other.pk), "--name", "admin")


def test_nothing_is_published_while_the_assistant_is_changing_the_files(
    user_client: Client, sites_client: Client, site_project: Project
) -> None:
    lock = lock_acquire(project=site_project, purpose="turn", details={}, ttl=60)
    assert not isinstance(lock, LockHeld)
    said = publish(user_client, site_project, name="lisbon-bakery", anyway="1")
    assert "The assistant is working on this project right now" in said
    assert sites_client.get("/s/lisbon-bakery/").status_code == 404
    lock_release(lock)
    assert "Version 1 is live." in publish(
        user_client, site_project, name="lisbon-bakery", anyway="1"
    )


def test_a_check_that_cannot_finish_is_stopped_and_said(
    monkeypatch: pytest.MonkeyPatch, user_client: Client, site_project: Project
) -> None:
    """html5lib takes minutes on tags nested tens of thousands deep; the check
    runs in a process of its own and is stopped at its time limit."""
    monkeypatch.setattr(checking, "CHECK_SECONDS", 2.0)
    write(site_project, "/index.html", "<div>" * 100_000)
    said = publish(user_client, site_project, name="lisbon-bakery")
    assert "did not finish in 2 seconds" in said
    assert "Publish anyway" in said
    assert not Site.objects.exists()


def test_the_finer_points_of_ranges_and_validators(
    sites_client: Client, site_project: Project
) -> None:
    data = png(40, 40)
    author = Author.person(site_project.owner)
    assert isinstance(
        file_upload(project=site_project, path="/loaf.png", data=data, author=author), FileWrite
    )
    published(site_project)
    url = "/s/lisbon-bakery/loaf.png"
    etag = sites_client.get(url)["ETag"]
    huge = sites_client.get(url, HTTP_RANGE="bytes=0-" + "9" * 4400)  # was a 500
    assert (huge.status_code, huge.content) == (200, data)
    backwards = sites_client.get(url, HTTP_RANGE="bytes=5-2")  # no range: the whole file
    assert (backwards.status_code, backwards.content) == (200, data)
    stale = sites_client.get(url, HTTP_RANGE="bytes=0-7", HTTP_IF_RANGE='"older"')
    assert (stale.status_code, stale.content) == (200, data)  # never half of two versions
    fresh = sites_client.get(url, HTTP_RANGE="bytes=0-7", HTTP_IF_RANGE=etag)
    assert (fresh.status_code, fresh.content) == (206, data[:8])
    star = sites_client.get(url, HTTP_IF_NONE_MATCH="*")
    assert star.status_code == 304
    assert "Content-Type" not in star

    plain = sites_client.get("/s/lisbon-bakery/styles.css")
    packed = sites_client.get("/s/lisbon-bakery/styles.css", HTTP_ACCEPT_ENCODING="gzip")
    assert plain["ETag"] != packed["ETag"]  # two representations, two validators
    again = sites_client.get(
        "/s/lisbon-bakery/styles.css",
        HTTP_ACCEPT_ENCODING="gzip",
        HTTP_IF_NONE_MATCH=packed["ETag"],
    )
    assert again.status_code == 304
    moved = sites_client.get("/s/lisbon-bakery/blog", {"ref": "home"})
    assert moved["Location"] == "/s/lisbon-bakery/blog/?ref=home"


def test_a_closed_accounts_sites_go_offline(sites_client: Client, site_project: Project) -> None:
    published(site_project)
    User.objects.filter(pk=site_project.owner_id).update(is_active=False)
    assert sites_client.get("/s/lisbon-bakery/").status_code == 410


def test_a_taken_down_sites_name_is_kept_from_everyone_once_it_is_gone(
    user: User, site_project: Project
) -> None:
    site = published(site_project)
    site.taken_down = "Phishing."
    site.save()
    assert project_trash(project=site_project) is None
    assert project_purge(project=site_project) is None
    assert not Site.objects.filter(name="lisbon-bakery").exists()

    again = Project.objects.create(owner=user, name="Lisbon Bakery")
    write(again, "/index.html", page("<h1>Sign in to your bank</h1>"))
    refused = site_publish(project=again, user=user, name="lisbon-bakery")
    assert isinstance(refused, PublishRefused)
    assert "is taken" in refused.message
    # A name whose site went the ordinary way is free again.
    assert not isinstance(
        site_publish(project=again, user=user, name="other-bakery"), PublishRefused
    )


def test_the_newest_versions_are_kept(
    site_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "MAX_VERSIONS", 3)
    site = published(site_project)
    for number in range(2, 6):
        write(site_project, "/index.html", page(f"<h1>Version {number}</h1>"))
        published(site_project)
    assert list(site.versions.values_list("number", flat=True)) == [5, 4, 3]
    assert Client(HTTP_HOST="lisbon-bakery." + SITES_HOST).get("/").content.decode() == page(
        "<h1>Version 5</h1>"
    )
