"""Sampler settings that make llama.cpp's server draw from the model's own distribution.

llama-cpp-python's OpenAI-compatible server (0.3.36, ``llama_cpp/server/types.py``) fills every
sampler field a request leaves out with its own default: temperature 0.8, top_p 0.95, top_k 40,
min_p 0.05, repeat_penalty 1.1; presence_penalty 0, frequency_penalty 0 and mirostat_mode 0 are
already neutral, and typical_p and tfs_z are not request fields at all (the server drops unknown
fields silently; the library's own default for both is 1.0, i.e. off). Its sampler chain
(``Llama._init_sampler``) is: penalties, grammar, top-k, typical, top-p, min-p, temperature, draw.
With a grammar ``root ::= "L" | "R"`` and "temperature 1, top_p 1" alone, min-p 0.05 therefore
still removes an answer whose probability is under 5% of the other's: it is never drawn. (The
penalties see only tokens generated in this answer, so a one-token answer escapes
repeat_penalty; longer answers, e.g. JSON, do not.)

The values below switch every stage off (llama.cpp: top_k <= 0, top_p >= 1, min_p <= 0, repeat
penalty 1 and presence/frequency penalties 0 are no-ops). At temperature 1 the
grammar-constrained draw is then the model's next-token distribution renormalised over the
allowed answers, which ``tests/test_embedded_sampling.py`` checks against the server's own token
log-probabilities.

vLLM and SGLang, served by the pipeline (a model entry's ``serve``), fill the sampler fields a
request leaves out from the model's ``generation_config.json`` where it has one (vLLM's
``--generation-config auto``, its default in recent releases; SGLang likewise): Llama 3.3 70B
Instruct's says temperature 0.6, top_p 0.9. Their requests therefore carry :data:`NEUTRAL_DECODING`
and :data:`NEUTRAL_VLLM` (top_k -1, min_p 0, repetition_penalty 1: off in both engines) unless the
config names other values, whatever the weights' file says.

How they are sent (``ModelSpec.request_params`` does it for every llama.cpp-served model: the
embedded one and any model at an ``api_base`` configured ``server: llama.cpp``, unless the config
names another value): the OpenAI fields of :data:`NEUTRAL_DECODING` as ordinary litellm
arguments, the llama.cpp-only fields of :data:`NEUTRAL_LLAMA_CPP` in ``extra_body`` beside the
grammar. Checked on the wire (litellm 1.110.2, ``openai/<name>`` model with ``api_base``): litellm
puts both sets as top-level JSON fields of the request body, which is where the server reads them.
"""

# OpenAI chat-completion fields (sent as ordinary litellm arguments).
NEUTRAL_DECODING = {
    "temperature": 1.0,        # server default 0.8
    "top_p": 1.0,              # server default 0.95
    "presence_penalty": 0.0,   # server default 0.0, sent so the request says so
    "frequency_penalty": 0.0,  # server default 0.0
}
# llama.cpp-only fields (sent in litellm's ``extra_body``).
NEUTRAL_LLAMA_CPP = {
    "top_k": 0,              # server default 40
    "min_p": 0.0,            # server default 0.05
    "repeat_penalty": 1.0,   # server default 1.1
    "mirostat_mode": 0,      # server default 0
}
# vLLM / SGLang fields beyond OpenAI's (sent in litellm's ``extra_body``).
NEUTRAL_VLLM = {
    "top_k": -1,                 # off (both engines); a model's generation_config may set one
    "min_p": 0.0,                # off
    "repetition_penalty": 1.0,   # off; Llama and Qwen configs may set e.g. 1.05
}
