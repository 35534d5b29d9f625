"""Config grids to jobs and cells (the CRG paper's Table 2), and the config errors they raise."""

import copy
import json

import pytest
import yaml

from .helpers import REPO
from workflow_scripts.crg.design.groups import analysis_conditions, mixed_models
from workflow_scripts.crg.design.jobs import Job, find_job, job_templates, plan_jobs, planned_jobs, with_decoding
from workflow_scripts.crg.design.settings import analysis_settings
from workflow_scripts.errors import ConfigError

FRAGMENT = {"crg": yaml.safe_load((REPO / "config" / "config.yaml").read_text())["crg"]}
for _design in FRAGMENT["crg"]["designs"].values():  # the default's model lists name real models
    _design.pop("models", None)
# the rerun with value questions (commented out in the default to keep it small)
FRAGMENT["crg"]["designs"]["controls"]["conditions"]["questions"] = {
    "template": "base", "p": [0.9], "questions": ["higher_payoff", "target"]}
MODELS = ["m1", "m2", "m3", "m4", "m5"]


def config(crg=None, models=MODELS):
    return {"crg": copy.deepcopy(crg or FRAGMENT["crg"]), "models": {m: {"decoding": {"temperature": 1.0}} for m in models}}


SEED_SCALE = {
    "seed": 1,
    "games_per_cell": 10,
    "designs": {
        "selfplay": {"conditions": {"base": {"p": [round(0.1 * i, 1) for i in range(11)]}}},
        "controls": {"conditions": {
            "questions": {"p": [0.1, 0.5, 0.9], "questions": ["higher_payoff", "target"]},
            "no_hint": {"template": "no_hint", "p": [0.1, 0.5, 0.9]},
            "neutral": {"template": "neutral", "p": [0.0, 0.1, 0.9]},
            "neutral_goal": {"template": "neutral_goal", "p": [0.0, 0.1, 0.9]},
            "reword_1": {"template": "reword_1", "p": [0.1, 0.9]},
            "reword_2": {"template": "reword_2", "p": [0.1, 0.9]},
        }},
        "scripted": {"conditions": {
            "always_0": {"p": [0.1, 0.3, 0.5, 0.7, 0.9], "partner": "always_0"},
            "always_4": {"p": [0.1, 0.3, 0.5, 0.7, 0.9], "partner": "always_4"},
        }},
        "mixed": {"pairs": "auto", "conditions": {"base": {"p": [0.1, 0.5, 0.9], "focal_seats": [1, 2, 3, 4, 5]}}},
    },
}


def games(jobs, design, condition=None):
    return sum(c.games for j in jobs if j.design == design and condition in (None, j.condition.name) for c in j.cells)


def test_seed_scale_grid_reproduces_table_2_game_counts():
    """Five models, 10 games per cell (the CRG paper's Table 2, Fig. 2-3, Table 5):

    self-play 5 x 11 risks x 10 = 550; with questions and no hint 5 x 3 x 10 = 150 each; neutral
    and neutral + goal 150 each; two rewordings 5 x 2 x 2 x 10 = 200; beside each scripted
    partner 5 risks x 10 = 50 games per model; each of the 10 pairs 5 splits x 3 risks x 10 = 150.
    """
    jobs = plan_jobs(config(SEED_SCALE), MODELS)
    assert games(jobs, "selfplay") == 550
    assert games(jobs, "controls", "questions") == games(jobs, "controls", "no_hint") == 150
    assert games(jobs, "controls", "neutral") == games(jobs, "controls", "neutral_goal") == 150
    assert games(jobs, "controls", "reword_1") + games(jobs, "controls", "reword_2") == 200
    assert {sum(c.games for c in j.cells) for j in jobs if j.design == "scripted"} == {50}
    mixed = [j for j in jobs if j.design == "mixed"]
    assert len(mixed) == 10 and {sum(c.games for c in j.cells) for j in mixed} == {150}


def test_default_fragment_jobs_for_two_models():
    """Per model: 1 self-play, 2 control (neutral_goal, questions), 2 scripted jobs; one pair m1+m2 with 5 splits."""
    jobs = plan_jobs(config(), ["m1", "m2"])
    assert [j.design for j in jobs].count("selfplay") == 2
    assert [j.design for j in jobs].count("controls") == 4
    assert [j.design for j in jobs].count("scripted") == 4
    (mixed,) = [j for j in jobs if j.design == "mixed"]
    assert mixed.lineup == "m1+m2" and [c.id for c in mixed.cells] == [
        f"mixed/m1+m2/base/p=0.9/focal={k}" for k in range(1, 6)]
    assert mixed.players(mixed.cells[0]) == ["m1"] + ["m2"] * 5
    assert mixed.output("games") == "results/crg/mixed/m1+m2/base/games.parquet"


