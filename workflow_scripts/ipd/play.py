"""Actual play between two models (seed 001, SI §4.6): one job = one pair x condition.

Every pair of enabled models plays, including a model against itself (5 models: 15 pairs).
A game has ``rounds`` rounds; in each round both players are asked (concurrently) before
either move is revealed, each with the full history of the game from its own view
(:func:`workflow_scripts.ipd.prompts.play_prompt`). A non-valid answer is kept and the
same player is asked again (``attempt`` 1, 2, ... up to ``ipd.max_reasks``); if no valid
answer comes, the game stops there and is reported incomplete. Nothing is coerced.

Every request's replicate is the string
``play/<treatment>/<pair>/game=<g>/round=<r>/player=<i>/attempt=<a>``: with the history in
the prompt it fixes the cache key and the seed sent to the model (``seed`` derived from it,
models.derived_seed), so each game is seeded and a rerun replays it from the cache
byte for byte with zero provider calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pandas as pd

from workflow_scripts.elicitation import ReplayIncomplete, answer_row
from workflow_scripts.ipd.conditions import Condition
from workflow_scripts.ipd.pairs import pair_models
from workflow_scripts.ipd.prompts import ACTIONS, StagePayoffs, messages, play_prompt
from workflow_scripts.llm.parsing import VALID
from workflow_scripts.query import CacheMiss
from workflow_scripts.session import model_session

log = logging.getLogger(__name__)
MOVE_COLUMNS = [
    "key", "experiment", "condition", "treatment", "framing", "rounds", "pair", "game", "round", "player",
    "model", "litellm_model", "co_player", "replicate", "attempt", "raw_text", "finish_reason", "action",
    "status", "parse_method", "from_cache", "cost_usd", "latency_s",
]
"""One row per answer of a player in a round (every attempt kept)."""


def replicate_id(treatment: str, pair: str, game: int, round_: int, player: int, attempt: int) -> str:
    """Replicate string of one request (see module docstring)."""
    return f"play/{treatment}/{pair}/game={game}/round={round_}/player={player}/attempt={attempt}"


class Game:
    """One game of a pair under a condition; :meth:`play` returns its answer rows."""

    def __init__(self, clients: tuple, pair: str, condition: Condition, game: int, ipd: dict):
        self.clients, self.pair, self.condition, self.game = clients, pair, condition, game
        self.models = pair_models(pair)
        self.payoffs = StagePayoffs.of(condition.payoffs)
        self.system_prompt = ipd.get("system_prompt", "")
        self.template_dir = ipd.get("template_dir")
        self.max_reasks = int(ipd.get("max_reasks", 0))

    async def play(self) -> list[dict]:
        """Play all rounds; stop early (incomplete game) when a player gives no valid answer."""
        histories: tuple[list[str], list[str]] = ([], [])
        rows: list[dict] = []
        for round_ in range(1, self.condition.rounds + 1):
            decided = await asyncio.gather(*(self._decide(i, round_, list(histories[i])) for i in (0, 1)))
            rows += [row for answers, _ in decided for row in answers]
            first, second = (move for _, move in decided)
            if first is None or second is None:
                log.warning("%s game %d: no valid answer in round %d; game incomplete", self.pair, self.game, round_)
                break
            histories[0].append(first + second)
            histories[1].append(second + first)
        return rows

    async def _decide(self, player: int, round_: int, history: list[str]) -> tuple[list[dict], str | None]:
        """Ask one player until a valid move (or the re-ask budget ends): (rows, move or None)."""
        chat = messages(self.system_prompt, play_prompt(
            history, self.payoffs, self.condition.framing_text, self.condition.horizon, self.template_dir,
        ))
        rows = []
        for attempt in range(self.max_reasks + 1):
            replicate = replicate_id(self.condition.treatment, self.pair, self.game, round_, player, attempt)
            try:
                response = await self.clients[player].ask(chat, replicate, ACTIONS, label=replicate)
            except CacheMiss as miss:
                raise ReplayIncomplete([miss]) from None
            rows.append(self._row(player, round_, attempt, replicate, response))
            if rows[-1]["status"] == VALID:
                return rows, rows[-1]["action"]
        return rows, None

    def _row(self, player: int, round_: int, attempt: int, replicate: str, response) -> dict:
        c = self.condition
        return {
            "experiment": c.experiment, "condition": c.id, "treatment": c.treatment,
            "framing": c.framing, "rounds": c.rounds, "pair": self.pair, "game": self.game, "round": round_,
            "player": player, "model": self.models[player], "litellm_model": self.clients[player].spec.litellm_model,
            "co_player": self.models[1 - player], "replicate": replicate, "attempt": attempt,
            **answer_row(response, ACTIONS),
        }


def run_pair(config: dict, pair: str, condition: Condition, log_dir: str = "logs/servers") -> tuple[pd.DataFrame, list[dict]]:
    """Play ``condition.games`` games of ``pair`` under ``condition``.

    Returns:
        (moves, stats): one row per answer (columns MOVE_COLUMNS, games in order, nothing
        dropped) and the query counts of each model of the pair.

    Raises:
        ReplayIncomplete: replay mode and a request is not cached (the first one missing;
            later prompts depend on its answer).
        PermanentQueryError, EmbeddedModelError: see their modules.
    """
    models = pair_models(pair)
    with contextlib.ExitStack() as stack:
        sessions = {m: stack.enter_context(model_session(config, m, log_dir=log_dir)) for m in dict.fromkeys(models)}
        clients = (sessions[models[0]], sessions[models[1]])
        games = [Game(clients, pair, condition, g, config["ipd"]) for g in range(condition.games)]

        async def play_all():
            return await asyncio.gather(*(game.play() for game in games))

        rows = [row for game_rows in asyncio.run(play_all()) for row in game_rows]
        stats = [
            {"model": m, "experiment": condition.experiment, "condition": condition.id, "pair": pair,
             **client.stats.as_dict()}
            for m, client in sessions.items()
        ]
    return pd.DataFrame(rows).reindex(columns=MOVE_COLUMNS), stats
