"""The eight file tools and their registry, called as the loop calls them: arguments
parsed from the model's JSON text, handlers run against the real database with the
versions known at the start of the turn."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from django.contrib.auth.models import User
from pydantic import Field

from chat.models import Conversation, Message
from chat.services import conversation_create, message_create
from chat.tools import (
    FILE_TOOLS,
    PATH_RULES,
    Arguments,
    ToolContext,
    ToolOutcome,
    ToolRegistry,
    file_tools,
    tool_schema,
)
from chat.tools.files import EditBlock
from common.jsontypes import JSONObject, JSONValue
from projects.files.paths import ALLOWED_EXTENSIONS
from projects.files.results import FileWrite
from projects.models import FileRevision, Project, ProjectFile
from projects.selectors import file_list
from projects.services import Author, file_create, file_update
from projects.starter import STARTER_FILES

TOOL_NAMES = [
    "list_project_files",
    "read_file",
    "create_file",
    "update_file",
    "edit_file",
    "rename_file",
    "delete_file",
    "search_files",
    "check_site",  # not a file tool, but offered with them (chat.tools.check_site)
]
INDEX = STARTER_FILES["/index.html"]


def turn_start(project: Project) -> dict[str, int]:
    """The versions the loop lets the model write from when a turn begins."""
    return {info.path: info.version for info in file_list(project)}


def parsed(name: str, arguments: JSONObject | str) -> Any:
    tool = file_tools().get(name)
    assert tool is not None, name
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    args = tool.parse(raw)
    assert not isinstance(args, ToolOutcome), args.result
    return args


def call(
    project: Project,
    name: str,
    arguments: JSONObject | str,
    *,
    author: Author,
    known: Mapping[str, int] | None = None,
) -> ToolOutcome:
    tool = file_tools().get(name)
    assert tool is not None, name
    versions = turn_start(project) if known is None else known
    outcome = tool.handler(parsed(name, arguments), ToolContext(project, author, versions))
    json.dumps(outcome.result)  # whatever happens, the model can be sent it
    return outcome


def succeeded(outcome: ToolOutcome) -> JSONObject:
    assert outcome.ok, outcome.result
    assert outcome.result["success"] is True
    return outcome.result


def failed(outcome: ToolOutcome) -> str:
    assert not outcome.ok, outcome.result
    assert outcome.result["success"] is False
    error = outcome.result["error"]
    assert isinstance(error, str)
    assert error
    return error


def parse_failure(name: str, raw: str) -> ToolOutcome:
    tool = file_tools().get(name)
    assert tool is not None
    outcome = tool.parse(raw)
    assert isinstance(outcome, ToolOutcome), outcome
    assert not outcome.ok
    json.dumps(outcome.result)
    return outcome


def content_of(project: Project, path: str) -> str:
    return ProjectFile.objects.get(project=project, path=path).content


def version_of(project: Project, path: str) -> int:
    return ProjectFile.objects.get(project=project, path=path).version


def paths_of(project: Project) -> list[str]:
    return list(ProjectFile.objects.filter(project=project).values_list("path", flat=True))


def revisions(project: Project) -> list[FileRevision]:
    """The revisions recorded since the project was set up (not the starter files' creation)."""
    return list(
        FileRevision.objects.filter(project=project)
        .exclude(action=FileRevision.Action.CREATE, path__in=STARTER_FILES)
        .order_by("id")
    )


def someone_edits(project: Project, user: User, path: str, content: str) -> None:
    """The person saves the file in the editor while the model works."""
    result = file_update(project=project, path=path, content=content, author=Author.person(user))
    assert isinstance(result, FileWrite), result


@pytest.fixture
def assistant(user: User) -> Author:
    return Author.assistant(user)


@pytest.fixture
def site(starter_project: Project) -> Project:
    return starter_project


@pytest.fixture
def message(site: Project) -> Message:
    conversation: Conversation = conversation_create(project=site, title="Make it blue")
    return message_create(
        conversation=conversation, sequence=2, role=Message.Role.ASSISTANT, content=""
    )


# --- the registry ------------------------------------------------------------


def test_file_tools_offers_the_nine_tools_in_order():
    registry = file_tools()
    assert registry.names() == TOOL_NAMES
    assert [spec.name for spec in registry.specs()] == TOOL_NAMES


def test_only_the_changing_tools_are_marked_as_writes():
    writers = {tool.name for tool in FILE_TOOLS if tool.writes}
    assert writers == {"create_file", "update_file", "edit_file", "rename_file", "delete_file"}


def test_every_spec_has_a_description_and_an_object_schema():
    for spec in file_tools().specs():
        assert len(spec.description) > 40, spec.name
        assert spec.parameters["type"] == "object"
        wire = spec.to_wire()
        assert wire["type"] == "function"
        json.dumps(wire)


def test_tools_that_take_a_new_path_describe_the_path_rules():
    registry = file_tools()
    for name in ("create_file", "rename_file"):
        tool = registry.get(name)
        assert tool is not None
        assert PATH_RULES in tool.description
    for extension in ALLOWED_EXTENSIONS:
        assert extension in PATH_RULES


def test_unknown_tool_is_an_error_result_naming_the_tools():
    outcome = file_tools().unknown("write_file")
    error = failed(outcome)
    assert "'write_file'" in error
    for name in TOOL_NAMES:
        assert name in error
    assert outcome.summary == "Unknown tool write_file"
    json.dumps(outcome.result)


def test_unknown_tool_cuts_an_absurdly_long_name():
    outcome = file_tools().unknown("x" * 5000)
    assert len(failed(outcome)) < 1000
    assert len(outcome.summary) < 100


def test_registry_refuses_two_tools_with_one_name():
    with pytest.raises(ValueError, match="read_file"):
        ToolRegistry([*FILE_TOOLS, FILE_TOOLS[1]])


def test_registry_get_returns_none_for_an_unknown_name():
    assert file_tools().get("format_disk") is None


# --- parsing arguments -------------------------------------------------------


def test_parse_returns_the_validated_arguments():
    args = parsed("read_file", '{"path": "index.html", "start_line": 2, "end_line": 4}')
    assert (args.path, args.start_line, args.end_line) == ("index.html", 2, 4)


@pytest.mark.parametrize("raw", ["", "   ", "\n"])
def test_parse_treats_empty_arguments_as_an_empty_object(raw):
    tool = file_tools().get("list_project_files")
    assert tool is not None
    assert isinstance(tool.parse(raw), Arguments)


def test_parse_of_empty_arguments_still_requires_the_required_fields():
    outcome = parse_failure("read_file", "")
    assert "path" in failed(outcome)
    assert "field required" in failed(outcome)


@pytest.mark.parametrize("raw", ['{"path": "index.html"', "{path: 'index.html'}", "nope", "{}}"])
def test_parse_refuses_invalid_json(raw):
    outcome = parse_failure("read_file", raw)
    error = failed(outcome)
    assert "not valid JSON" in error
    assert "read_file" in error
    assert outcome.summary == "Arguments were not valid JSON"


def test_parse_refuses_absurdly_nested_json_without_raising():
    outcome = parse_failure("read_file", "[" * 100_000)
    assert "not valid JSON" in failed(outcome)


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ('["index.html"]', "an array"),
        ('"index.html"', "a string"),
        ("42", "a number"),
        ("1.5", "a number"),
        ("true", "a boolean"),
        ("null", "null"),
    ],
)
def test_parse_refuses_json_that_is_not_an_object(raw, kind):
    outcome = parse_failure("read_file", raw)
    assert failed(outcome) == f"The arguments for read_file must be a JSON object, not {kind}."
    assert outcome.summary == "Arguments were not a JSON object"


