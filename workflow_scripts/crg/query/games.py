"""Play collective-risk games: seats per game, rounds, cells and jobs (ours).

The games of a cell advance round by round together: before each round, every seat's questions
(its decision and any value questions due; the moves are simultaneous, one per seat) in every game
still playing are gathered and asked per model at once (:func:`workflow_scripts.llm.ask_round`), where
identical questions of different games (the same seat, seeing the same history) are one group, asked
in one call where the model allows it (:mod:`workflow_scripts.llm.grouping`). The cells of a job run one
after another. The query client bounds how many calls are really in flight.

A seat whose answer is still unreadable after the re-ask limit stops its game: the round is
recorded but not applied, and the game is marked incomplete with the reason. No contribution
is ever filled in for it. The other games of the cell play on.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from workflow_scripts.crg.design.cells import Cell

from workflow_scripts.crg.design.jobs import Job
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, GameState, Outcome, Rules, catastrophe_draw, outcome
from workflow_scripts.crg.query.llm_seat import LLMSeat
from workflow_scripts.crg.query.prompts import Prompter
from workflow_scripts.crg.query.scripted_seat import ScriptedSeat
from workflow_scripts.crg.query.seats import Decision, QuestionAnswer, Seat, SeatView
from workflow_scripts.llm import LanguageModel, ask_round

SCRIPTED_PREFIX = "scripted:"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Table:
    """Who plays which seat in one game.

    Attributes:
        seat_seed: seed of the seat-order shuffle (stored).
        seats: the seats, in table order.
    """

    seat_seed: int
    seats: tuple[Seat, ...]


@dataclass(frozen=True)
class RoundPlay:
    """One round as played: the state before it, the decisions, and the questions answered."""

    before: GameState
    decisions: tuple[Decision, ...]
    questions: tuple[tuple[int, QuestionAnswer], ...]


@dataclass(frozen=True)
class GameRecord:
    """Everything about one game, for :mod:`workflow_scripts.crg.query.rows`.

    Attributes:
        cell, game: the cell and the game's index in it.
        game_seed: seed of the catastrophe draw; ``draw`` the draw itself.
        table: the seats and the seat-order seed.
        rounds: each round played (including a last, unapplied round of an incomplete game).
        final: the state after the last applied round.
        outcome: the settled result, or None if the game is incomplete.
        incomplete_reason: why the game stopped early, or None.
        template: the condition's prompt key.
    """

    cell: Cell
    game: int
    game_seed: int
    draw: float
    table: Table
    rounds: tuple[RoundPlay, ...]
    final: GameState
    outcome: Outcome | None
    incomplete_reason: str | None
    template: str


def seat_order(players: Sequence[str], seat_seed: int) -> list[str]:
    """``players`` shuffled by ``random.Random(seat_seed)`` (the stored seat-order seed)."""
    order = list(players)
    random.Random(seat_seed).shuffle(order)
    return order


def build_table(job: Job, cell: Cell, game: int, clients: Mapping[str, LanguageModel], prompter: Prompter) -> Table:
    """The seats of one game: the job's players in a per-game shuffled order.

    Raises:
        KeyError: if a model of the job has no client.
    """
    seat_seed = cell.seat_seed(job.seed, game)
    questions = {r: job.condition.questions for r in job.condition.question_rounds} if job.condition.questions else {}
    seats: list[Seat] = []
    for index, player in enumerate(seat_order(job.players(cell), seat_seed)):
        if player.startswith(SCRIPTED_PREFIX):
            seats.append(ScriptedSeat(player[len(SCRIPTED_PREFIX):]))
            continue
        replicate = f"crg/seed={job.seed}/{cell.game_id(game)}/seat={index + 1}"
        seats.append(LLMSeat(player, clients[player], prompter, replicate, job.max_reasks, questions))
    return Table(seat_seed, tuple(seats))


async def play_round(tables: Sequence[Sequence[Seat]], states: Sequence[GameState], p: float) -> list[RoundPlay]:
    """The next round of several games at risk ``p``, asked together: every seat's questions
    (:meth:`Seat.asks`) per model in one :func:`~workflow_scripts.llm.ask_round`; one
    :class:`RoundPlay` per game, in order."""
    views = [[SeatView(state.rules, p, s, state) for s in range(len(seats))] for seats, state in zip(tables, states)]
    asked = [[seat.asks(view) for seat, view in zip(seats, game)] for seats, game in zip(tables, views)]
    by_model: dict[int, tuple[Seat, list[tuple[int, int]]]] = {}
    for g, seats in enumerate(tables):
        for s, seat in enumerate(seats):
            if asked[g][s]:
                by_model.setdefault(id(seat.model), (seat, []))[1].append((g, s))
    answers: dict[tuple[int, int], list] = {}

    async def ask(seat, places: list[tuple[int, int]]) -> None:
        questions = [q for g, s in places for q in asked[g][s]]
        got = iter(await ask_round(seat.model, questions, seat.max_reasks, seat.prompter.reask_note))
        for g, s in places:
            answers[g, s] = [next(got) for _ in asked[g][s]]

    await asyncio.gather(*(ask(seat, places) for seat, places in by_model.values()))
    plays = []
    for g, (seats, state) in enumerate(zip(tables, states)):
        results = [seat.answered(view, answers.get((g, s), [])) for s, (seat, view) in enumerate(zip(seats, views[g]))]
        questions = tuple((s, answer) for s, (_, answered) in enumerate(results) for answer in answered)
        plays.append(RoundPlay(state, tuple(decision for decision, _ in results), questions))
    return plays


def failure_reason(play: RoundPlay) -> str | None:
    """Why a round cannot be applied (seats without a valid answer), or None."""
    failed = [(s, d) for s, d in enumerate(play.decisions) if not d.valid]
    if not failed:
        return None
    parts = [f"seat {s + 1} {d.status} after {len(d.answer.attempts)} attempts" for s, d in failed]
    return f"round {play.before.next_round}: " + "; ".join(parts)


@dataclass
class GameInPlay:
    """One game while its cell plays: the rounds so far and its state (:meth:`record` when done)."""

    cell: Cell
    game: int
    game_seed: int
    table: Table
    template: str
    rules: Rules = SEED_000_RULES
    state: GameState = field(init=False)
    rounds: list[RoundPlay] = field(default_factory=list)
    reason: str | None = None

    def __post_init__(self) -> None:
        self.state = GameState(self.rules)

    @property
    def playing(self) -> bool:
        """True until the last round is played or a seat had no valid answer."""
        return not self.state.finished and self.reason is None

    def add(self, play: RoundPlay) -> None:
        """Record a round; apply it unless a seat had no valid answer (then the game stops)."""
        self.rounds.append(play)
        self.reason = failure_reason(play)
        if self.reason is None:
            self.state = self.state.play([d.contribution for d in play.decisions])

    def record(self) -> GameRecord:
        """The game's record: ``outcome`` is None and ``incomplete_reason`` set if it stopped."""
        draw = catastrophe_draw(self.game_seed)
        settled = outcome(self.state, self.cell.p, draw) if self.reason is None else None
        return GameRecord(self.cell, self.game, self.game_seed, draw, self.table, tuple(self.rounds), self.state,
                          settled, self.reason, self.template)


async def play_cell(job: Job, cell: Cell, clients: Mapping[str, LanguageModel], prompter: Prompter) -> list[GameRecord]:
    """All games of one cell, round by round together (:func:`play_round`); records in game order."""
    games = [GameInPlay(cell, g, cell.game_seed(job.seed, g), build_table(job, cell, g, clients, prompter), prompter.key,
                        job.rules)
             for g in range(cell.games)]
    while playing := [game for game in games if game.playing]:
        plays = await play_round([game.table.seats for game in playing], [game.state for game in playing], cell.p)
        for game, play in zip(playing, plays):
            game.add(play)
    return [game.record() for game in games]


async def play_job(job: Job, clients: Mapping[str, LanguageModel], prompter: Prompter) -> list[GameRecord]:
    """Every cell of a job, one cell after another; records in cell then game order."""
    records: list[GameRecord] = []
    for cell in job.cells:
        started = time.perf_counter()
        games = await play_cell(job, cell, clients, prompter)
        records.extend(games)
        complete = sum(g.outcome is not None for g in games)
        log.info("%s: %d games (%d complete) in %.1f s", cell.id, len(games), complete, time.perf_counter() - started)
    return records
