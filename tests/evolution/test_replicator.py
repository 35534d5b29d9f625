"""The discrete replicator map's rest points and their stability (workflow_scripts/evolution/replicator.py).

Every expected value is derived by hand in the test's docstring (the Hawk-Dove game's interior rest
point V / C, a coordination game's unstable threshold, the map's eigenvalues), and checked against
EGTtools' replicator gradients where EGTtools is installed (the ``test`` extra).
"""

import math

import numpy as np
import pytest

from workflow_scripts.evolution.replicator import (
    CONTINUUM, NEUTRAL, STABLE, UNSTABLE, group_fitness, jacobian, matrix_rest_points, pair_rest_points,
    replicator_step,
)

HAWK_DOVE = np.array([[-1.0, 2.0], [0.0, 1.0]])
"""Hawk-Dove with value V = 2 and cost C = 4: H vs H (V - C) / 2 = -1, H vs D V = 2, D vs H 0, D vs D V / 2 = 1."""


def test_hawk_dove_has_its_interior_rest_point_at_v_over_c():
    """Hawk share x: f_H = -x + 2 (1 - x), f_D = 1 - x, so f_H - f_D = 1 - 2x: rest point x* = V / C = 1/2,
    where both earn 0.5. With background c = 1.5 the map's eigenvalue there is
    1 + x (1 - x) g'(x) / (c + f) = 1 + (1/4)(-2) / 2 = 0.75: stable. At all-Hawk a Dove mutant grows by
    (c + a_DH) / (c + a_HH) = 1.5 / 0.5 = 3, at all-Dove a Hawk by (c + a_HD) / (c + a_DD) = 3.5 / 2.5 = 1.4:
    both vertices unstable."""
    points = {tuple(np.round(p.x, 9)): p for p in matrix_rest_points(HAWK_DOVE, 1.5)}
    assert set(points) == {(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)}
    interior = points[(0.5, 0.5)]
    assert interior.eigenvalue == pytest.approx(0.75) and interior.stability == STABLE
    assert interior.payoff == pytest.approx(0.5)
    assert points[(1.0, 0.0)].eigenvalue == pytest.approx(3.0) and points[(1.0, 0.0)].stability == UNSTABLE
    assert points[(0.0, 1.0)].eigenvalue == pytest.approx(1.4) and points[(0.0, 1.0)].stability == UNSTABLE


def test_the_map_converges_to_the_stable_rest_point():
    """Iterating x' = x (c + A x) / (c + x.A x) from 10% Hawks reaches x* = 1/2 (the eigenvalue 0.75 makes
    the distance shrink by 3/4 a step near it)."""
    x = np.array([0.1, 0.9])
    for _ in range(200):
        x = replicator_step(x, HAWK_DOVE, 1.5)
    assert x == pytest.approx([0.5, 0.5], abs=1e-9)


def test_prisoners_dilemma_defection_is_the_only_stable_rest_point():
    """One-shot prisoner's dilemma (3, 0, 5, 1): D earns more against both, so no interior rest point;
    all-D is stable (a C mutant's factor (c + 0) / (c + 1) = 1/2 with c = 1), all-C unstable
    ((c + 5) / (c + 3) = 1.5)."""
    points = matrix_rest_points(np.array([[3.0, 0.0], [5.0, 1.0]]), 1.0)
    by_x = {tuple(p.x): (p.stability, p.eigenvalue) for p in points}
    assert by_x == {(1.0, 0.0): (UNSTABLE, pytest.approx(1.5)), (0.0, 1.0): (STABLE, pytest.approx(0.5))}


def test_strategies_that_earn_the_same_against_each_other_fill_a_continuum():
    """TFT and ALLC earn 3 against each other (and against themselves): every mixture of the two is a
    rest point, listed once as a continuum on their edge. At TFT's vertex an ALLC mutant grows by
    (c + 3) / (c + 3) = 1: neutral; at ALLC's an ALLD mutant by (c + 5) / (c + 3) = 1.5: unstable; at
    ALLD's a TFT mutant by (c + 1) / (c + 1) = 1 (TFT earns 1 against ALLD, as ALLD does): neutral."""
    matrix = np.array([[3.0, 3.0, 0.0], [3.0, 3.0, 0.0], [1.0, 5.0, 1.0]])  # TFT, ALLC, ALLD (limit of means)
    matrix[0, 2], matrix[2, 0] = 1.0, 1.0  # TFT against ALLD: 1 per round in the limit
    points = matrix_rest_points(matrix, 1.0)
    continua = [p for p in points if p.stability == CONTINUUM]
    assert [c.support for c in continua] == [(0, 1)] and continua[0].payoff == pytest.approx(3.0)
    vertices = {p.support: p.stability for p in points if len(p.support) == 1}
    assert vertices[(0,)] == NEUTRAL and vertices[(1,)] == UNSTABLE and vertices[(2,)] == NEUTRAL


def test_rock_paper_scissors_interior_point_is_unstable_in_discrete_time():
    """Zero-sum rock-paper-scissors: the continuous equation circles x* = (1/3, 1/3, 1/3); the discrete
    map spirals out (Weissing 1991): |eigenvalue|^2 = 1 + 1 / (3 c^2) at background c, 1 + 1/12 at c = 2:
    modulus sqrt(13/12) = 1.0408."""
    rps = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    interior = [p for p in matrix_rest_points(rps, 2.0) if len(p.support) == 3][0]
    assert interior.x == pytest.approx([1 / 3] * 3)
    assert interior.eigenvalue == pytest.approx(math.sqrt(13 / 12)) and interior.stability == UNSTABLE