def test_parse_refuses_a_missing_required_field():
    outcome = parse_failure("create_file", '{"path": "/a.html"}')
    error = failed(outcome)
    assert "do not match its schema" in error
    assert "content: field required" in error
    assert outcome.summary == "Arguments did not match the schema"


@pytest.mark.parametrize(
    ("name", "raw", "problem"),
    [
        ("read_file", '{"path": 3}', "path: input should be a valid string"),
        ("read_file", '{"path": "/a.html", "start_line": "two"}', "start_line"),
        ("read_file", '{"path": "/a.html", "start_line": 0}', "greater than or equal to 1"),
        ("edit_file", '{"path": "/a.html", "edits": "swap"}', "edits"),
        ("edit_file", '{"path": "/a.html", "edits": []}', "edits"),
        ("edit_file", '{"path": "/a.html", "edits": [{"search": "", "replace": "x"}]}', "search"),
        ("edit_file", '{"path": "/a.html", "edits": [{"search": "a"}]}', "edits.0.replace"),
        ("search_files", '{"query": ""}', "query"),
        ("search_files", json.dumps({"query": "x" * 501}), "query"),
    ],
)
def test_parse_refuses_arguments_that_break_the_schema(name, raw, problem):
    assert problem in failed(parse_failure(name, raw))


def test_parse_reports_the_problem_without_echoing_a_huge_argument():
    outcome = parse_failure("read_file", json.dumps({"path": ["x" * 10_000]}))
    assert len(failed(outcome)) < 1000


def test_parse_ignores_unknown_keys():
    args = parsed("create_file", {"path": "/a.html", "content": "A", "mode": "w", "force": True})
    assert args.model_dump() == {"path": "/a.html", "content": "A"}


def test_parse_ignores_unknown_keys_inside_edit_blocks():
    args = parsed(
        "edit_file", {"path": "/a.html", "edits": [{"search": "a", "replace": "b", "why": "?"}]}
    )
    assert args.edits == [EditBlock(search="a", replace="b")]


def test_parse_fills_defaults_for_optional_fields():
    args = parsed("search_files", {"query": "hello"})
    assert args.case_sensitive is False
    args = parsed("read_file", {"path": "/a.html"})
    assert (args.start_line, args.end_line) == (None, None)


# --- schemas -----------------------------------------------------------------


def _keys(node: JSONValue) -> set[str]:
    """Every key used anywhere in a schema, except the names of properties."""
    if isinstance(node, list):
        return {key for item in node for key in _keys(item)}
    if not isinstance(node, dict):
        return set()
    found: set[str] = set()
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            found |= {k for item in value.values() for k in _keys(item)}
        else:
            found |= {key} | _keys(value)
    return found


@pytest.mark.parametrize("tool", FILE_TOOLS, ids=lambda tool: tool.name)
def test_schema_has_no_titles_or_references(tool):
    keys = _keys(tool_schema(tool.arguments))
    assert not keys & {"title", "$ref", "$defs", "anyOf", "allOf", "oneOf"}


@pytest.mark.parametrize(
    ("name", "required"),
    [
        ("list_project_files", []),
        ("read_file", ["path"]),
        ("create_file", ["path", "content"]),
        ("update_file", ["path", "content"]),
        ("edit_file", ["path", "edits"]),
        ("rename_file", ["path", "new_path"]),
        ("delete_file", ["path"]),
        ("search_files", ["query"]),
    ],
)
def test_schema_lists_exactly_the_required_fields(name, required):
    tool = file_tools().get(name)
    assert tool is not None
    schema = tool_schema(tool.arguments)
    assert schema.get("required", []) == required
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert set(required) <= set(properties)


def test_schema_gives_optional_line_numbers_as_plain_integers():
    tool = file_tools().get("read_file")
    assert tool is not None
    properties = tool_schema(tool.arguments)["properties"]
    assert isinstance(properties, dict)
    for name in ("start_line", "end_line"):
        field = properties[name]
        assert isinstance(field, dict)
        assert field["type"] == "integer"
        assert field["minimum"] == 1
        assert "default" not in field
        assert field["description"]


