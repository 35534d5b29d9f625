"""The configuration reference, generated from the JSON schema at every build (an MkDocs hook).

``docs/reference/config.md`` holds the marker ``<!-- config-reference -->``; :func:`on_page_markdown`
replaces it with one table per top-level section of ``config/schema/config.schema.yaml``: every field's
path (``<name>`` where the key is the user's own, e.g. ``models.<name>.decoding.temperature``), its type
or allowed values, its default and its description. The schema is the one home of defaults and meanings,
so the page cannot drift from what Snakemake's ``validate()`` checks (tests/test_docs.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

SCHEMA = Path(__file__).resolve().parents[2] / "config" / "schema" / "config.schema.yaml"
MARKER = "<!-- config-reference -->"
Row = tuple[str, str, str, str]


def load_schema(path: Path = SCHEMA) -> dict:
    """The schema as a mapping (YAML)."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def resolved(node: dict, schema: dict) -> dict:
    """``node`` with a ``$ref`` to ``#/$defs/<name>`` merged in (the node's own keys win)."""
    if "$ref" not in node:
        return node
    target = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return {**resolved(target, schema), **{k: v for k, v in node.items() if k != "$ref"}}


def type_text(node: dict) -> str:
    """The allowed values of a field in words: its enum, const, type(s), or its alternatives."""
    if "enum" in node:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "oneOf" in node or "anyOf" in node:
        return " or ".join(type_text(option) for option in node.get("oneOf", node.get("anyOf")))
    kinds = node.get("type", "object" if "properties" in node else "")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    text = " or ".join(str(k) for k in kinds if k)
    if "array" in kinds and isinstance(node.get("items"), dict) and "enum" in node["items"]:
        text += " of " + type_text(node["items"])
    return text


def bounds_text(node: dict) -> str:
    """Bounds and patterns of a field (``>= 0``, ``< 1``, ``pattern ^https?://``)."""
    words = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
    parts = [f"{sign} {node[key]}" for key, sign in words.items() if key in node]
    if "pattern" in node:
        parts.append(f"pattern `{node['pattern']}`")
    return ", ".join(parts)


def rows(schema: dict) -> list[Row]:
    """(path, type, default, description) of every field of the schema, in schema order."""
    found: list[Row] = []
    _walk(schema, "", schema, found)
    return found


def _walk(node: dict, path: str, schema: dict, found: list[Row]) -> None:
    node = resolved(node, schema)
    if path:
        kind = type_text(node)
        bounds = bounds_text(node)
        default = f"`{json.dumps(node['default'], ensure_ascii=False)}`" if "default" in node else ""
        found.append((path, kind + (f" ({bounds})" if bounds else ""), default, node.get("description", "")))
    prefix = f"{path}." if path else ""
    shared = _shared_definition(node.get("properties", {}))
    for name, child in node.get("properties", {}).items():
        if shared:  # sibling keys of one definition (crg.designs.selfplay, ...): their fields once
            merged = resolved(child, schema)
            found.append((prefix + name, type_text(merged), "", child.get("description", merged.get("description", ""))))
        else:
            _walk(child, prefix + name, schema, found)
    if shared:
        definition = dict(schema["$defs"][shared], description="the fields of each of the keys above")
        _walk(definition, prefix + "<" + shared.rsplit("_", 1)[-1] + ">", schema, found)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        _walk(extra, prefix + "<name>", schema, found)


def _shared_definition(properties: dict) -> str | None:
    """The ``$defs`` name that every one of several sibling properties refers to, else None."""
    refs = {child.get("$ref") for child in properties.values()}
    if len(properties) > 1 and len(refs) == 1 and None not in refs:
        return refs.pop().rsplit("/", 1)[1]
    return None


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def render(schema: dict) -> str:
    """The reference as Markdown: a heading and a table per top-level section of the schema."""
    sections: dict[str, list[Row]] = {}
    for row in rows(schema):
        sections.setdefault(row[0].split(".")[0], []).append(row)
    parts = []
    for section, section_rows in sections.items():
        parts += [f"## `{section}`", "", "| field | type | default | meaning |", "|---|---|---|---|"]
        parts += [f"| `{cell(p)}` | {cell(t)} | {cell(d)} | {cell(m)} |" for p, t, d, m in section_rows]
        parts.append("")
    return "\n".join(parts)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs hook signature)
    """MkDocs hook: put the generated reference where the page has the marker."""
    return markdown.replace(MARKER, render(load_schema())) if MARKER in markdown else markdown