def test_a_group_coordination_game_has_an_unstable_threshold():
    """Groups of six: an A seat earns the number of A's at the table (1..6), a B seat 3.5 whatever. A's
    fitness is 1 + 5x (its five co-players hold 5x A's on average), so g(x) = 5x - 2.5: rest point
    x* = 1/2, unstable (eigenvalue 1 + (1/4) 5 / (c + 3.5) = 1 + 1.25 / 4.5 with c = 1); all-B stable
    ((c + f_A(0)) / (c + f_B(0)) = 2 / 4.5), all-A stable ((c + 3.5) / (c + 6) = 4.5 / 7)."""
    payoff_a = np.r_[np.nan, np.arange(1.0, 7.0)]
    payoff_b = np.full(7, 3.5)
    points = pair_rest_points(payoff_a, payoff_b, 1.0)
    assert [p.x[0] for p in points] == pytest.approx([0.0, 0.5, 1.0])
    assert [p.stability for p in points] == [STABLE, UNSTABLE, STABLE]
    assert [p.eigenvalue for p in points] == pytest.approx([2 / 4.5, 1 + 1.25 / 4.5, 4.5 / 7])


def test_two_seat_groups_are_the_matrix_game():
    """A group of two is a 2 x 2 matrix game: Hawk-Dove as seat payoffs (pi_H(1) = a_HD, pi_H(2) = a_HH,
    pi_D(0) = a_DD, pi_D(1) = a_DH) has the same rest points and eigenvalues as the matrix."""
    pair = pair_rest_points(np.array([np.nan, 2.0, -1.0]), np.array([1.0, 0.0, np.nan]), 1.5)
    matrix = matrix_rest_points(HAWK_DOVE, 1.5)
    assert sorted((p.x[0], p.eigenvalue) for p in pair) == pytest.approx(sorted((p.x[0], p.eigenvalue) for p in matrix))


def test_neutral_drift_is_a_continuum_and_bad_input_is_refused():
    """Equal seat payoffs: g = 0 everywhere, every share is a rest point. A background that leaves a
    fitness at or below 0 is refused, naming the fix; so is a missing seat split."""
    assert [p.stability for p in pair_rest_points(np.full(7, 2.0), np.full(7, 2.0), 1.0)] == [CONTINUUM]
    with pytest.raises(ValueError, match="background"):
        matrix_rest_points(HAWK_DOVE, 1.0)
    with pytest.raises(ValueError, match="self-play included"):
        pair_rest_points(np.full(7, np.nan), np.full(7, 2.0), 1.0)


def test_the_jacobian_is_the_derivative_of_the_map():
    """Central differences of the map along the simplex directions e_j - e_S match :func:`jacobian`."""
    rng = np.random.default_rng(3)
    matrix, x = rng.uniform(0, 5, (4, 4)), rng.dirichlet(np.ones(4))
    step, numeric = 1e-6, np.empty((3, 3))
    for j in range(3):
        direction = np.zeros(4)
        direction[j], direction[3] = 1.0, -1.0
        change = replicator_step(x + step * direction, matrix, 1.0) - replicator_step(x - step * direction, matrix, 1.0)
        numeric[:, j] = change[:3] / (2 * step)
    assert jacobian(x, matrix, 1.0) == pytest.approx(numeric, abs=1e-6)


def test_fitness_polynomials_against_egttools():
    """EGTtools' n-player replicator gradient x_i (f_i - f_bar) (its ``replicator_equation_n_player``, groups
    drawn binomially from an infinite population) equals x (1 - x) (f_A - f_B) of our polynomials, on a
    random two-strategy group game of six."""
    egttools = pytest.importorskip("egttools")
    from egttools.analytical import replicator_equation_n_player
    rng = np.random.default_rng(5)
    payoff_a, payoff_b = np.r_[np.nan, rng.uniform(0, 10, 6)], np.r_[rng.uniform(0, 10, 6), np.nan]
    f_a, f_b = group_fitness(payoff_a, payoff_b)
    # EGTtools' group configurations for two strategies in groups of six: (k A's, 6 - k B's) in sample_simplex order
    configurations = [egttools.sample_simplex(i, 6, 2) for i in range(egttools.calculate_nb_states(6, 2))]
    table = np.zeros((2, len(configurations)))
    for column, (k, rest) in enumerate(configurations):
        table[0, column] = payoff_a[k] if k else 0.0
        table[1, column] = payoff_b[k] if rest else 0.0
    for x in (0.2, 0.5, 0.8):
        gradient = replicator_equation_n_player(np.array([x, 1 - x]), table, 6)
        assert gradient[0] == pytest.approx(x * (1 - x) * (f_a(x) - f_b(x)), rel=1e-9)


def test_a_face_of_equal_strategies_is_listed_once_by_its_largest_face():
    """ALLC, TFT and WSLS all earn 3 against each other, ALLD 5 against ALLC and 1 against the others
    (limit of means, rounded to the point): the three cooperators' edges and their triangle are all
    filled with rest points; only the triangle (the largest face) is listed, at its centre (1/3 each,
    the point farthest inside)."""
    matrix = np.array([[3.0, 3.0, 3.0, 0.0],   # ALLC
                       [3.0, 3.0, 3.0, 1.0],   # TFT
                       [3.0, 3.0, 3.0, 0.5],   # WSLS
                       [5.0, 1.0, 3.0, 1.0]])  # ALLD
    continua = [p for p in matrix_rest_points(matrix, 1.0) if p.stability == CONTINUUM]
    assert [c.support for c in continua] == [(0, 1, 2)]
    assert continua[0].x == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0.0])