def test_schema_inlines_the_edit_blocks():
    tool = file_tools().get("edit_file")
    assert tool is not None
    edits = tool_schema(tool.arguments)["properties"]
    assert isinstance(edits, dict)
    assert edits["edits"] == {
        "type": "array",
        "description": "Search/replace blocks applied in order; all apply or none do.",
        "minItems": 1,
        "maxItems": 50,
        "items": {
            "type": "object",
            "properties": {
                "search": {
                    "type": "string",
                    "minLength": 1,
                    "description": EditBlock.model_fields["search"].description,
                },
                "replace": {
                    "type": "string",
                    "description": "The text to put in its place; empty to delete it.",
                },
            },
            "required": ["search", "replace"],
        },
    }


def test_schema_keeps_a_boolean_default():
    tool = file_tools().get("search_files")
    assert tool is not None
    properties = tool_schema(tool.arguments)["properties"]
    assert isinstance(properties, dict)
    assert properties["case_sensitive"] == {
        "type": "boolean",
        "default": False,
        "description": "Match letter case exactly.",
    }


class _Titled(Arguments):
    title: str = Field(description="A property that happens to be called title.")
    block: EditBlock | None = None


def test_schema_keeps_a_property_named_title_and_inlines_an_optional_model():
    schema = tool_schema(_Titled)
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert properties["title"] == {
        "type": "string",
        "description": "A property that happens to be called title.",
    }
    block = properties["block"]
    assert isinstance(block, dict)
    assert block["type"] == "object"
    assert "anyOf" not in block
    assert "$ref" not in json.dumps(schema)
    assert schema["required"] == ["title"]


def test_spec_parameters_are_the_tool_schema():
    for tool in FILE_TOOLS:
        assert tool.spec().parameters == tool_schema(tool.arguments)


# --- list_project_files --------------------------------------------------------


def test_list_project_files_lists_paths_sizes_and_limits(site, assistant, settings):
    settings.BUILTIT_MAX_FILES = 7
    outcome = call(site, "list_project_files", {}, author=assistant)
    result = succeeded(outcome)
    sizes = {path: len(text.encode()) for path, text in STARTER_FILES.items()}
    assert result["files"] == [{"path": path, "size": sizes[path]} for path in sorted(sizes)]
    assert result["count"] == len(STARTER_FILES)
    assert result["total_size"] == sum(sizes.values())
    assert result["limits"] == {
        "max_files": 7,
        "max_file_bytes": settings.BUILTIT_MAX_FILE_BYTES,
        "max_project_bytes": settings.BUILTIT_MAX_PROJECT_BYTES,
    }
    assert outcome.summary == "Listed 4 files (1.9 KiB)"
    assert (outcome.path, outcome.changed, dict(outcome.seen)) == (None, (), {})


def test_list_project_files_of_an_empty_project(project, assistant):
    outcome = call(project, "list_project_files", "", author=assistant)
    result = succeeded(outcome)
    assert (result["files"], result["count"], result["total_size"]) == ([], 0, 0)
    assert outcome.summary == "Listed 0 files (0 bytes)"


def test_list_project_files_says_file_for_one(project, assistant):
    file_create(project=project, path="/a.txt", content="hi", author=assistant)
    assert call(project, "list_project_files", {}, author=assistant).summary == (
        "Listed 1 file (2 bytes)"
    )


# --- read_file -----------------------------------------------------------------


def test_read_file_returns_the_content_and_what_the_model_now_knows(site, user, assistant):
    someone_edits(site, user, "/script.js", "one\ntwo\n")
    outcome = call(site, "read_file", {"path": "script.js"}, author=assistant)
    assert succeeded(outcome) == {
        "success": True,
        "path": "/script.js",
        "content": "one\ntwo\n",
        "total_lines": 2,
        "start_line": 1,
        "end_line": 2,
        "size": 8,
    }
    assert outcome.summary == "Read /script.js (2 lines)"
    assert outcome.path == "/script.js"
    assert dict(outcome.seen) == {"/script.js": 2}
    assert outcome.changed == ()


def test_read_file_returns_a_line_range(site, assistant):
    outcome = call(
        site, "read_file", {"path": "/index.html", "start_line": 2, "end_line": 3}, author=assistant
    )
    result = succeeded(outcome)
    assert result["content"] == "".join(INDEX.splitlines(keepends=True)[1:3])
    assert (result["start_line"], result["end_line"], result["total_lines"]) == (2, 3, 18)
    assert outcome.summary == "Read /index.html (18 lines, lines 2-3)"
    assert dict(outcome.seen) == {"/index.html": 1}


def test_read_file_clamps_a_range_past_the_end(site, assistant):
    outcome = call(
        site, "read_file", {"path": "/script.js", "start_line": 4, "end_line": 99}, author=assistant
    )
    result = succeeded(outcome)
    assert (result["start_line"], result["end_line"]) == (4, 5)
    assert outcome.summary == "Read /script.js (5 lines, lines 4-5)"


def test_read_file_of_a_whole_range_reads_like_the_whole_file(site, assistant):
    outcome = call(
        site, "read_file", {"path": "/script.js", "start_line": 1, "end_line": 5}, author=assistant
    )
    assert outcome.summary == "Read /script.js (5 lines)"


def test_read_file_of_an_empty_file(project, assistant):
    file_create(project=project, path="/empty.txt", content="", author=assistant)
    outcome = call(project, "read_file", {"path": "/empty.txt"}, author=assistant)
    result = succeeded(outcome)
    assert (result["content"], result["total_lines"], result["size"]) == ("", 0, 0)
    assert outcome.summary == "Read /empty.txt (0 lines)"
    assert dict(outcome.seen) == {"/empty.txt": 1}


@pytest.mark.parametrize(("start", "end"), [(9, None), (3, 2)])
def test_read_file_refuses_a_range_outside_the_file(site, assistant, start, end):
    outcome = call(
        site,
        "read_file",
        {"path": "/script.js", "start_line": start, "end_line": end},
        author=assistant,
    )
    error = failed(outcome)
    assert "are not a range within /script.js, which has 5 lines" in error
    assert outcome.seen == {}