def test_scripted_lineup_and_condition_filter():
    jobs = planned_jobs(config(), ["m1"], only_conditions=["always_4"])
    assert [(j.design, j.lineup, j.condition.name) for j in jobs] == [("scripted", "m1", "always_4")]
    assert jobs[0].players(jobs[0].cells[0]) == ["m1"] + ["scripted:always_4"] * 5
    assert planned_jobs({"models": {}}, ["m1"]) == []


def test_job_params_round_trip_through_json():
    """Snakemake params hold the job as JSON; reading them back gives the same job."""
    for job in plan_jobs(config(), ["m1", "m2"]):
        assert Job.from_params(json.loads(json.dumps(job.to_params()))) == job


def test_find_job_and_templates():
    job = find_job(config(), ["m1"], "controls", "m1", "questions")
    texts = job_templates(job, config(), REPO)
    assert sorted(texts) == ["base", "question_payoff", "question_target", "reask"]
    with pytest.raises(ConfigError, match="no CRG job controls/m9/questions"):
        find_job(config(), ["m1"], "controls", "m9", "questions")


def test_game_seeds_are_deterministic_and_distinct():
    cells = plan_jobs(config(SEED_SCALE), ["m1"])[0].cells
    seeds = {c.game_seed(1, g) for c in cells for g in range(10)}
    assert len(seeds) == 110
    assert cells[0].game_seed(1, 0) == plan_jobs(config(SEED_SCALE), ["m1"])[0].cells[0].game_seed(1, 0)
    assert cells[0].game_seed(1, 0) != cells[0].game_seed(2, 0) != cells[0].seat_seed(1, 0)


def test_decoding_override_leaves_the_config_alone():
    base = config()
    derived = with_decoding(base, "m1", {"temperature": 0.0})
    assert derived["models"]["m1"]["decoding"] == {"temperature": 0.0}
    assert base["models"]["m1"]["decoding"] == {"temperature": 1.0}


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c["designs"]["selfplay"]["conditions"]["base"].update(p=[0.5, 1.5]),
         r"crg.designs.selfplay.conditions.base.p: 1.5 is not a probability"),
        (lambda c: c["designs"]["selfplay"]["conditions"]["base"].update(partner="always_0"),
         r"crg.designs.selfplay.conditions.base.partner: set 'partner'"),
        (lambda c: c["designs"]["scripted"]["conditions"]["always_0"].update(partner="always_5"),
         r"crg.designs.scripted.conditions.always_0.partner: 'always_5' gives 5, not an action of the game; "
         r"use one of always_0, always_2, always_4"),
        (lambda c: c["designs"]["scripted"]["conditions"]["always_0"].update(partner="sometimes_4"),
         r"crg.designs.scripted.conditions.always_0.partner: unknown scripted rule"),
        (lambda c: c["designs"]["mixed"]["conditions"]["base"].update(focal_seats=[6]),
         r"crg.designs.mixed.conditions.base.focal_seats: use seat counts between 1 and 5"),
        (lambda c: c["designs"]["mixed"]["conditions"]["base"].pop("focal_seats"),
         r"crg.designs.mixed.conditions.base.focal_seats: set 'focal_seats'"),
        (lambda c: c["designs"]["mixed"].update(pairs=[["m1", "nobody"]]),
         r"crg.designs.mixed.pairs: 'nobody' is not a model"),
        (lambda c: c["designs"]["controls"]["conditions"]["questions"].update(questions=["pivot"]),
         r"crg.designs.controls.conditions.questions.questions: unknown value question"),
        (lambda c: c["designs"].update(design5={"conditions": {}}), r"crg.designs.design5: use one of"),
        (lambda c: c.update(games_per_cell=0), r"crg.games_per_cell: use 1 or more"),
    ],
)
def test_bad_values_name_the_field_and_the_fix(edit, message):
    crg = copy.deepcopy(FRAGMENT["crg"])
    edit(crg)
    with pytest.raises(ConfigError, match=message):
        plan_jobs(config(crg), ["m1", "m2"])


def test_crg_section_matches_its_schema():
    """The crg section of config/config.yaml validates against the main schema; a bad p does not."""
    import jsonschema

    schema = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())
    crg_schema = {**schema["$defs"]["crg"], "$defs": schema["$defs"]}
    jsonschema.Draft202012Validator(crg_schema).validate(FRAGMENT["crg"])
    bad = copy.deepcopy(FRAGMENT["crg"])
    bad["designs"]["selfplay"]["conditions"]["base"]["p"] = [2]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(crg_schema).validate(bad)


