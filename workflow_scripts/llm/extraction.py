"""An optional second reader: a configured model asked which option an unreadable answer chose.

For researchers whose models explain at length. With ``answer_extraction: <model>`` in the config
(off by default), a question whose last answer the reader (:func:`workflow_scripts.llm.reading.parsing.parse_answer`)
still leaves ``invalid`` after the re-ask budget (:mod:`workflow_scripts.llm.choice`) is shown to that
model with one fixed prompt (:data:`EXTRACTION_PROMPT`: the options the question offered and the
unreadable answer, verbatim), which asks for only the option, or ``NONE``. Empty, truncated, refused
and failed answers are never sent: there is nothing in them to read.

The reply is read strictly (:func:`read_extraction`): after NFKC normalisation and surrounding white
space, quotes, backticks, emphasis and one final full stop are removed, it must be exactly one of the
offered options (case-insensitively only where that names one option); anything else, an explanation
or two options included, is ``rejected``. What came of it is recorded in its own columns
(:data:`workflow_scripts.llm.records.EXTRACTION_FIELDS`), never in the answer's own ``status`` and
move: an analysis counts extracted answers only when asked to (:func:`with_extracted_answers`,
``ipd.analysis.use_extracted_answers``).

The extraction call goes through the extractor's own model stack (litellm, the response cache,
budgets, accounting): its cache key holds the extractor's model and decoding, the prompt with the
options and the answer, and the fixed replicate :data:`EXTRACT_REPLICATE`, so a rerun makes no call,
the same unreadable text offered the same options is read once, and a changed prompt or extractor
asks again. Off, nothing here runs: the cache keys and
tables are those of a run without this module.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

from workflow_scripts.errors import ConfigError
from workflow_scripts.llm.base import Completion, LanguageModel, Request
from workflow_scripts.llm.templates import PromptTemplate

if TYPE_CHECKING:
    import pandas as pd

SETTING = "answer_extraction"
EXTRACTED, NOT_CHOSEN, REJECTED, NOT_ANSWERED = "extracted", "none", "rejected", "failed"
EXTRACTION_STATUSES = (EXTRACTED, NOT_CHOSEN, REJECTED, NOT_ANSWERED)
"""``extracted``: the reply is exactly one offered option; ``none``: the reply is NONE (the extractor
found no single commitment); ``rejected``: anything else; ``failed``: no reply came (provider failure,
replay miss)."""
NONE_REPLY = "NONE"
EXTRACT_REPLICATE = "extract"
"""The replicate of every extraction request: one answer text to one set of options is read once, in
whichever question it came (a rerun, and a second question that got the same text, ask nothing)."""
ANSWER_OPEN, ANSWER_CLOSE = "<<<ANSWER", "ANSWER>>>"
EXTRACTION_PROMPT = f"""An answer to a question with a fixed set of options could not be read automatically.

The options offered, one a line:
$options

The answer, verbatim between the two markers:
{ANSWER_OPEN}
$answer
{ANSWER_CLOSE}

Which one of the options did the answer commit to as its own choice? Reply with that option exactly \
as written above and nothing else. If the answer commits to no option, or to more than one, reply {NONE_REPLY}."""
"""The one extraction prompt (placeholders ``$options``, one ``- <option>`` line each, and ``$answer``)."""
_WRAPPERS = "\"'`*_“”‘’«» \t\n"


@dataclass(frozen=True)
class Extraction:
    """What the extractor said about one unreadable answer.

    Attributes:
        value: the option extracted, spelled as offered, or None unless ``status`` is ``extracted``.
        status: one of :data:`EXTRACTION_STATUSES`.
        model: the extractor's config name.
        text: its reply verbatim (None when no reply came).
        key: the extraction request's cache key ('' when none was made).
        cost_usd: the call's price (None: unknown).
    """

    value: str | None
    status: str
    model: str
    text: str | None
    key: str
    cost_usd: float | None


@dataclass(frozen=True)
class Extractor:
    """The model asked and the prompt it is asked with (:data:`EXTRACTION_PROMPT` by default)."""

    model: LanguageModel
    prompt: PromptTemplate


class Extracting:
    """A job's model with the extractor its unreadable answers go to (same interface as the model).

    Args:
        model: the wrapped model stack of :func:`workflow_scripts.llm.session.build_stack`.
        extractor: the second reader.
    """

    def __init__(self, model: LanguageModel, extractor: Extractor):
        self.inner, self.extractor, self.spec = model, extractor, model.spec

    async def complete(self, request: Request) -> Completion:
        """The wrapped model's completion of ``request``."""
        return await self.inner.complete(request)

    async def complete_batch(self, requests: Sequence[Request]) -> list[Completion]:
        """The wrapped model's completions of ``requests``."""
        return await self.inner.complete_batch(requests)


def extractor_of(model: LanguageModel) -> Extractor | None:
    """The extractor of a job's model, or None when extraction is off. Wrappers a job adds around its
    models (a condition's :class:`~workflow_scripts.llm.spend.accounting.Accounted` counts) keep what they wrap
    in ``inner``: the chain is followed down to the :class:`Extracting` of the session, if any."""
    while model is not None:
        if isinstance(model, Extracting):
            return model.extractor
        model = getattr(model, "inner", None)
    return None