def test_read_file_of_a_missing_path_suggests_the_likely_file(site, assistant):
    outcome = call(site, "read_file", {"path": "/indx.html"}, author=assistant)
    assert failed(outcome) == "File /indx.html does not exist. Did you mean /index.html?"
    assert outcome.summary == failed(outcome)
    assert (outcome.changed, dict(outcome.seen)) == ((), {})


def test_read_file_suggests_the_file_that_differs_only_in_case(site, assistant):
    outcome = call(site, "read_file", {"path": "/INDEX.HTML"}, author=assistant)
    assert "Did you mean /index.html?" in failed(outcome)


def test_read_file_in_an_empty_project_says_there_are_no_files(project, assistant):
    outcome = call(project, "read_file", {"path": "/index.html"}, author=assistant)
    assert failed(outcome) == "File /index.html does not exist. The project has no files yet."


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("../x.html", "'.' and '..' are not allowed"),
        ("/a/../index.html", "'.' and '..' are not allowed"),
        ("/logo.bmp", "'.bmp' files are not allowed"),
        ("/my page.html", "no spaces"),
        ("/.env.txt", "hidden names"),
        ("C:\\site\\index.html", "use / to separate folders"),
        ("", "The path is empty"),
    ],
)
def test_read_file_refuses_a_bad_path_and_says_which_rule(site, assistant, path, problem):
    outcome = call(site, "read_file", {"path": path}, author=assistant)
    assert problem in failed(outcome)


# --- create_file ---------------------------------------------------------------


def test_create_file_creates_the_file(project, assistant, user):
    outcome = call(
        project, "create_file", {"path": "about.html", "content": "<p>Hi</p>"}, author=assistant
    )
    result = succeeded(outcome)
    assert result == {"success": True, "path": "/about.html", "action": "create", "size": 9}
    assert type(result["action"]) is str
    assert outcome.summary == "Created /about.html (9 bytes)"
    assert outcome.path == "/about.html"
    assert outcome.changed == ("/about.html",)
    assert dict(outcome.seen) == {"/about.html": 1}
    assert content_of(project, "/about.html") == "<p>Hi</p>"
    [revision] = revisions(project)
    assert (revision.action, revision.actor, revision.user) == ("create", "assistant", user)
    assert revision.message_id is None


def test_create_file_reports_sizes_in_kibibytes(project, assistant):
    outcome = call(
        project, "create_file", {"path": "/big.css", "content": "a" * 2048}, author=assistant
    )
    assert outcome.summary == "Created /big.css (2 KiB)"


def test_create_file_in_a_folder(project, assistant):
    outcome = call(
        project, "create_file", {"path": "/css/site.css", "content": ""}, author=assistant
    )
    assert succeeded(outcome)["path"] == "/css/site.css"
    assert paths_of(project) == ["/css/site.css"]


def test_create_file_refuses_an_existing_path(site, assistant):
    outcome = call(site, "create_file", {"path": "/index.html", "content": "new"}, author=assistant)
    assert "Use update or edit" in failed(outcome)  # the model is told what to do
    # The card says it in a person's words, with no tool names.
    assert outcome.summary == "There is already a file called /index.html."
    assert content_of(site, "/index.html") == INDEX
    assert revisions(site) == []


def test_create_file_with_the_content_already_there_is_an_unchanged_success(site, assistant):
    outcome = call(site, "create_file", {"path": "/index.html", "content": INDEX}, author=assistant)
    result = succeeded(outcome)
    assert result["unchanged"] is True
    assert "nothing was changed" in str(result["note"])
    assert outcome.summary == "Unchanged: it already had this content"
    assert outcome.changed == ()
    assert outcome.seen == {"/index.html": version_of(site, "/index.html")}
    assert revisions(site) == []


def test_create_file_refuses_a_name_differing_only_in_case(site, assistant):
    outcome = call(site, "create_file", {"path": "/Index.html", "content": "x"}, author=assistant)
    assert "only in letter case" in failed(outcome)
    assert sorted(paths_of(site)) == sorted(STARTER_FILES)


def test_create_file_refuses_an_image_extension(project, assistant):
    outcome = call(project, "create_file", {"path": "/logo.png", "content": "x"}, author=assistant)
    error = failed(outcome)
    assert "/logo.png is a binary file" in error
    assert "cannot be written or edited as text" in error
    assert ".svg" in error
    assert paths_of(project) == []


def test_create_file_refuses_a_path_outside_the_project(project, assistant):
    outcome = call(project, "create_file", {"path": "../x.html", "content": "x"}, author=assistant)
    assert "Invalid path '../x.html'" in failed(outcome)
    assert paths_of(project) == []
    assert revisions(project) == []


def test_create_file_refuses_a_file_over_the_size_limit(project, assistant, settings):
    settings.BUILTIT_MAX_FILE_BYTES = 10
    outcome = call(
        project, "create_file", {"path": "/a.txt", "content": "x" * 11}, author=assistant
    )
    assert failed(outcome) == (
        "/a.txt would be 11 bytes; the limit is 10 bytes per file. Split it into smaller files."
    )
    assert paths_of(project) == []


def test_create_file_accepts_a_file_exactly_at_the_size_limit(project, assistant, settings):
    settings.BUILTIT_MAX_FILE_BYTES = 10
    outcome = call(
        project, "create_file", {"path": "/a.txt", "content": "x" * 10}, author=assistant
    )
    assert succeeded(outcome)["size"] == 10


def test_create_file_refuses_more_files_than_allowed(site, assistant, settings):
    settings.BUILTIT_MAX_FILES = 3
    outcome = call(site, "create_file", {"path": "/four.txt", "content": "4"}, author=assistant)
    assert "at most 3 files" in failed(outcome)


def test_create_file_refuses_content_with_nul_characters(project, assistant):
    outcome = call(
        project, "create_file", {"path": "/a.txt", "content": "a\x00b"}, author=assistant
    )
    assert "NUL" in failed(outcome)


