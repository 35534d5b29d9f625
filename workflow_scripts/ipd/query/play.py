"""Actual play between two models (the IPD paper's SI §4.6): one job = one pair x experiment, every selected
condition (treatment) of the experiment (:class:`PlayJob`), their games all played at once.

Every pair of enabled models plays, including a model against itself (5 models: 15 pairs).
A game has ``rounds`` rounds; in each round both players are asked before either move is revealed,
each with the full history of the game from its own view
(:func:`workflow_scripts.ipd.query.prompts.play_prompt`). The games of a treatment advance round by
round together (:func:`play_games`): each round's questions of every game still playing are asked per
model at once (:func:`workflow_scripts.llm.ask_round`), so the identical questions of games (and of
the two seats of a self-pair) that share their history are one group, asked in one call where the
model allows it (:mod:`workflow_scripts.llm.grouping`). Each move is one question of the one re-ask
policy (:mod:`workflow_scripts.llm.choice`); if a player gives no valid answer, the game stops there
and is reported incomplete. Nothing is coerced.

Every question's replicate is the string ``play/<treatment>/<pair>/game=<g>/round=<r>/player=<i>``:
with the history in the prompt it fixes the cache key and the seed sent to the model, so each
game is seeded and a rerun replays it from the cache byte for byte with zero provider calls.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pyarrow as pa

from workflow_scripts.ipd.design.conditions import Condition
from workflow_scripts.ipd.design.pairs import pair_models
from workflow_scripts.ipd.query.prompts import ACTIONS, StagePayoffs, messages, play_prompt
from workflow_scripts.llm import Answer, Question, TemplateSet, answer_record, ask_round, records
from workflow_scripts.llm.spend.accounting import GroupStats
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
    """One game of a pair under a condition, played round by round (:func:`play_games`); :attr:`rows`
    holds one row per move asked.

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
        self.histories: tuple[list[str], list[str]] = ([], [])
        self.rows: list[dict] = []
        self.stopped = False

    @property
    def round(self) -> int:
        """The round to play next (1-based)."""
        return len(self.histories[0]) + 1

    @property
    def playing(self) -> bool:
        """True until the last round is played or a player gave no valid answer."""
        return not self.stopped and self.round <= self.condition.rounds

    async def play(self) -> list[dict]:
        """Play all rounds of this game alone; stop early (incomplete game) when a player gives no valid answer."""
        await play_games([self])
        return self.rows

    def question(self, player: int) -> Question:
        """Player ``player``'s question of the next round (its own view of the history)."""
        c = self.condition
        chat = messages(self.system_prompt, play_prompt(list(self.histories[player]), self.payoffs, c.framing_text,
                                                        c.horizon, self.texts))
        replicate = replicate_id(c.treatment, self.pair, self.game, self.round, player)
        return Question(chat, ACTIONS, replicate, replicate)

    def add(self, answers: Sequence[Answer]) -> None:
        """Record the round's two answers (player 0, player 1) as rows; apply the moves, or stop."""
        c, round_ = self.condition, self.round
        for player, answer in enumerate(answers):
            self.rows.append({
                "experiment": c.experiment, "condition": c.id, "treatment": c.treatment, "framing": c.framing,
                "rounds": c.rounds, "pair": self.pair, "game": self.game, "round": round_, "player": player,
                "co_player": self.models[1 - player], "replicate": answer.attempts[0].replicate,
                "action": answer.value, **answer_record(answer),
            })
        first, second = (answer.value for answer in answers)
        if first is None or second is None:
            log.warning("%s game %d: no valid answer in round %d; game incomplete", self.pair, self.game, round_)
            self.stopped = True
            return
        self.histories[0].append(first + second)
        self.histories[1].append(second + first)


async def play_games(games: Sequence[Game]) -> None:
    """Play ``games`` (of one pair and condition) round by round together: each round, the questions
    of every game still playing asked per model in one :func:`~workflow_scripts.llm.ask_round`."""
    while playing := [game for game in games if game.playing]:
        by_model: dict[int, list[tuple[int, int]]] = {}
        for g, game in enumerate(playing):
            for player in (0, 1):
                by_model.setdefault(id(game.players[player]), []).append((g, player))
        answers: dict[tuple[int, int], Answer] = {}

        async def ask(places: list[tuple[int, int]]) -> None:
            first = playing[places[0][0]]
            model = first.players[places[0][1]]
            got = await ask_round(model, [playing[g].question(p) for g, p in places], first.max_reasks,
                                  first.texts["reask"])
            answers.update(zip(places, got))

        await asyncio.gather(*(ask(places) for places in by_model.values()))
        for g, game in enumerate(playing):
            game.add([answers[g, 0], answers[g, 1]])


async def play_pair(models: dict, pair: str, condition: Condition, system_prompt: str, max_reasks: int,
                    texts: TemplateSet) -> list[dict]:
    """Play ``condition.games`` games of ``pair`` round by round together (:func:`play_games`); their
    rows, games in order.

    Args:
        models: the (wrapped) models by config name (one entry for a self-pair).

    Raises:
        PermanentQueryError: if a provider rejects a model's requests.
    """
    names = pair_models(pair)
    players = (models[names[0]], models[names[1]])
    games = [Game(players, pair, condition, g, system_prompt, max_reasks, texts) for g in range(condition.games)]
    await play_games(games)
    return [row for game in games for row in game.rows]


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
