"""The documentation: the site builds strictly and offline, the configuration reference is the schema,
every configuration a page shows is one the schema accepts, and user documentation speaks to users.

- ``mkdocs build --strict`` (warnings are errors: a broken link or anchor, a page left out of the
  navigation) into a temporary directory; the build runs the hooks that generate the configuration
  reference from ``config/schema/config.schema.yaml`` and the command-line reference from each tool's
  ``--help``.
- The configuration reference lists every field of the schema with its default: the fields are
  collected here by a walk of the schema's ``properties`` written independently of the hook's.
- Every YAML block a page marks as a configuration (``<!-- overlay -->`` or ``<!-- tested: file ... -->``)
  is valid when laid over ``config/config.yaml`` as Snakemake lays an overlay (``update_config``).
- The README is at most about 150 lines, and no user document names a tracker issue, a dated
  diary entry or the studies by their source files' numbers ("seed 001").
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.utils import update_config

from tests.conftest import REPO
from workflow_scripts.config.schema import validated
from workflow_scripts.errors import ConfigError
from workflow_scripts.workflow.checks import disabled_listed_problems, selection

sys.path.insert(0, str(REPO / "docs" / "hooks"))
import config_reference  # noqa: E402  (docs/hooks/config_reference.py, the MkDocs hook)

DOCS = REPO / "docs"
MKDOCS = Path(sys.executable).parent / "mkdocs"
CONFIG_BLOCK = re.compile(r"<!-- (?:overlay|tested: file \S+\.ya?ml) -->\s*\n```yaml[^\n]*\n(.*?)\n```", re.S)
README_LIMIT = 160  # "at most about 150 lines"
USER_DOCS = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "config/README.md", "config/prompts/ipd/README.md",
             "config/prompts/crg/README.md"]


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


@pytest.mark.slow
def test_the_site_builds_strictly_offline(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", NO_PROXY="*", HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9")
    result = subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=REPO,
                            env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    config_page = (tmp_path / "site" / "reference" / "config" / "index.html").read_text()
    assert "models.&lt;name&gt;.decoding.temperature" in config_page and "crg.analysis.beta" in config_page
    cli_page = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    assert "usage: python -m workflow_scripts.tools.plan" in cli_page and "<!-- cli-help" not in cli_page


def schema_fields(node: dict, schema: dict, path: str = "") -> dict[str, object]:
    """Field path -> its default (or ``...`` when it has none), by a plain walk of ``properties``."""
    if "$ref" in node:
        node = {**schema["$defs"][node["$ref"].split("/")[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
    found = {}
    for name, child in node.get("properties", {}).items():
        child_path = f"{path}.{name}" if path else name
        target = schema["$defs"][child["$ref"].split("/")[-1]] if "$ref" in child else child
        found[child_path] = child.get("default", target.get("default", ...))
        found.update(schema_fields(child, schema, child_path))
    if isinstance(node.get("additionalProperties"), dict):
        found.update(schema_fields(node["additionalProperties"], schema, f"{path}.<name>"))
    return found


def test_the_config_reference_lists_every_field_with_its_default():
    schema = config_reference.load_schema()
    page = config_reference.render(schema)
    rows = {line.split(" | ")[0].strip("| `") : line for line in page.splitlines() if line.startswith("| `")}
    # The four designs share one definition: the reference lists their fields once, under <design>.
    shared = re.compile(r"^crg\.designs\.(selfplay|controls|scripted|mixed)\.")
    fields = {shared.sub("crg.designs.<design>.", p): d for p, d in schema_fields(schema, schema).items()}
    assert len(fields) > 100
    missing = sorted(p for p in fields if p.replace("|", "\\|") not in rows)
    assert missing == []
    for field, default in fields.items():
        if default is not ...:
            assert config_reference.cell(repr_default(default)) in rows[field], field
    assert all(line.count(" | ") == 3 for line in rows.values())
    assert all(row.rstrip(" |").rsplit(" | ", 1)[1] for row in rows.values()), "every field has a meaning"


def repr_default(value) -> str:
    import json

    return f"`{json.dumps(value, ensure_ascii=False)}`"


def test_the_reference_follows_a_change_of_the_schema():
    schema = copy.deepcopy(config_reference.load_schema())
    schema["$defs"]["model"]["properties"]["timeout"]["default"] = 77
    schema["properties"]["cache"]["properties"]["new_field"] = {"type": "integer", "description": "a new field"}
    page = config_reference.render(schema)
    assert "| `models.<name>.timeout` | number (> 0) | `77` |" in page
    assert "| `cache.new_field` | integer |  | a new field |" in page


def config_blocks() -> list[tuple[str, str]]:
    return [(str(p.relative_to(REPO)), m.group(1)) for p in pages() for m in CONFIG_BLOCK.finditer(p.read_text())]


def overlaid(text: str) -> dict:
    """``config/config.yaml`` with ``text`` laid over it as Snakemake lays a --configfile, validated."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(config, yaml.safe_load(text))
    return validated(config)