# --- update_file ---------------------------------------------------------------


def test_update_file_replaces_the_whole_file(site, assistant, user):
    outcome = call(
        site, "update_file", {"path": "/script.js", "content": "alert(1);\n"}, author=assistant
    )
    result = succeeded(outcome)
    assert result == {"success": True, "path": "/script.js", "action": "update", "size": 10}
    assert outcome.summary == "Replaced /script.js (10 bytes)"
    assert outcome.path == "/script.js"
    assert outcome.changed == ("/script.js",)
    assert dict(outcome.seen) == {"/script.js": 2}
    assert content_of(site, "/script.js") == "alert(1);\n"
    [revision] = revisions(site)
    assert (revision.action, revision.actor, revision.user) == ("update", "assistant", user)
    assert revision.content_before == STARTER_FILES["/script.js"]
    assert (revision.content_after, revision.version_after) == ("alert(1);\n", 2)


def test_update_file_twice_in_a_turn_uses_the_version_it_wrote(site, assistant):
    known = turn_start(site)
    first = call(
        site, "update_file", {"path": "/script.js", "content": "1"}, author=assistant, known=known
    )
    known.update({k: v for k, v in first.seen.items() if v is not None})
    second = call(
        site, "update_file", {"path": "/script.js", "content": "2"}, author=assistant, known=known
    )
    succeeded(second)
    assert dict(second.seen) == {"/script.js": 3}
    assert content_of(site, "/script.js") == "2"


def test_update_file_of_a_missing_path_names_the_files_that_exist(site, assistant):
    outcome = call(site, "update_file", {"path": "/style.css", "content": "x"}, author=assistant)
    assert failed(outcome) == "File /style.css does not exist. Did you mean /styles.css?"
    assert sorted(paths_of(site)) == sorted(STARTER_FILES)


def test_update_file_with_the_same_content_is_an_unchanged_success(site, assistant):
    outcome = call(
        site,
        "update_file",
        {"path": "/script.js", "content": STARTER_FILES["/script.js"]},
        author=assistant,
    )
    assert succeeded(outcome)["unchanged"] is True
    assert "already had exactly this content" in str(outcome.result["note"])
    assert outcome.summary.startswith("Unchanged")
    assert outcome.changed == ()
    assert revisions(site) == []


def test_an_edit_whose_search_and_replacement_are_the_same_is_still_pointed_out(site, assistant):
    edit: JSONObject = {"search": "<h1>", "replace": "<h1>"}
    outcome = call(site, "edit_file", {"path": "/index.html", "edits": [edit]}, author=assistant)
    assert "identical" in failed(outcome)


def test_a_failed_edit_reads_as_a_person_would_say_it(site, assistant):
    edit: JSONObject = {"search": "<h2>Nowhere</h2>", "replace": "<h2>Here</h2>"}
    outcome = call(site, "edit_file", {"path": "/index.html", "edits": [edit]}, author=assistant)
    assert "copy the search text" in failed(outcome) or "Read the file" in failed(outcome)
    assert outcome.summary == "Not changed: the text to change was not found in the file"


def test_update_file_refuses_a_file_over_the_size_limit(site, assistant, settings):
    settings.BUILTIT_MAX_FILE_BYTES = 600
    outcome = call(
        site, "update_file", {"path": "/script.js", "content": "y" * 601}, author=assistant
    )
    assert "the limit is 600 bytes per file" in failed(outcome)
    assert content_of(site, "/script.js") == STARTER_FILES["/script.js"]


def test_update_file_refuses_a_project_over_its_size_limit(site, assistant, settings):
    settings.BUILTIT_MAX_PROJECT_BYTES = 1500
    outcome = call(
        site, "update_file", {"path": "/script.js", "content": "y" * 500}, author=assistant
    )
    assert "per project" in failed(outcome)


# --- edit_file -----------------------------------------------------------------


def test_edit_file_applies_the_blocks_in_order(site, assistant, user):
    outcome = call(
        site,
        "edit_file",
        {
            "path": "/index.html",
            "edits": [
                {"search": "<title>My site</title>", "replace": "<title>Bakery</title>"},
                {"search": "<h1>Hello, world</h1>", "replace": "<h1>Fresh bread</h1>"},
            ],
        },
        author=assistant,
    )
    result = succeeded(outcome)
    expected = INDEX.replace("My site", "Bakery").replace("Hello, world", "Fresh bread")
    assert result == {
        "success": True,
        "path": "/index.html",
        "action": "edit",
        "size": len(expected.encode()),
    }
    assert outcome.summary == "Edited /index.html (2 changes)"
    assert outcome.changed == ("/index.html",)
    assert dict(outcome.seen) == {"/index.html": 2}
    assert content_of(site, "/index.html") == expected
    [revision] = revisions(site)
    assert (revision.action, revision.actor, revision.user) == ("edit", "assistant", user)


def test_edit_file_with_one_block_says_one_change(site, assistant):
    outcome = call(
        site,
        "edit_file",
        {"path": "/styles.css", "edits": [{"search": "#4f46e5", "replace": "#0ea5e9"}]},
        author=assistant,
    )
    assert outcome.summary == "Edited /styles.css (1 change)"


def test_edit_file_shows_the_closest_text_when_the_search_is_not_found(site, assistant):
    outcome = call(
        site,
        "edit_file",
        {"path": "/index.html", "edits": [{"search": "<h1>Hello world</h1>", "replace": "x"}]},
        author=assistant,
    )
    error = failed(outcome)
    assert error.startswith("Edit 1: the search text was not found in the file.")
    assert "The closest text starts at line 11" in error
    assert content_of(site, "/index.html") == INDEX
    assert revisions(site) == []


def test_edit_file_applies_none_when_a_later_block_fails(site, assistant):
    outcome = call(
        site,
        "edit_file",
        {
            "path": "/index.html",
            "edits": [
                {"search": "<title>My site</title>", "replace": "<title>Bakery</title>"},
                {"search": "<marquee>", "replace": ""},
            ],
        },
        author=assistant,
    )
    assert failed(outcome).startswith("Edit 2:")
    assert content_of(site, "/index.html") == INDEX
    assert version_of(site, "/index.html") == 1