def test_a_design_can_be_limited_to_some_models():
    """controls.models: [m2] keeps the control jobs of m2 only; a pair needs both models."""
    crg = copy.deepcopy(FRAGMENT["crg"])
    crg["designs"]["controls"]["models"] = ["m2"]
    crg["designs"]["mixed"]["models"] = ["m2", "m3"]
    jobs = plan_jobs(config(crg), ["m1", "m2", "m3"])
    assert {j.lineup for j in jobs if j.design == "controls"} == {"m2"}
    assert [j.lineup for j in jobs if j.design == "mixed"] == ["m2+m3"]
    crg["designs"]["controls"]["models"] = ["m9"]
    with pytest.raises(ConfigError, match=r"crg.designs.controls.models: 'm9' is not a model"):
        plan_jobs(config(crg), ["m1"])


def test_a_condition_overrides_games_per_cell():
    """`games: 3` on one condition gives its cells 3 games; every other cell keeps games_per_cell (1),
    and the planned game ids are game=0..2 (the analyses group games by cell and count them)."""
    crg = copy.deepcopy(FRAGMENT["crg"])
    crg["designs"]["controls"]["conditions"]["neutral_goal"]["games"] = 3
    jobs = plan_jobs(config(crg), ["m1", "m2"])
    games = {(j.design, j.lineup, j.condition.name): {c.games for c in j.cells} for j in jobs}
    assert games.pop(("controls", "m1", "neutral_goal")) == {3} == games.pop(("controls", "m2", "neutral_goal"))
    assert set().union(*games.values()) == {1}
    cell = find_job(config(crg), ["m1"], "controls", "m1", "neutral_goal").cells[0]
    assert [cell.game_id(g) for g in range(cell.games)] == [f"controls/m1/neutral_goal/p=0/game={g}" for g in range(3)]


def test_cells_list_the_risk_outermost():
    """Job.cells: every seat split of the first risk, then of the next (documented order)."""
    crg = copy.deepcopy(FRAGMENT["crg"])
    crg["designs"]["mixed"]["conditions"]["base"].update(p=[0.9, 0.1], focal_seats=[5, 1])
    (mixed,) = [j for j in plan_jobs(config(crg), ["m1", "m2"]) if j.design == "mixed"]
    assert [(c.p, c.focal) for c in mixed.cells] == [(0.9, 5), (0.9, 1), (0.1, 5), (0.1, 1)]


def test_analysis_groups_of_the_default_grid():
    """Base-prompt conditions (template base, own decoding) of designs 1, 2, 4: Table 3's grid is
    selfplay/base, Table 4 compares every control, selection reads selfplay + mixed base."""
    crg = copy.deepcopy(FRAGMENT["crg"])
    crg["designs"]["controls"]["conditions"].update({
        "questions": {"template": "base", "p": [0.9], "questions": ["target"]},
        "greedy": {"template": "base", "p": [0.9], "decoding": {"temperature": 0.0}}})
    groups = analysis_conditions(plan_jobs(config(crg), ["m1", "m2"]))
    assert groups["grid"] == {"selfplay": ["base"]}
    assert groups["controls"] == {"controls": ["neutral_goal", "questions", "greedy"]}
    assert groups["base_prompt"] == {"selfplay": ["base"], "controls": ["questions"], "mixed": ["base"]}
    assert mixed_models(plan_jobs(config(crg), ["m1", "m2", "m3"])) == ["m1", "m2", "m3"]


def test_analysis_settings_defaults_and_errors():
    assert analysis_settings(config())["population_sizes"] == [6, 30]
    crg = copy.deepcopy(FRAGMENT["crg"])
    crg["analysis"]["population_sizes"] = [6, 5]
    with pytest.raises(ConfigError, match=r"crg.analysis.population_sizes: use sizes of at least one table \(6\)"):
        analysis_settings(config(crg))


FOUR_PLAYERS = {"players": 4, "endowment": 30, "actions": [0, 1, 2, 3], "rounds": 10, "target": 100}


