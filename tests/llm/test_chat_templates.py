"""The embedded model's chat template is the product's choice: Gemma's own turns, named in the
config, handed to the server, and part of every cache key of the model."""

import sys
from pathlib import Path

import pytest

from workflow_scripts.errors import ConfigError
from workflow_scripts.llm.base import Request
from workflow_scripts.llm.serving.chat_templates import FORMAT_PREFIX, register, template_identity
from workflow_scripts.llm.serving.embedded import _server_command
from workflow_scripts.llm.spec import ModelSpec, answer_entry

EMBEDDED = {"enabled": True, "litellm_model": "openai/gemma-3-270m-q4_k_m", "embedded": "gemma3-270m-q4-k-m",
            "answer_format": "grammar", "decoding": {"temperature": 1.0, "max_tokens": 4, "seed": 3}}
CONVERSATION = [
    {"role": "system", "content": "Follow specified goals"},
    {"role": "user", "content": "Choose L or R. "},
    {"role": "assistant", "content": "maybe"},
    {"role": "user", "content": "Answer with one of: L, R."},
]


def test_the_gemma3_template_renders_gemma_turns_with_the_system_message_in_the_first_user_turn():
    """Written out by hand from Gemma 3's chat template (google/gemma-3-270m-it): BOS, the system text
    and a blank line open the first user turn, the assistant speaks as 'model', contents are
    trimmed, and the prompt ends with an open model turn. No [INST] anywhere."""
    llama_chat_format = pytest.importorskip("llama_cpp.llama_chat_format")
    expected = ("<bos><start_of_turn>user\nFollow specified goals\n\nChoose L or R.<end_of_turn>\n"
                "<start_of_turn>model\nmaybe<end_of_turn>\n"
                "<start_of_turn>user\nAnswer with one of: L, R.<end_of_turn>\n"
                "<start_of_turn>model\n")
    name = register("gemma3")
    handler = llama_chat_format.get_chat_completion_handler(name)
    assert name == FORMAT_PREFIX + "gemma3" and handler is not None
    from workflow_scripts.llm.serving.chat_templates import formatter

    response = formatter("gemma3")(messages=CONVERSATION)
    assert response.prompt == expected and response.stop == ["<end_of_turn>"] and response.added_special
    without_system = formatter("gemma3")(messages=CONVERSATION[1:2]).prompt
    assert without_system == "<bos><start_of_turn>user\nChoose L or R.<end_of_turn>\n<start_of_turn>model\n"
    with pytest.raises(ValueError, match="alternate"):
        formatter("gemma3")(messages=[CONVERSATION[1], CONVERSATION[1]])


def test_the_server_is_started_with_the_template():
    command = _server_command(Path("m.gguf"), 8000, 2048, 2, "gemma3")
    assert command[:5] == [sys.executable, "-m", "workflow_scripts.llm.serving.chat_server", "--chat_template", "gemma3"]
    assert "--model" in command and "llama_cpp.server" not in command


@pytest.mark.parametrize("template, chat_format", [
    (["--chat_template", "gemma3"], ["--chat_format", FORMAT_PREFIX + "gemma3"]),
    (["--chat_template", "gguf"], []),  # the GGUF file's own (SmolLM2's ChatML)
    ([], []),  # a served model that names none
])
def test_the_launcher_names_a_chat_format_only_for_the_pipelines_own_templates(template, chat_format):
    """llama-cpp-python uses the file's own template only when no --chat_format is given: the launcher
    passes one for gemma3 and none for gguf or no template (the server's entry point replaced by a print,
    in a child process: the launcher patches llama-cpp-python)."""
    import json
    import subprocess

    code = ("import json, sys, llama_cpp.server.__main__ as entry\n"
            "entry.main = lambda: print(json.dumps(sys.argv))\n"
            "from workflow_scripts.llm.serving.chat_server import main\n"
            f"main({[*template, '--model', 'm.gguf', '--library']!r})")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout
    assert json.loads(out.splitlines()[-1]) == ["llama_cpp.server", "--model", "m.gguf", *chat_format]


def test_the_template_is_part_of_the_embedded_models_cache_key_only():
    """Default: the embedded model's own (gemma3), in the spec, the job params and the key identity; a
    hosted model has none and its identity is unchanged; naming one on a hosted model is refused."""
    spec = ModelSpec.from_config("g", EMBEDDED)
    assert spec.chat_template == "gemma3" and ModelSpec.from_config("g", {**EMBEDDED, "chat_template": "gemma3"}) == spec
    assert answer_entry("g", EMBEDDED)["chat_template"] == "gemma3"
    params = spec.request_params([{"role": "user", "content": "x"}], 0, ("L", "R"))
    assert spec.identity(params)["chat_template"] == template_identity("gemma3")
    assert template_identity("gemma3").startswith("gemma3@sha256:") and len(template_identity("gemma3")) == 14 + 64
    untemplated = ModelSpec.from_config("g", EMBEDDED).__class__(**{**spec.__dict__, "chat_template": None})
    request = Request([{"role": "user", "content": "x"}], 0, ("L", "R"))
    assert untemplated.cache_key(request) != spec.cache_key(request)
    hosted = ModelSpec.from_config("h", {"enabled": True, "litellm_model": "openai/gpt-4o"})
    assert hosted.chat_template is None and set(hosted.identity({})) == {"params", "served_by"}
    with pytest.raises(ConfigError, match=r"models\.h\.chat_template: only an embedded model"):
        ModelSpec.from_config("h", {"enabled": True, "litellm_model": "openai/gpt-4o", "chat_template": "gemma3"})