def test_edit_file_refuses_an_ambiguous_search_and_gives_the_lines(site, assistant):
    outcome = call(
        site,
        "edit_file",
        {"path": "/styles.css", "edits": [{"search": "  padding:", "replace": "  margin:"}]},
        author=assistant,
    )
    error = failed(outcome)
    assert "appears 2 times, at lines 19, 30" in error
    assert "Include more surrounding lines" in error
    assert content_of(site, "/styles.css") == STARTER_FILES["/styles.css"]


def test_edit_file_refuses_a_replacement_identical_to_the_search(site, assistant):
    outcome = call(
        site,
        "edit_file",
        {"path": "/styles.css", "edits": [{"search": "body {", "replace": "body {"}]},
        author=assistant,
    )
    assert "identical" in failed(outcome)


def test_edit_file_refuses_a_blank_search(site, assistant):
    outcome = call(
        site,
        "edit_file",
        {"path": "/styles.css", "edits": [{"search": "   ", "replace": "x"}]},
        author=assistant,
    )
    assert "the search text is empty" in failed(outcome)


def test_edit_file_of_a_missing_path(site, assistant):
    outcome = call(
        site,
        "edit_file",
        {"path": "/scripts.js", "edits": [{"search": "a", "replace": "b"}]},
        author=assistant,
    )
    assert "Did you mean /script.js?" in failed(outcome)


def test_edit_file_refuses_a_result_over_the_size_limit(site, assistant, settings):
    settings.BUILTIT_MAX_FILE_BYTES = 600
    outcome = call(
        site,
        "edit_file",
        {"path": "/script.js", "edits": [{"search": "morning", "replace": "m" * 400}]},
        author=assistant,
    )
    assert "the limit is 600 bytes per file" in failed(outcome)
    assert content_of(site, "/script.js") == STARTER_FILES["/script.js"]


# --- rename_file ---------------------------------------------------------------


def test_rename_file_moves_the_file_and_forgets_the_old_name(site, assistant, user):
    outcome = call(
        site, "rename_file", {"path": "/script.js", "new_path": "js/app.js"}, author=assistant
    )
    result = succeeded(outcome)
    assert result == {
        "success": True,
        "path": "/js/app.js",
        "action": "rename",
        "size": len(STARTER_FILES["/script.js"].encode()),
        "old_path": "/script.js",
    }
    assert outcome.summary == "Renamed /script.js to /js/app.js"
    assert outcome.path == "/js/app.js"
    assert outcome.changed == ("/script.js", "/js/app.js")
    assert dict(outcome.seen) == {"/js/app.js": 2, "/script.js": None}
    assert content_of(site, "/js/app.js") == STARTER_FILES["/script.js"]
    assert "/script.js" not in paths_of(site)
    [revision] = revisions(site)
    assert (revision.action, revision.old_path, revision.path) == (
        "rename",
        "/script.js",
        "/js/app.js",
    )
    assert (revision.actor, revision.user) == ("assistant", user)


def test_rename_file_refuses_a_taken_name(site, assistant):
    outcome = call(
        site, "rename_file", {"path": "/script.js", "new_path": "/index.html"}, author=assistant
    )
    assert "already exists" in failed(outcome)
    assert sorted(paths_of(site)) == sorted(STARTER_FILES)


def test_rename_file_refuses_the_same_name(site, assistant):
    outcome = call(
        site, "rename_file", {"path": "/script.js", "new_path": "script.js"}, author=assistant
    )
    assert "already has that name" in failed(outcome)


def test_rename_file_refuses_a_bad_new_path(site, assistant):
    outcome = call(
        site, "rename_file", {"path": "/script.js", "new_path": "../script.js"}, author=assistant
    )
    assert "'.' and '..' are not allowed" in failed(outcome)
    assert "/script.js" in paths_of(site)


def test_rename_file_refuses_a_refused_extension(site, assistant):
    outcome = call(
        site, "rename_file", {"path": "/script.js", "new_path": "/script.exe"}, author=assistant
    )
    assert "'.exe' files are not allowed" in failed(outcome)


def test_rename_file_of_a_missing_path(site, assistant):
    outcome = call(
        site, "rename_file", {"path": "/main.js", "new_path": "/app.js"}, author=assistant
    )
    assert "File /main.js does not exist." in failed(outcome)


# --- delete_file ---------------------------------------------------------------


def test_delete_file_removes_the_file(site, assistant, user):
    outcome = call(site, "delete_file", {"path": "script.js"}, author=assistant)
    result = succeeded(outcome)
    assert result == {"success": True, "path": "/script.js", "action": "delete", "size": 0}
    assert type(result["action"]) is str
    assert outcome.summary == "Deleted /script.js"
    assert outcome.path == "/script.js"
    assert outcome.changed == ("/script.js",)
    assert dict(outcome.seen) == {"/script.js": None}
    assert "/script.js" not in paths_of(site)
    [revision] = revisions(site)
    assert (revision.action, revision.actor, revision.user) == ("delete", "assistant", user)
    assert revision.content_before == STARTER_FILES["/script.js"]
    assert revision.content_after is None


def test_delete_file_of_a_missing_path(site, assistant):
    outcome = call(site, "delete_file", {"path": "/scripts.js"}, author=assistant)
    assert "does not exist" in failed(outcome)
    assert len(paths_of(site)) == len(STARTER_FILES)


def test_delete_file_refuses_a_bad_path(site, assistant):
    outcome = call(site, "delete_file", {"path": "/../index.html"}, author=assistant)
    assert "Invalid path" in failed(outcome)
    assert len(paths_of(site)) == len(STARTER_FILES)


# --- search_files --------------------------------------------------------------


