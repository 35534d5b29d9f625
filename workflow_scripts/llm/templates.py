"""One template mechanism for every prompt of both studies: text files with checked placeholders.

A template is plain text with ``$name`` (or ``${name}``) placeholders (:class:`string.Template`;
``$$`` is a literal dollar). Each template name has a fixed set of fields it may use; a template
that uses another, or a malformed ``$``, is refused when it is loaded, naming the template, and a
render that lacks a value it uses is refused naming the value. Template texts reach the jobs as
Snakemake ``params`` (:func:`load_templates` runs when the DAG is built), so editing a template
reruns exactly the jobs that render it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from string import Template
from typing import Mapping, Sequence

TEMPLATE_SUFFIX = ".txt"


class TemplateError(ValueError):
    """A template is missing, malformed, uses an unknown placeholder, or lacks a value."""


class PromptTemplate:
    """One template whose placeholders are checked against ``fields``.

    Args:
        name: the template's name (its file is ``<name>.txt``), for messages.
        text: the template text.
        fields: the placeholders it may use.

    Raises:
        TemplateError: naming the template and its malformed or unknown placeholders.
    """

    def __init__(self, name: str, text: str, fields: Sequence[str]):
        self.name, self.text, self.fields = name, text, tuple(fields)
        self._template = Template(text)
        if not self._template.is_valid():
            raise TemplateError(f"prompt template {name!r} has a malformed placeholder (use $$ for a dollar)")
        unknown = sorted(set(self._template.get_identifiers()) - set(self.fields))
        if unknown:
            raise TemplateError(f"prompt template {name!r} uses unknown placeholders {unknown}; known: {list(self.fields)}")

    @property
    def placeholders(self) -> tuple[str, ...]:
        """The placeholders the text uses, in order of first use."""
        return tuple(self._template.get_identifiers())

    def render(self, **values) -> str:
        """The text with every placeholder replaced, stripped of surrounding white space.

        Raises:
            TemplateError: if a placeholder the text uses has no value.
        """
        try:
            return self._template.substitute({k: str(v) for k, v in values.items()}).strip()
        except KeyError as error:
            raise TemplateError(f"prompt template {self.name!r} needs a value for ${error.args[0]}") from None


class TemplateSet:
    """The templates of one study, checked on construction.

    Args:
        texts: template texts by name.
        fields: placeholders allowed per template name (names absent here are refused).

    Raises:
        TemplateError: an unknown template name or a bad template.
    """

    def __init__(self, texts: Mapping[str, str], fields: Mapping[str, Sequence[str]]):
        unknown = sorted(set(texts) - set(fields))
        if unknown:
            raise TemplateError(f"unknown prompt template(s) {unknown}; known: {sorted(fields)}")
        self.templates = {name: PromptTemplate(name, text, fields[name]) for name, text in texts.items()}

    def __getitem__(self, name: str) -> PromptTemplate:
        try:
            return self.templates[name]
        except KeyError:
            raise TemplateError(f"prompt template {name!r} was not loaded; have {sorted(self.templates)}") from None

    def render(self, name: str, **values) -> str:
        """Template ``name`` rendered with ``values`` (see :meth:`PromptTemplate.render`)."""
        return self[name].render(**values)

    def key(self, name: str) -> str:
        """``<name>@<first 12 hex chars of the SHA-256 of its text>``: which text a table used."""
        return f"{name}@{template_key(self[name].text)}"


def template_key(text: str) -> str:
    """Short identity of a template's text (first 12 hex chars of its SHA-256)."""
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def load_templates(directory: str | Path, names: Sequence[str], field: str = "template_dir") -> dict[str, str]:
    """Read ``<directory>/<name>.txt`` for each name.

    Args:
        field: the config field that names the folder (for the error message).

    Raises:
        TemplateError: naming the missing file and the config field.
    """
    texts = {}
    for name in dict.fromkeys(names):
        path = Path(directory) / f"{name}{TEMPLATE_SUFFIX}"
        if not path.is_file():
            raise TemplateError(f"{field}: prompt template {name!r} not found at {path}; add the file or fix the name")
        texts[name] = path.read_text(encoding="utf-8")
    return texts
