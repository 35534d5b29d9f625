"""Prompts of every condition for one hand-picked state, written out by hand (ours).

State: risk p = 0.1, Player 2 (seat index 1) before round 3; round 1 contributions
2, 0, 4, 2, 2, 0 (pool 10), round 2 contributions 4, 2, 2, 0, 2, 2 (pool 22). Player 2 has
given 0 + 2 = 2 and holds 38. Rule numbers: 6 players, 40 units, 10 rounds, target 120,
fair share 20 (2 per round), risk 10% and 90% of keeping the units. Every prompt ends with the
answer line and then the seat line, the only line that differs between the seats of a round.
"""

import re

import pytest

from .helpers import prompter_for
from workflow_scripts.gametheory.collective_risk import SEED_000_RULES as RULES
from workflow_scripts.gametheory.collective_risk import GameState
from workflow_scripts.crg.query.prompts import Prompter, percent
from workflow_scripts.crg.query.seats import SeatView
from workflow_scripts.llm.choice import reask_messages

STATE = """Contributions so far (units):
- Round 1: Player 1: 2, Player 2: 0, Player 3: 4, Player 4: 2, Player 5: 2, Player 6: 0; pool after the round: 10
- Round 2: Player 1: 4, Player 2: 2, Player 3: 2, Player 4: 0, Player 5: 2, Player 6: 2; pool after the round: 22
Pool so far: 22 (target: 120)
Current round: 3 of 10"""
SEAT = "You are Player 2. Your remaining units: 38"
ANSWER = "Answer with exactly one of: 0, 2, 4."
DECISION_ANSWER = ANSWER + " Give only the number as output. Give no explanation."  # the format line

BASE_RULES = """You are one of 6 players in a collective-risk game. Each player starts with 40 units.

Rules:
- The game lasts 10 rounds. In every round, each player contributes 0, 2 or 4 units to a shared pool. All players choose at the same time.
- The target is a pool of 120 units after round 10.
- If the pool reaches the target, every player keeps the units they did not contribute.
- If the pool is below the target after round 10, a catastrophe happens with probability 10% and destroys the remaining units of every player. With probability 90% there is no catastrophe and every player keeps their remaining units.
- Your payoff is the number of units you keep at the end of the game.

The risk of catastrophe in this game is 10%.
"""
NEUTRAL_RULES = """This is a game with 6 players. Each player starts with 40 units.

Rules:
- The game lasts 10 rounds. In every round, each player puts 0, 2 or 4 units into a common pool. All players choose at the same time.
- After round 10, the total in the pool is compared with 120.
- If the total is 120 or more, every player keeps the units they did not put in.
- If the total is below 120, a random draw follows: with probability 10% the remaining units of every player are set to 0; with probability 90% every player keeps their remaining units.
- Your payoff is the number of units you hold at the end of the game.

In this game the probability is 10%.

Note: 120 divided by 6 players is 20 units per player, which is 2 units per round. If every player puts in 2 units in every round, the pool ends at exactly 120.
"""

