"""Play collective-risk games asynchronously: seats per game, rounds, cells and jobs (ours).

Within a game, each round's decisions (one per seat) (and any value questions due) are gathered at once,
as the moves are simultaneous; all games of a cell run concurrently; the cells of a job run one
after another. The query client bounds how many calls are really in flight.

A seat whose answer is still unreadable after the re-ask limit stops its game: the round is
recorded but not applied, and the game is marked incomplete with the reason. No contribution
is ever filled in for it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass
from typing import Mapping, Sequence

from workflow_scripts.crg.design.cells import Cell

from workflow_scripts.crg.design.jobs import Job
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES, GameState, Outcome, Rules, catastrophe_draw, outcome
from workflow_scripts.crg.query.llm_seat import LLMSeat
from workflow_scripts.crg.query.prompts import Prompter
from workflow_scripts.crg.query.scripted_seat import ScriptedSeat
from workflow_scripts.crg.query.seats import Decision, QuestionAnswer, Seat, SeatView
from workflow_scripts.llm import LanguageModel

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


async def play_round(seats: Sequence[Seat], state: GameState, p: float) -> RoundPlay:
    """Gather every seat's decision and due questions for the next round at once."""
    views = [SeatView(state.rules, p, s, state) for s in range(len(seats))]
    decided = asyncio.gather(*(seat.decide(view) for seat, view in zip(seats, views)))
    asked = asyncio.gather(*(seat.answer_questions(view) for seat, view in zip(seats, views)))
    decisions, answers = await asyncio.gather(decided, asked)
    questions = tuple((s, answer) for s, seat_answers in enumerate(answers) for answer in seat_answers)
    return RoundPlay(state, tuple(decisions), questions)


def failure_reason(play: RoundPlay) -> str | None:
    """Why a round cannot be applied (seats without a valid answer), or None."""
    failed = [(s, d) for s, d in enumerate(play.decisions) if not d.valid]
    if not failed:
        return None
    parts = [f"seat {s + 1} {d.status} after {len(d.answer.attempts)} attempts" for s, d in failed]
    return f"round {play.before.next_round}: " + "; ".join(parts)


async def play_game(
    cell: Cell, game: int, game_seed: int, table: Table, template: str, rules: Rules = SEED_000_RULES
) -> GameRecord:
    """Play one game to the end, or until a seat has no valid answer.

    Returns:
        The game's record; ``outcome`` is None and ``incomplete_reason`` set if it stopped.
    """
    state, rounds, reason = GameState(rules), [], None
    while not state.finished:
        play = await play_round(table.seats, state, cell.p)
        rounds.append(play)
        reason = failure_reason(play)
        if reason is not None:
            break
        state = state.play([d.contribution for d in play.decisions])
    draw = catastrophe_draw(game_seed)
    settled = outcome(state, cell.p, draw) if reason is None else None
    return GameRecord(cell, game, game_seed, draw, table, tuple(rounds), state, settled, reason, template)


async def play_cell(job: Job, cell: Cell, clients: Mapping[str, LanguageModel], prompter: Prompter) -> list[GameRecord]:
    """All games of one cell, concurrently; records in game order."""
    games = [
        play_game(cell, g, cell.game_seed(job.seed, g), build_table(job, cell, g, clients, prompter), prompter.key,
                  job.rules)
        for g in range(cell.games)
    ]
    return list(await asyncio.gather(*games))


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
