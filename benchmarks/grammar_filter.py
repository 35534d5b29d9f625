"""The answer-grammar pre-filter on the embedded server (workflow_scripts/llm/serving/grammar_filter.py): time per
sampled answer with and without it, and whether the answers are the same.

Usage: python benchmarks/grammar_filter.py [draws] [model_dir]. One server each way, the same requests
(the pipeline's parameters for the default config's embedded model: temperature 1, neutral samplers,
derived seeds, grammar) on a memory-1 prompt (the IPD paper's SI §4.1) and a collective-risk prompt (0, 2 or
4 units); prints one JSON line: seconds per request each way, their ratio, and the answers' equality.
"""
import json
import sys
import time
from pathlib import Path

import litellm
import yaml

import workflow_scripts.llm.serving.embedded as E
from workflow_scripts.ipd.query.prompts import StagePayoffs, messages, user_prompt
from workflow_scripts.llm.spec import ModelSpec

DRAWS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
MODEL = E.gguf_path("gemma3-270m-q4-k-m", sys.argv[2] if len(sys.argv) > 2 else "models")
SPEC = ModelSpec.from_config("gemma3-270m", yaml.safe_load(Path("config/config.yaml").read_text())["models"]["gemma3-270m"])
PROMPTS = [
    (messages("Follow specified goals", user_prompt("round1", StagePayoffs.of((3, 0, 5, 1)))), ("L", "R")),
    ([{"role": "user", "content": "You are one of six players. Each round every player gives 0, 2 or 4 units to a "
                                  "shared pool. How many units do you contribute this round?"}], ("0", "2", "4")),
]


def run(full_grammar: bool):
    E.FULL_GRAMMAR = full_grammar
    answers, seconds = [], 0.0
    with E.embedded_server(MODEL, Path(f"logs/servers/grammar-filter-{full_grammar}.log"), threads=2) as served:
        for chat, options in PROMPTS:
            litellm.completion(**SPEC.request_params(chat, "warm", options), api_base=served.base, api_key="none")
            started = time.perf_counter()
            for replicate in range(DRAWS):
                reply = litellm.completion(**SPEC.request_params(chat, replicate, options), api_base=served.base,
                                           api_key="none")
                answers.append(reply.choices[0].message.content)
            seconds += time.perf_counter() - started
    return answers, seconds / (DRAWS * len(PROMPTS))


filtered, with_filter = run(False)
full, without = run(True)
print(json.dumps({"draws": DRAWS * len(PROMPTS), "s_per_request_filtered": round(with_filter, 4),
                  "s_per_request_full_grammar": round(without, 4), "full_over_filtered": round(without / with_filter, 2),
                  "answers_identical": filtered == full, "answers": {a: filtered.count(a) for a in sorted(set(filtered))}}))
