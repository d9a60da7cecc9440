"""The check of a whole site as the assistant reads it: plain JSON,
counts by kind and the first findings with their path and line."""

from __future__ import annotations

import json

from projects.publish.checking import CheckUnfinished
from projects.publish.for_model import check_for_model, site_check_for_model
from projects.publish.site_check import site_check
from projects.starter import STARTER_FILES

BROKEN: dict[str, str | None] = {
    "/index.html": (
        '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width">\n<title>Bakery</title></head>\n'
        '<body>\n<img src="bread.png">\n<a href="menu.html">Menu</a>\n'
        '<a href="cakes.html">Cakes</a>\n<a href="about.html">About</a>\n</body></html>\n'
    ),
}


def test_the_model_is_told_counts_by_kind_and_the_first_findings_with_their_lines() -> None:
    told = check_for_model(site_check(BROKEN), listed=2)
    assert json.loads(json.dumps(told)) == told  # plain JSON, nothing else
    assert told == {
        "finished": True,
        "counts": {"broken_link": 4, "missing_alt": 1},
        "findings": [
            {
                "kind": "broken_link",
                "path": "/index.html",
                "line": 7,
                "text": "bread.png leads to no file.",
            },
            {
                "kind": "broken_link",
                "path": "/index.html",
                "line": 8,
                "text": "menu.html leads to no file.",
            },
        ],
        "not_listed": 3,
    }


def test_a_check_that_did_not_finish_is_said_as_such() -> None:
    told = check_for_model(CheckUnfinished("The check of this site did not finish."))
    assert told == {"finished": False, "message": "The check of this site did not finish."}


def test_the_model_reads_a_check_run_in_a_process_of_its_own() -> None:
    assert site_check_for_model(dict(STARTER_FILES)) == {
        "finished": True,
        "counts": {},
        "findings": [],
        "not_listed": 0,
    }
    told = site_check_for_model(BROKEN)
    assert told["counts"] == {"broken_link": 4, "missing_alt": 1}
