"""Estimating a question's choice probabilities (a model's ``estimation``).

- :mod:`.estimate`: one question's choice probabilities, from log-probabilities or from samples;
- :mod:`.logprobs`: choice probabilities from the log-probabilities of one answer;
- :mod:`.sequential`: the sequential stopping rule, asking in rounds until the reading is settled.
"""
