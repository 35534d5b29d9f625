"""Actual play between two models (the IPD paper's SI §4.6): one job = one pair x experiment, every selected
condition (treatment) of the experiment (:class:`PlayJob`), their games all played at once.

Every pair of enabled models plays, including a model against itself (5 models: 15 pairs).
A game has ``rounds`` rounds; in each round both players are asked (concurrently) before
either move is revealed, each with the full history of the game from its own view
(:func:`workflow_scripts.ipd.query.prompts.play_prompt`). Each move is one question of the one re-ask
policy (:func:`workflow_scripts.llm.choice.ask_choice`); if a player gives no valid answer, the
game stops there and is reported incomplete. Nothing is coerced.

Every question's replicate is the string ``play/<treatment>/<pair>/game=<g>/round=<r>/player=<i>``:
with the history in the prompt it fixes the cache key and the seed sent to the model, so each
game is seeded and a rerun replays it from the cache byte for byte with zero provider calls.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass

import pyarrow as pa

from workflow_scripts.ipd.design.conditions import Condition
from workflow_scripts.ipd.design.pairs import pair_models
from workflow_scripts.ipd.query.prompts import ACTIONS, StagePayoffs, messages, play_prompt
from workflow_scripts.llm import TemplateSet, answer_record, ask_choice, records
from workflow_scripts.llm.accounting import GroupStats
from workflow_scripts.llm.choice import longest
from workflow_scripts.llm.context import Longest, longest_of

log = logging.getLogger(__name__)
STUDY_FIELDS = [
    ("experiment", pa.string()), ("condition", pa.string()), ("treatment", pa.string()),
    ("framing", pa.string()), ("rounds", pa.int16()), ("pair", pa.string()), ("game", pa.int32()),
    ("round", pa.int16()), ("player", pa.int8()), ("co_player", pa.string()), ("replicate", pa.string()),
    ("action", pa.string()),
]
SCHEMA = records.schema(STUDY_FIELDS)
SORT_BY = ["experiment", "condition", "pair", "game", "round", "player"]


def replicate_id(treatment: str, pair: str, game: int, round_: int, player: int) -> str:
    """Replicate string of one question (see module docstring)."""
    return f"play/{treatment}/{pair}/game={game}/round={round_}/player={player}"


class Game:
    """One game of a pair under a condition; :meth:`play` returns its rows (one per move asked).

    Args:
        players: the two (wrapped) models, player 0 then player 1.
        pair: the pair's name ``a+b``.
        condition: the play condition.
        game: the game's index.
        system_prompt, max_reasks, texts: the study's system prompt, re-ask limit and templates.
    """

    def __init__(self, players: tuple, pair: str, condition: Condition, game: int, system_prompt: str,
                 max_reasks: int, texts: TemplateSet):
        self.players, self.pair, self.condition, self.game = players, pair, condition, game
        self.models = pair_models(pair)
        self.payoffs = StagePayoffs.of(condition.payoffs)
        self.system_prompt, self.max_reasks, self.texts = system_prompt, max_reasks, texts

    async def play(self) -> list[dict]:
        """Play all rounds; stop early (incomplete game) when a player gives no valid answer."""
        histories: tuple[list[str], list[str]] = ([], [])
        rows: list[dict] = []
        for round_ in range(1, self.condition.rounds + 1):
            decided = await asyncio.gather(*(self._decide(i, round_, list(histories[i])) for i in (0, 1)))
            rows += decided
            first, second = (row["action"] for row in decided)
            if first is None or second is None:
                log.warning("%s game %d: no valid answer in round %d; game incomplete", self.pair, self.game, round_)
                break
            histories[0].append(first + second)
            histories[1].append(second + first)
        return rows

    async def _decide(self, player: int, round_: int, history: list[str]) -> dict:
        """Ask one player for its move; the row of the question."""
        c = self.condition
        chat = messages(self.system_prompt, play_prompt(history, self.payoffs, c.framing_text, c.horizon, self.texts))
        replicate = replicate_id(c.treatment, self.pair, self.game, round_, player)
        answer = await ask_choice(self.players[player], chat, ACTIONS, replicate, self.max_reasks,
                                  self.texts["reask"], replicate)
        return {
            "experiment": c.experiment, "condition": c.id, "treatment": c.treatment, "framing": c.framing,
            "rounds": c.rounds, "pair": self.pair, "game": self.game, "round": round_, "player": player,
            "co_player": self.models[1 - player], "replicate": replicate, "action": answer.value,
            **answer_record(answer),
        }


async def play_pair(models: dict, pair: str, condition: Condition, system_prompt: str, max_reasks: int,
                    texts: TemplateSet) -> list[dict]:
    """Play ``condition.games`` games of ``pair`` concurrently; their rows, games in order.

    Args:
        models: the (wrapped) models by config name (one entry for a self-pair).

    Raises:
        PermanentQueryError: if a provider rejects a model's requests.
    """
    names = pair_models(pair)
    players = (models[names[0]], models[names[1]])
    games = [Game(players, pair, condition, g, system_prompt, max_reasks, texts) for g in range(condition.games)]
    return [row for rows in await asyncio.gather(*(g.play() for g in games)) for row in rows]


def longest_prompt(condition: Condition, system_prompt: str, max_reasks: int, texts: TemplateSet) -> Longest:
    """The condition's longest conversation, the last round's (a history of ``rounds - 1`` outcomes)
    with every re-ask, for the context check."""
    history = ["RR"] * (condition.rounds - 1)
    chat = messages(system_prompt, play_prompt(history, StagePayoffs.of(condition.payoffs), condition.framing_text,
                                               condition.horizon, texts))
    return Longest(longest(chat, ACTIONS, max_reasks, texts["reask"]), f"ipd.experiments.{condition.experiment}.rounds")


@dataclass(frozen=True)
class PlayJob:
    """One actual-play query job (rule ``ipd_play``): one pair of models plays every given condition
    of one experiment, all their games at once (through each model's one concurrency bound).

    Attributes:
        pair: the pair's name ``a+b``.
        conditions: the conditions (treatments), in config order.
        system_prompt, max_reasks, texts: the study's system prompt, re-ask limit and templates.
    """

    pair: str
    conditions: tuple[Condition, ...]
    system_prompt: str
    max_reasks: int
    texts: TemplateSet

    async def run(self, models: Mapping[str, object]) -> tuple[list[dict], GroupStats]:
        """Play every condition's games (:func:`play_pair`), each condition counted on its own.

        Returns:
            (the rows, conditions in order; the counts per condition id and model).

        Raises:
            PermanentQueryError: if a provider rejects a model's requests.
        """
        counts = GroupStats()
        played = await asyncio.gather(*(
            play_pair(counts.wrap(c.id, models), self.pair, c, self.system_prompt, self.max_reasks, self.texts)
            for c in self.conditions))
        return [row for rows in played for row in rows], counts

    def planned(self) -> int:
        """Moves the job asks at full length (for progress): two per round of every game."""
        return sum(2 * c.rounds * c.games for c in self.conditions)

    def longest(self) -> Longest:
        """The job's longest conversation (:func:`longest_prompt` of its longest condition)."""
        return longest_of([longest_prompt(c, self.system_prompt, self.max_reasks, self.texts) for c in self.conditions])


def moves_table(rows: list[dict]) -> pa.Table:
    """The moves table of one job (schema :data:`SCHEMA`), sorted by :data:`SORT_BY`."""
    return records.table(rows, SCHEMA, SORT_BY)
