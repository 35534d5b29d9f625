"""Parameters a provider rejects that a request can do without: what the layer changes, and why.

Some providers answer a valid OpenAI request with HTTP 400 because of one parameter, although
litellm's tables say they take it:

- **log-probabilities refused**: a deployment that takes no ``logprobs`` at all (some Azure
  deployments). The request is asked again without ``logprobs`` / ``top_logprobs``: its answer is a
  sampled answer, and the question falls back to sampling
  (:func:`workflow_scripts.llm.estimation.estimate.estimate_choice`), the reason recorded;
- **top_logprobs capped**: a provider that takes fewer top log-probabilities than asked (OpenAI 20,
  some Azure deployments 5, a vLLM server its ``--max-logprobs``) and says how many
  (:func:`stated_cap`: "Expected a value <= 5", "must be between 0 and 5", "at most 5", vLLM's
  "Requested sample logprobs of 50, which is greater than max allowed: 20", ...): the number bound
  to the cap's wording, never another number of the message (the one asked). The request is asked again with that many: where they still
  suffice (every answer among them, little mass outside) the probabilities are exact, else the
  question falls back to sampling as for any short list (:mod:`workflow_scripts.llm.estimation.logprobs`);
- **seed rejected** (Together rejects ``seed`` with ``n`` > 1, together-py #214): the call is made
  again without the seed, its answers recorded as seedless. Where the provider table knows it
  (:data:`workflow_scripts.llm.spec.SEED_WITH_N_REJECTED`) no seed is sent in the first place.

The kind is recognised from the error, not from one provider's wording: a 400 (litellm's
``BadRequestError``) whose text names a parameter that was sent (``logprobs`` / ``top_logprobs``,
``seed``). A 400 naming anything else stays a permanent error. What a provider rejected once, the
layer does not send again for that model within the job (no further 400 per request).

**Cache keys.** An adapted answer is stored under the key of what was actually asked (the
single request with the parameter removed or lowered: :meth:`Adaptation.apply`), so the key
always reflects what was asked; a request looks up its own key first, then the keys of its
possible adaptations (:func:`variants`), so a replay finds the answer without asking. A request
asked again without log-probabilities has exactly the key of the same replicate asked for a
sample: the question's fallback sampling reuses it instead of paying for it twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

LOGPROB_PARAMS = ("logprobs", "top_logprobs")
CAP_PATTERN = re.compile(
    r"(?:<=|≤|at most|no more than|max(?:imum)?(?: value)?(?: allowed)?(?: of| is)?:?|less than or equal to"
    r"|between \d+ and|up to)\s*(\d+)",
    re.I)
"""How a 400 states the largest ``top_logprobs`` it takes (OpenAI: "Expected a value <= 20"; vLLM: "max
allowed: 20")."""


@dataclass(frozen=True)
class Adaptation:
    """What the layer changed in a request because the provider rejected a parameter.

    Attributes:
        seed_dropped: the seed was not sent.
        logprobs_refused: ``logprobs`` / ``top_logprobs`` were not sent.
        top_cap: ``top_logprobs`` was lowered to this (None: not lowered).
        reason: the provider's error (shortened, key masked) that made the change.
    """

    seed_dropped: bool = False
    logprobs_refused: bool = False
    top_cap: int | None = None
    reason: str = ""

    def __bool__(self) -> bool:
        return self.seed_dropped or self.logprobs_refused or self.top_cap is not None

    def apply(self, params: dict) -> dict:
        """``params`` as actually sent: the seed and log-probability parameters removed or lowered."""
        sent = dict(params)
        if self.seed_dropped:
            sent.pop("seed", None)
        if self.logprobs_refused:
            for name in LOGPROB_PARAMS:
                sent.pop(name, None)
        elif self.top_cap is not None and "top_logprobs" in sent:
            sent["top_logprobs"] = min(int(sent["top_logprobs"]), self.top_cap)
        return sent

    def combined(self, other: "Adaptation") -> "Adaptation":
        """Both changes (the later reason appended)."""
        caps = [c for c in (self.top_cap, other.top_cap) if c is not None]
        reason = "; ".join(r for r in (self.reason, other.reason) if r)
        return Adaptation(self.seed_dropped or other.seed_dropped, self.logprobs_refused or other.logprobs_refused,
                          min(caps) if caps else None, reason)

    def note(self) -> str | None:
        """The change in words, with the provider's reason (answer-record column ``adaptation``)."""
        if not self:
            return None
        parts = (["seed dropped"] if self.seed_dropped else []) + (
            ["log-probabilities refused, asked without them"] if self.logprobs_refused else []) + (
            [f"top_logprobs lowered to {self.top_cap}"] if self.top_cap is not None and not self.logprobs_refused else [])
        return f"{', '.join(parts)} (provider: {self.reason})" if self.reason else ", ".join(parts)

    def as_entry(self) -> dict:
        """The cache entry's ``adaptation`` field."""
        return {"seed_dropped": self.seed_dropped, "logprobs_refused": self.logprobs_refused,
                "top_cap": self.top_cap, "reason": self.reason}

    @classmethod
    def of_entry(cls, entry: dict | None) -> "Adaptation":
        """The adaptation stored in a cache entry (none for an entry without one)."""
        data = (entry or {}).get("adaptation") or {}
        return cls(bool(data.get("seed_dropped")), bool(data.get("logprobs_refused")), data.get("top_cap"),
                   data.get("reason") or "")


def stated_cap(text: str) -> int | None:
    """The largest ``top_logprobs`` a provider's error says it takes, or None if it states none."""
    caps = [int(match) for match in CAP_PATTERN.findall(text)]
    return min(caps) if caps else None


def rejection(text: str, params: dict) -> Adaptation | None:
    """The change that answers a 400 with error text ``text`` to a call sent with ``params``, or None
    when the error names no parameter the request can do without (module docstring)."""
    lowered = text.lower()
    if params.get("logprobs") and "logprob" in lowered:
        cap = stated_cap(lowered)
        if cap is not None and 1 <= cap < int(params.get("top_logprobs") or 0):
            return Adaptation(top_cap=cap, reason=text)
        return Adaptation(logprobs_refused=True, reason=text)
    if params.get("seed") is not None and "seed" in lowered:
        return Adaptation(seed_dropped=True, reason=text)
    return None


@dataclass
class Learned:
    """What one model's provider has rejected in this job, applied to its later calls.

    A seed rejected in a call with ``n`` > 1 is dropped from calls with ``n`` > 1 only (a single
    call keeps its seed); one rejected in a single call is dropped from every call.
    """

    seed_any: Adaptation | None = None
    seed_with_n: Adaptation | None = None
    logprobs: Adaptation | None = None

    def learn(self, change: Adaptation, params: dict) -> None:
        """Remember ``change`` made to a call sent with ``params``."""
        if change.seed_dropped:
            if int(params.get("n") or 1) > 1:
                self.seed_with_n = change
            else:
                self.seed_any = change
        if change.logprobs_refused or change.top_cap is not None:
            self.logprobs = change if self.logprobs is None else self.logprobs.combined(change)

    def for_call(self, params: dict) -> Adaptation:
        """The changes already learned that apply to a call with ``params``."""
        found = Adaptation()
        seed = self.seed_any or (self.seed_with_n if int(params.get("n") or 1) > 1 else None)
        if seed is not None and params.get("seed") is not None:
            found = found.combined(seed)
        if self.logprobs is not None and params.get("logprobs"):
            found = found.combined(replace(self.logprobs, seed_dropped=False))
        return found


def variants(params: dict) -> list[Adaptation]:
    """The adaptations a request sent with ``params`` may have been answered under, most likely first
    (for the cache lookup of :class:`workflow_scripts.llm.caching.store.Cached`)."""
    seeds = [False, True] if params.get("seed") is not None else [False]
    asked_top = int(params.get("top_logprobs") or 0) if params.get("logprobs") else 0
    logprobs = [(False, None)] + ([(True, None)] + [(False, cap) for cap in range(asked_top - 1, 0, -1)]
                                  if asked_top or params.get("logprobs") else [])
    found = [Adaptation(seed, refused, cap) for seed in seeds for refused, cap in logprobs]
    return [a for a in found if a]