def test_search_files_finds_lines_across_files(site, assistant):
    outcome = call(site, "search_files", {"query": "GREET"}, author=assistant)
    result = succeeded(outcome)
    assert result["matches"] == [
        {
            "path": "/index.html",
            "line": 13,
            "text": '<button id="greet" type="button">Say hello</button>',
        },
        {"path": "/index.html", "line": 14, "text": '<p id="greeting" aria-live="polite"></p>'},
        {
            "path": "/script.js",
            "line": 1,
            "text": 'document.getElementById("greet").addEventListener("click", () => {',
        },
        {
            "path": "/script.js",
            "line": 4,
            "text": 'document.getElementById("greeting").textContent = `Good ${part}!`;',
        },
    ]
    assert (result["query"], result["total_matches"], result["files_searched"]) == (
        "GREET",
        4,
        len(STARTER_FILES),
    )
    assert result["truncated"] is False
    assert outcome.summary == "Found 4 matches in 2 files"
    assert (outcome.changed, dict(outcome.seen)) == ((), {})


def test_search_files_can_match_case(site, assistant):
    outcome = call(
        site, "search_files", {"query": "GREET", "case_sensitive": True}, author=assistant
    )
    assert succeeded(outcome)["matches"] == []
    assert outcome.summary == "Found 0 matches"


def test_search_files_says_match_for_one(site, assistant):
    outcome = call(site, "search_files", {"query": "place-items"}, author=assistant)
    assert outcome.summary == "Found 1 match in 1 file"


def test_search_files_caps_the_matches_it_returns(project, assistant):
    file_create(project=project, path="/a.txt", content="x\n" * 150, author=assistant)
    outcome = call(project, "search_files", {"query": "x"}, author=assistant)
    result = succeeded(outcome)
    assert isinstance(result["matches"], list)
    assert len(result["matches"]) == 100
    assert (result["total_matches"], result["truncated"]) == (150, True)
    assert outcome.summary == "Found 150 matches (showing 100)"


def test_search_files_summary_never_miscounts_files_when_matches_are_cut(project, assistant):
    file_create(project=project, path="/a.txt", content="x\n" * 150, author=assistant)
    file_create(project=project, path="/b.txt", content="x\n", author=assistant)
    outcome = call(project, "search_files", {"query": "x"}, author=assistant)
    assert succeeded(outcome)["total_matches"] == 151
    assert outcome.summary == "Found 151 matches (showing 100)"


@pytest.mark.parametrize("query", ["   ", "two\nlines"])
def test_search_files_refuses_a_blank_or_multiline_query(site, assistant, query):
    outcome = call(site, "search_files", {"query": query}, author=assistant)
    failed(outcome)


# --- who made the change -------------------------------------------------------

WRITES: list[tuple[str, JSONObject]] = [
    ("create_file", {"path": "/about.html", "content": "<p>About</p>"}),
    ("update_file", {"path": "/script.js", "content": "alert(1);"}),
    ("edit_file", {"path": "/styles.css", "edits": [{"search": "#4f46e5", "replace": "teal"}]}),
    ("rename_file", {"path": "/script.js", "new_path": "/app.js"}),
    ("delete_file", {"path": "/script.js"}),
]


@pytest.mark.parametrize(("name", "arguments"), WRITES, ids=[name for name, _ in WRITES])
def test_every_write_is_recorded_as_the_assistant_message(site, user, message, name, arguments):
    author = Author.assistant(user, message_id=message.pk)
    succeeded(call(site, name, arguments, author=author))
    [revision] = revisions(site)
    assert revision.actor == FileRevision.Actor.ASSISTANT
    assert revision.user == user
    assert revision.message_id == message.pk
    assert list(message.file_revisions.all()) == [revision]


@pytest.mark.parametrize(("name", "arguments"), WRITES, ids=[name for name, _ in WRITES])
def test_every_write_result_is_plain_json(site, assistant, name, arguments):
    outcome = call(site, name, arguments, author=assistant)
    result = succeeded(outcome)
    assert json.loads(json.dumps(result)) == result
    assert type(result["action"]) is str
    assert type(result["path"]) is str
    assert outcome.changed
    assert all(type(path) is str for path in outcome.changed)


# --- the stale-read guard ------------------------------------------------------

STALE_WRITES: list[tuple[str, JSONObject]] = [
    ("update_file", {"path": "/script.js", "content": "alert('mine');"}),
    ("edit_file", {"path": "/script.js", "edits": [{"search": "morning", "replace": "dawn"}]}),
    ("rename_file", {"path": "/script.js", "new_path": "/app.js"}),
    ("delete_file", {"path": "/script.js"}),
]
THEIRS = STARTER_FILES["/script.js"] + "// the person's change\n"


@pytest.mark.parametrize(("name", "arguments"), STALE_WRITES, ids=[n for n, _ in STALE_WRITES])
def test_write_refused_when_the_person_changed_the_file_during_the_turn(
    site, user, assistant, name, arguments
):
    known = turn_start(site)
    someone_edits(site, user, "/script.js", THEIRS)
    outcome = call(site, name, arguments, author=assistant, known=known)
    error = failed(outcome)
    assert error.startswith("/script.js changed since you read it")
    assert "Read it again with read_file" in error
    assert (outcome.changed, dict(outcome.seen)) == ((), {})
    assert paths_of(site) == sorted(STARTER_FILES)
    assert content_of(site, "/script.js") == THEIRS
    assert version_of(site, "/script.js") == 2
    assert [r.actor for r in revisions(site)] == [FileRevision.Actor.USER]


@pytest.mark.parametrize(("name", "arguments"), STALE_WRITES, ids=[n for n, _ in STALE_WRITES])
def test_write_succeeds_once_the_model_has_read_the_new_version(
    site, user, assistant, name, arguments
):
    known = turn_start(site)
    someone_edits(site, user, "/script.js", THEIRS)
    read = call(site, "read_file", {"path": "/script.js"}, author=assistant, known=known)
    assert dict(read.seen) == {"/script.js": 2}
    known.update({path: v for path, v in read.seen.items() if v is not None})
    succeeded(call(site, name, arguments, author=assistant, known=known))
    assert revisions(site)[-1].actor == FileRevision.Actor.ASSISTANT


