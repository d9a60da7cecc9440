"""Push with the real `git` command line: main's files become the project's,
through the file service and its rules, all or nothing."""

from __future__ import annotations

import http.client
import io
import secrets
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from PIL import Image

from projects.locks import lock_acquire
from projects.models import FileRevision, GitRef, Project, ProjectFile
from projects.usage import storage_used
from tests.gitcli import Git
from tests.projects.git.conftest import address, make_token, turn
from tests.servers import ServerProcess, server_start, shared_settings

pytestmark = pytest.mark.django_db(transaction=True)


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (2, 2), "red").save(out, "PNG")
    return out.getvalue()


def _cloned(git: Git, server: ServerProcess, project: Project, token: str) -> Path:
    git("clone", address(server, project, token), "site")
    return git.home / "site"


def _commit(git: Git, site: Path, files: dict[str, str | bytes], message: str) -> None:
    for name, content in files.items():
        target = site / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    git("add", "-A", cwd=site)
    git("commit", "-m", message, cwd=site)


def _files(project: Project) -> dict[str, str]:
    return dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))


def test_push_writes_files_as_the_persons_revisions(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n", "/old.css": "p{}\n"})
    site = _cloned(git, git_server, project, make_token(user))
    (site / "old.css").unlink()
    _commit(git, site, {"index.html": "<p>Home, edited</p>\n", "img/dot.png": _png()}, "Edit home")
    said = git.run("push", "origin", "main", cwd=site)
    assert said.returncode == 0, said.stderr
    files = _files(project)
    assert files["/index.html"] == "<p>Home, edited</p>\n"
    assert "/old.css" not in files
    assert "/img/dot.png" in files
    newest = FileRevision.objects.filter(project=project).order_by("-pk")[:3]
    assert {row.actor for row in newest} == {FileRevision.Actor.USER}
    assert {row.user_id for row in newest} == {user.pk}
    # The person's commit is main now, and a clone elsewhere has it as pushed.
    mine = git("rev-parse", "HEAD", cwd=site).strip()
    git("clone", address(git_server, project, make_token(user)), "again")
    assert git("rev-parse", "HEAD", cwd=git.home / "again").strip() == mine


def test_a_push_breaking_a_rule_is_refused_whole_naming_each_file(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    site = _cloned(git, git_server, project, make_token(user))
    _commit(
        git,
        site,
        {"index.html": "<p>Changed</p>\n", ".env": "SECRET=1\n", "fake.png": "not a picture"},
        "Too much",
    )
    said = git.run("push", "origin", "main", cwd=site)
    assert said.returncode != 0
    assert "remote: Nothing of this push was kept:" in said.stderr
    assert "remote: .env:" in said.stderr
    assert "remote: fake.png" in said.stderr
    assert _files(project) == {"/index.html": "<p>Home</p>\n"}


def test_a_push_that_is_not_a_fast_forward_is_refused_forced_or_not(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    site = _cloned(git, git_server, project, make_token(user))
    turn(project, user, "An about page", {"/about.html": "<p>About</p>\n"})
    _commit(git, site, {"index.html": "<p>Mine</p>\n"}, "Mine")
    plain = git.run("push", "origin", "main", cwd=site)
    assert plain.returncode != 0
    forced = git.run("push", "--force", "origin", "main", cwd=site)
    assert forced.returncode != 0
    assert "not a fast-forward" in forced.stderr
    assert _files(project)["/index.html"] == "<p>Home</p>\n"
    assert "/about.html" in _files(project)


def test_two_pushes_at_once_keep_one_and_refuse_the_other_whole(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    """Two clones of the same commit push different changes together: whatever
    the order the server sees them in, one is kept and the other is refused
    (by the server, or by git once it sees main moved), never both applied or
    one half-applied over the other."""
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    token = make_token(user)
    first = _cloned(git, git_server, project, token)
    git("clone", address(git_server, project, token), "second")
    second = git.home / "second"
    _commit(git, first, {"index.html": "<p>First</p>\n", "a.html": "<p>A</p>\n"}, "First")
    _commit(git, second, {"index.html": "<p>Second</p>\n", "b.html": "<p>B</p>\n"}, "Second")
    before = FileRevision.objects.filter(project=project).count()
    with ThreadPoolExecutor(max_workers=2) as pool:
        said = list(
            pool.map(lambda site: git.run("push", "origin", "main", cwd=site), [first, second])
        )
    kept = [site for site, done in zip([first, second], said, strict=True) if done.returncode == 0]
    assert len(kept) == 1, [done.stderr for done in said]
    refused = next(done for done in said if done.returncode != 0)
    assert "rejected" in refused.stderr or "not a fast-forward" in refused.stderr
    winner = kept[0]
    expected = (
        {"/index.html": "<p>First</p>\n", "/a.html": "<p>A</p>\n"}
        if winner == first
        else {"/index.html": "<p>Second</p>\n", "/b.html": "<p>B</p>\n"}
    )
    assert _files(project) == expected
    # The winner's two files, each written once.
    assert FileRevision.objects.filter(project=project).count() == before + 2
    git("clone", address(git_server, project, token), "after")
    assert git("rev-parse", "HEAD", cwd=git.home / "after") == git("rev-parse", "HEAD", cwd=winner)


def test_a_push_while_the_assistant_works_is_refused_in_words(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    site = _cloned(git, git_server, project, make_token(user))
    lock_acquire(project=project, purpose="assistant", details={}, ttl=600)
    _commit(git, site, {"index.html": "<p>Mine</p>\n"}, "Mine")
    said = git.run("push", "origin", "main", cwd=site)
    assert said.returncode != 0
    assert "remote: The assistant is working on this project; push again when it finishes." in (
        said.stderr
    )
    assert _files(project)["/index.html"] == "<p>Home</p>\n"


def test_a_read_only_token_clones_but_cannot_push(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    site = _cloned(git, git_server, project, make_token(user, can_write=False))
    _commit(git, site, {"index.html": "<p>Mine</p>\n"}, "Mine")
    said = git.run("push", "origin", "main", cwd=site)
    assert said.returncode != 0
    assert "may only read" in said.stderr
    assert _files(project)["/index.html"] == "<p>Home</p>\n"


def test_another_persons_token_opens_nothing(
    git_server: ServerProcess, git: Git, project: Project, user: User, other_user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    said = git.run("clone", address(git_server, project, make_token(other_user)), "site")
    assert said.returncode != 0
    assert "no project at this address that your token opens" in said.stderr


def test_a_wrong_token_is_refused(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    said = git.run("clone", address(git_server, project, "bit_wrong"), "site")
    assert said.returncode != 0
    assert "Authentication failed" in said.stderr


def test_a_push_fills_an_empty_project_and_keeps_branches_and_tags(
    git_server: ServerProcess, git: Git, project: Project, user: User, tmp_path: Path
) -> None:
    site = git.home / "mine"
    site.mkdir()
    git("init", cwd=site)
    _commit(git, site, {"index.html": "<p>From my machine</p>\n", "css/site.css": "p{}\n"}, "Mine")
    git("tag", "v1", cwd=site)
    git("branch", "draft", cwd=site)
    git("remote", "add", "origin", address(git_server, project, make_token(user)), cwd=site)
    said = git.run("push", "origin", "main", "draft", "v1", cwd=site)
    assert said.returncode == 0, said.stderr
    assert _files(project) == {"/index.html": "<p>From my machine</p>\n", "/css/site.css": "p{}\n"}
    assert set(GitRef.objects.filter(project=project).values_list("name", flat=True)) == {
        "refs/heads/draft",
        "refs/tags/v1",
    }
    listed = git("ls-remote", "origin", cwd=site)
    assert "refs/heads/draft" in listed
    assert "refs/tags/v1" in listed
    assert "refs/heads/main" in listed


def test_a_turn_after_a_push_builds_on_the_pushed_commit(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    site = _cloned(git, git_server, project, make_token(user))
    _commit(git, site, {"index.html": "<p>Mine</p>\n"}, "Mine")
    git("push", "origin", "main", cwd=site)
    turn(project, user, "An about page", {"/about.html": "<p>About</p>\n"})
    said = git("pull", "--ff-only", cwd=site)
    assert "Fast-forward" in said
    assert git("log", "-1", "--format=%s", cwd=site).strip() == "An about page"


def test_wrong_tokens_count_toward_the_sign_in_lockout(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    right = make_token(user)
    for _ in range(5):  # BUILTIT_LOGIN_FAILURES
        said = git.run("ls-remote", address(git_server, project, "bit_wrong", name="locky"))
        assert said.returncode != 0
    said = git.run("ls-remote", address(git_server, project, right, name="locky"))
    assert said.returncode != 0
    assert "Too many wrong sign-ins from here" in said.stderr
    # Another name from the same address is another pair, as with passwords.
    assert "refs/heads/main" in git("ls-remote", address(git_server, project, right))


def test_a_signed_in_push_may_send_more_than_a_strangers_request(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    site = _cloned(git, git_server, project, make_token(user))
    # Text that does not compress: the pack is about as large as the file.
    words = " ".join(secrets.token_hex(8) for _ in range(20_000))
    _commit(git, site, {"notes.txt": words}, "Long notes")
    said = git.run("push", "origin", "main", cwd=site)
    assert said.returncode == 0, said.stderr
    assert _files(project)["/notes.txt"] == words
    # The same body from no one is refused before it is read.
    connection = http.client.HTTPConnection("127.0.0.1", git_server.port, timeout=30)
    connection.putrequest("POST", f"/git/{project.pk}.git/git-receive-pack")
    connection.putheader("Content-Type", "application/x-git-receive-pack-request")
    connection.putheader("Content-Length", str(len(words)))
    connection.endheaders()
    assert connection.getresponse().status == 413


def test_what_a_branch_brings_counts_in_the_owners_storage(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    site = _cloned(git, git_server, project, make_token(user))
    before = storage_used(user.pk)
    git("checkout", "-q", "-b", "draft", cwd=site)
    words = " ".join(secrets.token_hex(8) for _ in range(10_000))
    _commit(git, site, {"draft.txt": words}, "A draft")
    said = git.run("push", "origin", "draft", cwd=site)
    assert said.returncode == 0, said.stderr
    assert "/draft.txt" not in _files(project)  # only main is the site
    assert storage_used(user.pk) - before > 50_000  # its text, compressed


def test_a_push_of_an_object_past_the_bound_is_refused_before_it_is_built(
    git: Git, project: Project, user: User, tmp_path: Path
) -> None:
    # Small limits, so that a small push can mean a large object.
    server = server_start(
        shared_settings(BUILTIT_MAX_FILE_BYTES=64 * 1024, BUILTIT_MAX_BINARY_BYTES=64 * 1024),
        log=tmp_path / "server.log",
    )
    try:
        turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
        site = _cloned(git, server, project, make_token(user))
        page = " ".join(secrets.token_hex(8) for _ in range(3_000))  # 51 KB, no repeats
        _commit(git, site, {"notes.txt": page}, "Notes")
        assert git.run("push", "origin", "main", cwd=site).returncode == 0
        # An edit: `git` sends it as a delta on the pushed page, which passes.
        page += " edited"
        _commit(git, site, {"notes.txt": page}, "Notes edited")
        assert git.run("push", "origin", "main", cwd=site).returncode == 0
        assert _files(project)["/notes.txt"] == page
        # Five times the page: it compresses to little, but would be built whole.
        # (`git` deltas a file on one at most twice smaller; hand-built deltas
        # that build more are refused the same way: test_packs.py.)
        _commit(git, site, {"notes.txt": page * 5}, "Notes five times")
        said = git.run("push", "origin", "main", cwd=site)
    finally:
        server.stop()
    assert said.returncode != 0
    assert "one object of the push would unpack to more than 128 KiB" in said.stderr
    assert _files(project)["/notes.txt"] == page