def extraction_template(text: str = EXTRACTION_PROMPT) -> PromptTemplate:
    """The extraction prompt as a checked template (fields ``options``, ``answer``).

    Raises:
        TemplateError: an unknown or malformed placeholder.
    """
    return PromptTemplate("answer_extraction", text, ("options", "answer"))


def extraction_messages(prompt: PromptTemplate, options: Sequence[str], answer: str) -> list[dict]:
    """The one user turn that asks the extractor about ``answer`` (verbatim) given ``options``."""
    listed = "\n".join(f"- {option}" for option in options)
    return [{"role": "user", "content": prompt.render(options=listed, answer=answer)}]


def read_extraction(text: str | None, options: Sequence[str]) -> tuple[str | None, str]:
    """Read an extractor's reply strictly (module docstring).

    Args:
        text: the reply (None when none came).
        options: the options the question offered.

    Returns:
        (the option as offered or None, one of :data:`EXTRACTION_STATUSES`). A reply ``NONE`` (any
        case) is ``none``, or ``rejected`` where NONE is itself an offered option (which of the two it
        means cannot be told).
    """
    if text is None:
        return None, NOT_ANSWERED
    reply = _bare(text)
    if reply.casefold() == NONE_REPLY.casefold():
        offered = any(_bare(option).casefold() == reply.casefold() for option in options)
        return None, REJECTED if offered else NOT_CHOSEN
    exact = [option for option in options if _bare(option) == reply]
    folded = [option for option in options if _bare(option).casefold() == reply.casefold()]
    chosen = exact if exact else folded
    if len(chosen) == 1:
        return chosen[0], EXTRACTED
    return None, REJECTED


def _bare(text: str) -> str:
    """``text`` in NFKC without its surrounding white space, quotes, backticks, emphasis and one final
    full stop."""
    text = unicodedata.normalize("NFKC", text).strip(_WRAPPERS)
    return (text[:-1] if text.endswith(".") else text).strip(_WRAPPERS)


async def extract(extractor: Extractor, options: Sequence[str], answer: str, replicate: int | str,
                  label: str = "") -> Extraction:
    """Ask ``extractor`` which of ``options`` the unreadable ``answer`` chose (one request).

    Args:
        extractor: the second reader.
        options: the options the question offered.
        answer: the unreadable answer, verbatim.
        replicate: the replicate of the attempt that gave ``answer`` (for the request's label; the
            request's own replicate is :data:`EXTRACT_REPLICATE`).
        label: the question's name in logs and errors.

    Returns:
        The :class:`Extraction` (status ``failed`` when no reply came: the job's verdict then names
        the request, as for any request without an answer).

    Raises:
        PermanentQueryError: from the extractor's provider.
    """
    asked = tuple(dict.fromkeys([*options, NONE_REPLY]))
    messages = extraction_messages(extractor.prompt, options, answer)
    name = f"{label} replicate {replicate} {EXTRACT_REPLICATE}".strip()
    completion = await extractor.model.complete(Request(messages, EXTRACT_REPLICATE, asked, name))
    text = completion.text if completion.failure is None else None
    value, status = read_extraction(text, options)
    return Extraction(value, status, extractor.model.spec.name, text, completion.key, completion.cost_usd)


def extraction_setting(config: Mapping) -> dict | None:
    """The ``answer_extraction`` setting as a query job's runtime param: the extractor's name, its
    resolved model entry (:func:`workflow_scripts.llm.spec.answer_entry`: a change reruns the query
    jobs) and the prompt text; None when extraction is off.

    Raises:
        ConfigError: naming ``answer_extraction`` when it names a model that is not configured or
            not enabled.
    """
    name = config.get(SETTING)
    if name is None:
        return None
    models = config["models"]
    if name not in models:
        raise ConfigError(f"{SETTING}: {name!r} is not a configured model; name one of {sorted(models)} "
                          "(or null for no second reader)")
    if not models[name].get("enabled"):
        raise ConfigError(f"{SETTING}: model {name!r} is not enabled; set models.{name}.enabled: true "
                          "to ask it about unreadable answers")
    from workflow_scripts.llm.spec import answer_entry

    entry = answer_entry(name, models[name], custom_providers=list(config.get("custom_providers") or {}))
    return {"model": name, "entry": entry, "prompt": EXTRACTION_PROMPT}


def with_extracted_answers(answers: "pd.DataFrame", column: str) -> "pd.DataFrame":
    """Answer rows in which every answer the extractor read counts as read: its ``status`` becomes
    ``valid`` and ``column`` (the study's move column, e.g. IPD ``action``) the extracted option;
    every other row unchanged. Rows without extraction columns (extraction off) are returned as they are.

    Args:
        answers: rows with the answer columns (and, with extraction on, ``extracted_answer`` and
            ``extraction_status``).
        column: the move column to fill.

    Returns:
        A copy; ``parse_method`` of a filled row is ``extracted``.
    """
    if "extraction_status" not in answers.columns:
        return answers
    taken = answers["extraction_status"].eq(EXTRACTED)
    out = answers.copy()
    out.loc[taken, column] = out.loc[taken, "extracted_answer"]
    out.loc[taken, "status"] = "valid"
    out.loc[taken, "parse_method"] = EXTRACTED
    return out