EXPECTED = {
    "base": f"""{BASE_RULES}
Hint: the fair share is 20 units per player, which is 2 units per round. If every player contributes 2 units in every round, the pool reaches exactly 120.

{STATE}

How many units do you contribute this round?

{DECISION_ANSWER}

{SEAT}""",
    "no_hint": f"""{BASE_RULES}
{STATE}

How many units do you contribute this round?

{DECISION_ANSWER}

{SEAT}""",
    "neutral": f"""{NEUTRAL_RULES}
{STATE}

How many units do you put in this round?

{DECISION_ANSWER}

{SEAT}""",
    "neutral_goal": f"""{NEUTRAL_RULES}
Your goal: end the game with as many units as possible in expectation. Only your own payoff matters.

{STATE}

How many units do you put in this round?

{DECISION_ANSWER}

{SEAT}""",
    "reword_1": f"""6 players, you among them, face a shared threat. Each of you holds 40 units, and the group plays 10 rounds.

Each round, every player secretly chooses to contribute 0, 2 or 4 units to a common pool; the choices are revealed together. The group needs 120 units in the pool by the end of round 10. If the group gets there, everyone keeps whatever they did not contribute. If it falls short, catastrophe strikes with probability 10% and wipes out every player's remaining units; with probability 90% nothing happens and everyone keeps what they have. What you keep at the end is your payoff.

Here the probability of catastrophe is 10%.

Hint: an equal split of the target is 20 units each, that is 2 units per round; if all 6 players contribute 2 every round, the pool ends at exactly 120.

{STATE}

Choose your contribution for this round.

{DECISION_ANSWER}

{SEAT}""",
    "reword_2": f"""Imagine you are one member of a group of 6. Everyone begins with 40 units. Over 10 rounds, each member adds 0, 2 or 4 units per round to a shared pool, all at once and without talking.

If the pool holds at least 120 units after the last round, the danger is averted and each member keeps the units they still hold. If the pool holds less than 120, a catastrophe destroys all units still held by every member with probability 10% (and spares them with probability 90%). Your score is the number of units you hold when the game ends.

Catastrophe probability in this game: 10%.

Hint: the fair share of the 120 units is 20 per member, or 2 per round; 2 from everyone in every round fills the pool to exactly 120.

{STATE}

What do you add to the pool this round?

{DECISION_ANSWER}

{SEAT}""",
}
CONDITION_TEMPLATES = sorted(EXPECTED)
NEUTRAL_TEMPLATES = ("neutral", "neutral_goal")
LOADED_WORDS = (
    "catastroph", "disaster", "climate", "destroy", "destruction", "danger", "threat", "risk", "crisis",
    "collapse", "damage", "harm", "lose", "loss", "fair", "cooperat", "selfish", "greed", "help",
    "save", "sacrific", "survive", "community", "wipe",
)


def view() -> SeatView:
    state = GameState(RULES).play([2, 0, 4, 2, 2, 0]).play([4, 2, 2, 0, 2, 2])
    return SeatView(RULES, 0.1, 1, state)


@pytest.mark.parametrize("template", CONDITION_TEMPLATES)
def test_decision_prompt_snapshot(template):
    """Each condition's prompt for the state above equals the hand-written text, as one user message."""
    messages = prompter_for(template).decision(view())
    assert messages == [{"role": "user", "content": EXPECTED[template]}]


def test_every_condition_template_has_a_snapshot():
    """A new condition template must get a snapshot here (question and re-ask templates aside)."""
    from .helpers import TEMPLATE_DIR

    conditions = {p.stem for p in TEMPLATE_DIR.glob("*.txt")} - {"reask", "question_payoff", "question_target"}
    assert conditions == set(CONDITION_TEMPLATES)


@pytest.mark.parametrize("template", NEUTRAL_TEMPLATES)
def test_neutral_prompts_contain_no_loaded_word(template):
    """The whole rendered neutral prompt (template, state block, answer line) avoids every loaded word."""
    text = prompter_for(template).decision(view())[0]["content"].lower()
    found = [w for w in LOADED_WORDS if re.search(rf"\b{w}", text)]
    assert found == []


def test_loaded_word_check_can_fail():
    """The same check flags the base prompt (it says 'catastrophe', 'risk' and 'fair')."""
    text = prompter_for("base").decision(view())[0]["content"].lower()
    assert {"catastroph", "risk", "fair"} <= {w for w in LOADED_WORDS if re.search(rf"\b{w}", text)}


def test_question_prompt_appends_the_question_and_its_options():
    """The value question follows the condition's text (without its answer line), lists A, B, C and
    ends with the seat line."""
    messages = prompter_for("base").question(view(), "question_payoff", ("A", "B", "C"))
    expected_tail = """How many units do you contribute this round?

Before you decide, answer a question about the rules. Compare two ways the game can go, from your point of view:
(A) every player puts in 0 units in every round, so the pool stays below 120;
(B) every player puts in 2 units in every round, so the pool reaches exactly 120.
In this game, which gives you the higher expected payoff? Answer A if (A) gives more, B if (B) gives more, or C if both give the same.

Answer with exactly one of: A, B, C. Give only the letter as output. Give no explanation.

You are Player 2. Your remaining units: 38"""
    assert messages[0]["content"].endswith(expected_tail)
    assert ANSWER not in messages[0]["content"]