def test_guard_matches_the_path_however_the_model_spells_it(site, user, assistant):
    known = turn_start(site)
    someone_edits(site, user, "/script.js", THEIRS)
    outcome = call(
        site, "update_file", {"path": "script.js", "content": "x"}, author=assistant, known=known
    )
    assert "changed since you read it" in failed(outcome)


def test_write_refused_for_a_file_someone_created_during_the_turn(site, user, assistant):
    known = turn_start(site)
    file_create(project=site, path="/notes.txt", content="mine", author=Author.person(user))
    outcome = call(
        site,
        "update_file",
        {"path": "/notes.txt", "content": "ours"},
        author=assistant,
        known=known,
    )
    assert "/notes.txt changed since you read it" in failed(outcome)
    assert content_of(site, "/notes.txt") == "mine"


def test_write_allowed_for_a_file_the_model_created_itself(project, assistant):
    known: dict[str, int] = {}
    created = call(
        project, "create_file", {"path": "/a.txt", "content": "1"}, author=assistant, known=known
    )
    known.update({path: v for path, v in created.seen.items() if v is not None})
    outcome = call(
        project, "update_file", {"path": "/a.txt", "content": "2"}, author=assistant, known=known
    )
    assert succeeded(outcome)["action"] == "update"


def test_edits_to_other_files_do_not_block_a_write(site, user, assistant):
    known = turn_start(site)
    someone_edits(site, user, "/index.html", "<p>theirs</p>")
    outcome = call(
        site, "update_file", {"path": "/script.js", "content": "x"}, author=assistant, known=known
    )
    succeeded(outcome)


def test_reads_are_never_blocked_by_the_guard(site, user, assistant):
    someone_edits(site, user, "/script.js", THEIRS)
    outcome = call(site, "read_file", {"path": "/script.js"}, author=assistant, known={})
    assert succeeded(outcome)["content"] == THEIRS


# --- what a failure carries ----------------------------------------------------
# DESIGN §5: {"success": false, "error": "...", ...context that helps the model recover}.


@pytest.fixture
def file_limit_2000(settings):
    settings.BUILTIT_MAX_FILE_BYTES = 2000


FAILURES: list[tuple[str, str, JSONObject, JSONObject]] = [
    (
        "not_found",
        "read_file",
        {"path": "/indx.html"},
        {
            "code": "not_found",
            "path": "/indx.html",
            "available_files": ["/AGENTS.md", "/index.html", "/script.js", "/styles.css"],
            "suggestion": "/index.html",
        },
    ),
    (
        "refused_extension",
        "create_file",
        {"path": "/logo.bmp", "content": "x"},
        {
            "code": "invalid_path",
            "path": "/logo.bmp",
            "allowed_extensions": list(ALLOWED_EXTENSIONS),
        },
    ),
    (
        "outside_project",
        "update_file",
        {"path": "../x.html", "content": "x"},
        {
            "code": "invalid_path",
            "path": "../x.html",
            "allowed_extensions": list(ALLOWED_EXTENSIONS),
        },
    ),
    (
        "no_match",
        "edit_file",
        {"path": "/index.html", "edits": [{"search": "<h1>Hello world</h1>", "replace": "x"}]},
        {
            "code": "no_match",
            "path": "/index.html",
            "closest_match": "    <h1>Hello, world</h1>\n",
            "closest_match_line": 11,
            "edit_index": 1,
            "current_version": 1,
        },
    ),
    (
        "ambiguous",
        "edit_file",
        {"path": "/styles.css", "edits": [{"search": "  padding:", "replace": "  margin:"}]},
        {"code": "ambiguous_match", "path": "/styles.css", "match_lines": [19, 30]},
    ),
    (
        "too_large",
        "create_file",
        {"path": "/big.txt", "content": "x" * 2001},
        {"code": "file_too_large", "path": "/big.txt", "size": 2001, "limit": 2000},
    ),
    (
        "already_exists",
        "create_file",
        {"path": "/index.html", "content": "x"},
        {"code": "already_exists", "path": "/index.html"},
    ),
]


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [case[1:] for case in FAILURES],
    ids=[case[0] for case in FAILURES],
)
@pytest.mark.usefixtures("file_limit_2000")
def test_failure_context_sits_beside_the_error(site, assistant, name, arguments, expected):
    outcome = call(site, name, arguments, author=assistant)
    failed(outcome)
    assert "context" not in outcome.result
    assert {key: outcome.result.get(key) for key in expected} == expected
    assert None not in outcome.result.values()
    assert [] not in outcome.result.values()
    assert outcome.path == expected["path"]


def test_conflict_failure_carries_its_code_and_the_current_version(site, user, assistant):
    known = turn_start(site)
    someone_edits(site, user, "/script.js", THEIRS)
    outcome = call(site, "delete_file", {"path": "/script.js"}, author=assistant, known=known)
    assert outcome.result["code"] == "conflict"
    assert outcome.result["current_version"] == 2
    assert outcome.path == "/script.js"


@pytest.mark.parametrize(
    ("raw", "code"),
    [("{oops", "invalid_json"), ("[]", "invalid_arguments"), ('{"path": 1}', "invalid_arguments")],
)
def test_argument_failures_carry_a_code(raw, code):
    assert parse_failure("read_file", raw).result["code"] == code


def test_unknown_tool_result_lists_the_available_tools():
    result = file_tools().unknown("write_file").result
    assert result["code"] == "unknown_tool"
    assert result["available_tools"] == TOOL_NAMES


def test_schema_mismatch_failure_is_json_and_summarised():
    outcome = parse_failure("edit_file", '{"path": "/a.html"}')
    assert outcome.summary == "Arguments did not match the schema"
    assert "edits: field required" in failed(outcome)