def test_the_pages_show_configurations_at_all():
    assert len(config_blocks()) >= 8


@pytest.mark.parametrize("page, text", config_blocks(), ids=lambda v: v if v.endswith(".md") else "")
def test_every_configuration_a_page_shows_is_valid(page, text):
    overlaid(text)


def adds_a_model(text: str) -> bool:
    """A block that adds an enabled model of its own (not one of config/config.yaml's)."""
    listed = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["models"]
    models = (yaml.safe_load(text) or {}).get("models") or {}
    return any(name not in listed and (entry or {}).get("enabled") for name, entry in models.items())


@pytest.mark.parametrize("page, text", [(p, t) for p, t in config_blocks() if adds_a_model(t)],
                         ids=lambda v: v if v.endswith(".md") else "")
def test_a_page_that_adds_a_model_runs_only_the_models_it_names(page, text):
    """Laid over config/config.yaml (and the paper overlay the page's commands use) after the page's
    earlier blocks, as a reader builds their file, an entry a reader copies asks no model the page does
    not show: the default run's models are switched off."""
    base = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for overlay in re.findall(r"--configfile (config/paper_\w+\.yaml)", (REPO / page).read_text())[:1]:
        update_config(base, yaml.safe_load((REPO / overlay).read_text()))
    blocks = [t for p, t in config_blocks() if p == page]
    shown = set()
    for block in blocks[:blocks.index(text) + 1]:
        update_config(base, yaml.safe_load(block))
        shown |= set((yaml.safe_load(block) or {}).get("models") or {})
    selected, _ = selection(validated(base))
    assert set(selected) <= shown, (page, selected)
    assert disabled_listed_problems(validated(base)) == [], page  # no study list left naming a switched-off model


def test_a_configuration_with_a_wrong_field_is_refused():
    with pytest.raises(ConfigError, match="temprature|temperature"):
        overlaid("models:\n  m: {enabled: true, litellm_model: openai/x, decoding: {temprature: 1}}\n")


def test_the_readme_is_short():
    assert len((REPO / "README.md").read_text().splitlines()) <= README_LIMIT


DIARY = [
    (re.compile(r"\b[Ii]ssue[ -]?#?\d+|\(#\d+\)|\bPR #\d+"), "a tracker number"),
    (re.compile(r"\b20\d\d-\d\d-\d\d\b"), "a date"),
    (re.compile(r"\b[Ss]eed[ -]?00[01]\b"), "a study by its source file's number (name it the IPD / CRG paper)"),
]


def diary_problems(text: str) -> list[str]:
    return [f"{why}: {m.group(0)}" for pattern, why in DIARY for m in pattern.finditer(text)]


def test_user_documents_speak_to_users():
    found = {}
    for path in [REPO / p for p in USER_DOCS] + pages():
        text = path.read_text()
        if path.name == "CHANGELOG.md":  # release headings carry their dates (Keep a Changelog)
            text = re.sub(r"^## \[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}$", "", text, flags=re.M)
        if problems := diary_problems(text):
            found[str(path.relative_to(REPO))] = problems
    assert found == {}


@pytest.mark.parametrize("text, problem", [
    ("fixed in issue 18", "a tracker number"), ("see #12 (#12)", "a tracker number"),
    ("measured on 2026-12-02", "a date"), ("the seed 001 grid", "a study by"), ("Seed 000 Table 2", "a study by"),
])
def test_a_diary_line_is_found(text, problem):
    assert any(p.startswith(problem) for p in diary_problems(text))


def test_plain_text_passes():
    assert diary_problems("the IPD paper's Table S2; seed: 20261130; 10 rounds; PR interval") == []
