"""Spend: what a job would ask and cost before it runs, the caps it must keep, what it cost.

- :mod:`.planning`: what a job would ask, found without asking (the spend plan);
- :mod:`.budget`: the ``budget_usd`` caps, overall and per model, against the spend in the cache;
- :mod:`.accounting`: what a job's requests cost and how they went, with progress while it runs.
"""