@pytest.mark.parametrize("game, message", [
    ({"target": 241}, r"crg.game.target: the target 241 cannot be reached: 6 players x 10 rounds x 4 = 240"),
    ({"endowment": 39}, r"crg.game.endowment: use at least rounds x largest action = 10 x 4 = 40"),
    ({"actions": [1, 2, 4]}, r"crg.game.actions: list increasing whole numbers starting at 0"),
    ({"actions": [0, 4, 2]}, r"crg.game.actions: list increasing whole numbers starting at 0"),
    ({"actions": [0, 2, 2]}, r"crg.game.actions: list increasing whole numbers starting at 0"),
    ({"actions": [0]}, r"crg.game.actions: list increasing whole numbers starting at 0 with at least one above 0"),
    ({"actions": [0, 2.5]}, r"crg.game.actions: use a list of whole numbers"),
    ({"players": 6.0}, r"crg.game.players: use a whole number, not 6.0"),
    ({"rounds": True}, r"crg.game.rounds: use a whole number, not True"),
    ({"players": 1}, r"crg.game.players: use at least 2"),
    ({"rounds": 0}, r"crg.game.rounds: use at least 1"),
    ({"target": 0}, r"crg.game.target: use at least 1"),
    ({"seats": 6}, r"crg.game: unknown field\(s\) \['seats'\]"),
])
def test_a_bad_game_names_the_field_and_the_fix_before_any_job(game, message):
    """Each rule of crg.game refused with its field (flip: drop a check and its case here fails)."""
    crg = copy.deepcopy(FRAGMENT["crg"])
    crg["game"] = {**crg["game"], **game}
    with pytest.raises(ConfigError, match=message):
        plan_jobs(config(crg), MODELS)


def test_the_boundary_games_are_accepted():
    """Target exactly players x rounds x largest action (6 x 10 x 4 = 240), endowment exactly rounds x
    largest action (10 x 4 = 40): both playable (flip >= to > in either check: this fails)."""
    crg = copy.deepcopy(FRAGMENT["crg"])
    crg["game"] = {**crg["game"], "target": 240, "endowment": 40}
    assert {job.rules.target for job in plan_jobs(config(crg), MODELS)} == {240}


def test_the_default_game_is_seed_000s_and_rides_in_every_jobs_params():
    """No crg.game: the schema's defaults, seed 000's game; the job's params carry it (a change reruns)."""
    crg = copy.deepcopy(FRAGMENT["crg"])
    crg.pop("game")
    jobs = plan_jobs(config(crg), MODELS)
    assert {(j.rules.n_seats, j.rules.endowment, j.rules.actions, j.rules.n_rounds, j.rules.target) for j in jobs} == {
        (6, 40, (0, 2, 4), 10, 120)}
    assert Job.from_params(json.loads(json.dumps(jobs[0].to_params()))) == jobs[0]


def test_conditions_are_checked_against_the_configured_game():
    """Four players, actions 0-3, ten rounds: a split of 3 + 1 is the largest, always_3 is a partner,
    always_4 is not, question rounds stop at 10, and scripted tables seat 1 model + 3 partners."""
    crg = copy.deepcopy(FRAGMENT["crg"])
    crg["game"] = FOUR_PLAYERS
    crg["designs"]["mixed"]["conditions"]["base"]["focal_seats"] = [1, 2, 3]
    crg["designs"]["scripted"]["conditions"]["always_4"]["partner"] = "always_3"
    jobs = plan_jobs(config(crg), MODELS)
    scripted = next(j for j in jobs if j.design == "scripted" and j.condition.partner == "always_3")
    assert scripted.players(scripted.cells[0]) == ["m1"] + ["scripted:always_3"] * 3
    for edit, message in (
        (lambda c: c["designs"]["mixed"]["conditions"]["base"].update(focal_seats=[4]),
         r"focal_seats: use seat counts between 1 and 3 \(crg.game.players - 1\)"),
        (lambda c: c["designs"]["scripted"]["conditions"]["always_4"].update(partner="always_4"),
         r"partner: 'always_4' gives 4, not an action of the game; use one of always_0, always_1, always_2, always_3"),
        (lambda c: c["designs"]["controls"]["conditions"]["questions"].update(question_rounds=[11]),
         r"conditions.questions.question_rounds: use rounds between 1 and 10 \(crg.game.rounds\)"),
        (lambda c: c.update(question_rounds=[1, 11]),
         r"^crg.question_rounds: use rounds between 1 and 10 \(crg.game.rounds\)"),
        (lambda c: c["analysis"].update(population_sizes=[3]),
         r"crg.analysis.population_sizes: use sizes of at least one table \(4\)"),
    ):
        broken = copy.deepcopy(crg)
        edit(broken)
        with pytest.raises(ConfigError, match=message):
            plan_jobs(config(broken), MODELS)
            analysis_settings(config(broken))
