"""Chat templates the embedded model's server formats messages with, chosen by the product.

The GGUF of the embedded model (Gemma 3 270M, the base model) carries no chat template, and
llama-cpp-python then formats every conversation silently as Llama-2 (``[INST] <<SYS>> ...``;
its log says "Using fallback chat format: llama-2"), a format Gemma never saw and one a library upgrade may change. The product
therefore names the template (model entry ``chat_template``; default: the embedded model's own,
:data:`workflow_scripts.llm.serving.embedded.EMBEDDED_CHAT_TEMPLATES`), hands it to the server
(:mod:`workflow_scripts.llm.serving.chat_server` registers it as a llama-cpp-python chat format and starts
the server with ``--chat_format``), and keeps its identity (:func:`template_identity`: name and
SHA-256 of the template) in every cache key of the model, so answers asked under one prompt format
are never replayed for another.

``gemma3`` is Gemma 3's own turn format, as in the ``chat_template`` of Google's instruction-tuned
Gemma 3 tokenizers (google/gemma-3-270m-it, ``tokenizer_config.json``), text content only::

    <bos><start_of_turn>user
    {system}\n\n{user}<end_of_turn>
    <start_of_turn>model
    {assistant}<end_of_turn>
    <start_of_turn>user
    {user}<end_of_turn>
    <start_of_turn>model

Gemma has no system role: a system message opens the first user turn, followed by a blank line
(llama-cpp-python's built-in ``gemma`` format drops it instead, so it is not used). Roles must
alternate user / model after it, as the re-ask policy ensures (:mod:`workflow_scripts.llm.choice`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class ChatTemplate:
    """A chat template as llama-cpp-python's ``Jinja2ChatFormatter`` takes it.

    Attributes:
        source: the Jinja2 template (HF chat-template conventions: ``messages``, ``bos_token``,
            ``add_generation_prompt``, ``raise_exception``).
        bos_token, eos_token: the texts of the model's begin and end tokens (the end token also
            stops generation).
    """

    source: str
    bos_token: str
    eos_token: str


GEMMA3 = ChatTemplate(
    source=(
        "{{ bos_token }}"
        "{%- if messages[0]['role'] == 'system' -%}"
        "{%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}"
        "{%- set loop_messages = messages[1:] -%}"
        "{%- else -%}"
        "{%- set first_user_prefix = '' -%}"
        "{%- set loop_messages = messages -%}"
        "{%- endif -%}"
        "{%- for message in loop_messages -%}"
        "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
        "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
        "{%- endif -%}"
        "{%- set role = 'model' if message['role'] == 'assistant' else message['role'] -%}"
        "{{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else '') }}"
        "{{ message['content'] | trim }}"
        "{{ '<end_of_turn>\\n' }}"
        "{%- endfor -%}"
        "{%- if add_generation_prompt -%}"
        "{{ '<start_of_turn>model\\n' }}"
        "{%- endif -%}"
    ),
    bos_token="<bos>",
    eos_token="<end_of_turn>",
)
CHAT_TEMPLATES = {"gemma3": GEMMA3}
"""Template name (config ``chat_template``) -> template."""
FORMAT_PREFIX = "llm-dilemmas-"
"""Prefix of the chat-format names the templates are registered under in llama-cpp-python."""


OWN = "gguf"
"""The template name for a GGUF file's own chat template (``tokenizer.chat_template``, which
llama-cpp-python uses when no chat format is named): its identity is the file's, already in the cache
key through the weights' SHA-256. Only for models whose file carries one (SmolLM2); a file without
one would fall back to Llama-2 silently, so the embedded models that may use it are listed
(:data:`workflow_scripts.llm.serving.embedded.EMBEDDED_CHAT_TEMPLATES`)."""


def chat_template(name: str) -> ChatTemplate:
    """The template called ``name``.

    Raises:
        KeyError: naming the known templates.
    """
    if name not in CHAT_TEMPLATES:
        raise KeyError(f"unknown chat template {name!r}; known: {sorted(CHAT_TEMPLATES) + [OWN]}")
    return CHAT_TEMPLATES[name]


def template_identity(name: str) -> str:
    """``<name>@sha256:<digest>`` of the template's source and tokens: the part of the cache key that
    changes whenever the prompt format does (``gguf``: the file's own, pinned by the file's digest)."""
    if name == OWN:
        return OWN
    template = chat_template(name)
    text = "\0".join((template.source, template.bos_token, template.eos_token))
    return f"{name}@sha256:{hashlib.sha256(text.encode()).hexdigest()}"


def formatter(name: str):
    """llama-cpp-python's ``Jinja2ChatFormatter`` of template ``name`` (imports llama_cpp)."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = chat_template(name)
    return Jinja2ChatFormatter(template.source, eos_token=template.eos_token, bos_token=template.bos_token)


def register(name: str) -> str | None:
    """Register template ``name`` as a llama-cpp-python chat format; returns the format's name
    (``llm-dilemmas-<name>``), for ``--chat_format``; None for the GGUF file's own (:data:`OWN`)."""
    if name == OWN:
        return None
    from llama_cpp import llama_chat_format

    format_name = FORMAT_PREFIX + name
    handler = llama_chat_format.chat_formatter_to_chat_completion_handler(formatter(name))
    llama_chat_format.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
        format_name, handler, overwrite=True)
    return format_name
