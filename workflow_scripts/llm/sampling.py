"""Sampler settings that make llama.cpp's server draw from the model's own distribution (issue 9).

llama-cpp-python's OpenAI-compatible server (0.3.36, ``llama_cpp/server/types.py``) fills every
sampler field a request leaves out with its own default: temperature 0.8, top_p 0.95, top_k 40,
min_p 0.05, repeat_penalty 1.1 (presence_penalty 0, frequency_penalty 0 and mirostat_mode 0 are
already neutral; typical_p and tfs_z are not request fields, and the library's own default for both
is 1.0, i.e. off). Its sampler chain (``Llama._init_sampler``) is: penalties, grammar, top-k,
typical, top-p, min-p, temperature, draw. So with a grammar ``root ::= "L" | "R"`` and
"temperature 1, top_p 1" alone, min-p 0.05 still removes an answer whose probability is under 5%
of the other's: it is never drawn. The values below switch each stage off (llama.cpp: top_k <= 0,
top_p >= 1, min_p <= 0, penalties 1 / 0 are no-ops); at temperature 1 the grammar-constrained
draw is then the model's next-token distribution renormalised over the allowed answers.

litellm 1.110.2 forwards ``top_k``, ``min_p`` and ``repeat_penalty`` for an ``openai/`` model as
top-level JSON fields of the request body, whether they are given as top-level arguments or in
``extra_body`` (checked on the wire; ``drop_params=True`` does not drop them). Measured on the
embedded model by ``tests/test_embedded_sampling.py``.
"""

NEUTRAL_SAMPLING = {
    "temperature": 1.0,       # server default 0.8
    "top_p": 1.0,             # server default 0.95
    "top_k": 0,               # server default 40
    "min_p": 0.0,             # server default 0.05
    "repeat_penalty": 1.0,    # server default 1.1
    "presence_penalty": 0.0,  # server default 0.0 (sent so the request says so)
    "frequency_penalty": 0.0,  # server default 0.0
    "mirostat_mode": 0,       # server default 0
}