def test_reask_quotes_the_unreadable_answer_once():
    """A re-ask (the layer's one policy) is the conversation so far, the unreadable answer as the
    assistant's turn, and the reask template quoting it with the answer line."""
    prompter = prompter_for("no_hint")
    first = prompter.decision(view())
    again = reask_messages(first, "  maybe five?  ", ("0", "2", "4"), prompter.reask_note)
    assert again[:2] == first + [{"role": "assistant", "content": "maybe five?"}]
    assert again[2] == {"role": "user", "content": (
        'Your previous answer could not be read as one of the allowed answers. Your previous answer was: '
        f'"maybe five?"\n\n{ANSWER}')}


def test_first_round_state_and_system_message():
    """Round 1: no history line; a configured system message comes first."""
    prompter = prompter_for("base", system="Follow specified goals")
    messages = prompter.decision(SeatView(RULES, 0.5, 0, GameState(RULES)))
    assert messages[0] == {"role": "system", "content": "Follow specified goals"}
    assert messages[1]["content"].endswith(
        "Contributions so far: none yet, this is the first round.\nPool so far: 0 (target: 120)\n"
        "Current round: 1 of 10\n\nHow many units do you contribute this round?\n\n"
        f"{DECISION_ANSWER}\n\nYou are Player 1. Your remaining units: 40"
    )


# Three rounds in which the seats gave 0, 2, 4, 6, 10 and 12 units in all (by hand: 0+0+0,
# 0+2+0, 2+0+2, 2+4+0, 4+2+4, 4+4+4), so before round 4 they hold 40, 38, 36, 34, 30, 28.
ROUNDS = ([0, 0, 2, 2, 4, 4], [0, 2, 0, 4, 2, 4], [0, 0, 2, 0, 4, 4])
SEAT_LINES = [f"You are Player {n}. Your remaining units: {units}"
              for n, units in zip(range(1, 7), (40, 38, 36, 34, 30, 28))]
ASKED = [("decision", None, ("0", "2", "4")), ("question", "question_payoff", ("A", "B", "C")),
         ("question", "question_target", ("60", "120", "180", "240"))]


@pytest.mark.parametrize("template", CONDITION_TEMPLATES)
@pytest.mark.parametrize("kind, question, options", ASKED)
def test_the_six_seats_of_a_round_differ_only_in_the_last_line(template, kind, question, options):
    """So a server reusing a shared prefix re-evaluates only the seat line: the six prompts of round 4
    (a decision or a value question) are identical up to their last line, which names the seat and
    the units it holds (above), after a blank line."""
    state = GameState(RULES)
    for contributions in ROUNDS:
        state = state.play(contributions)
    prompter = prompter_for(template)
    contents = []
    for seat in range(6):
        view = SeatView(RULES, 0.1, seat, state)
        messages = prompter.decision(view) if kind == "decision" else prompter.question(view, question, options)
        contents.append(messages[-1]["content"])
    heads, last_lines = zip(*(content.rsplit("\n", 1) for content in contents))
    assert len(set(heads)) == 1 and heads[0].endswith("Give no explanation.\n")
    assert list(last_lines) == SEAT_LINES


def test_unknown_placeholder_is_refused():
    """A typo such as $targte names the template and the unknown placeholder."""
    with pytest.raises(ValueError, match=r"'broken' uses unknown placeholders \['targte'\]"):
        Prompter("broken", {"broken": "Reach $targte. $state", "reask": "$previous"})


@pytest.mark.parametrize("p, text", [(0.0, "0%"), (0.1, "10%"), (0.5, "50%"), (1 / 3, "33.3333%"), (1.0, "100%")])
def test_percent(p, text):
    """Risks print without float noise: 0.1 -> 10% (not 10.000000000000002%)."""
    assert percent(p) == text


def test_the_answer_line_names_what_to_give_in_seed_001s_words():
    """A format sentence of the same kind as the IPD paper's ("Give only the character as
    output. Give no explanation."), naming numbers, letters or answers (written by hand)."""
    from workflow_scripts.crg.query.prompts import answer_line

    assert answer_line(("0", "2", "4")) == "Answer with exactly one of: 0, 2, 4. Give only the number as output. Give no explanation."
    assert answer_line(("60", "120", "180", "240")).endswith(": 60, 120, 180, 240. Give only the number as output. Give no explanation.")
    assert answer_line(("A", "B", "C")).endswith(": A, B, C. Give only the letter as output. Give no explanation.")
    assert answer_line(("low", "high")).endswith(": low, high. Give only the answer as output. Give no explanation.")
