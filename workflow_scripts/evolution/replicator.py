"""The discrete replicator equation over the payoff tables of the Fermi process: rest points and
their stability, a cheap second view of selection in an infinite, well-mixed population.

Map (Hofbauer & Sigmund 1998, Evolutionary Games and Population Dynamics, §16.1; Weissing 1991,
in Game Equilibrium Models I, 29-97): with fitness f_i(x) of strategy i at frequencies x and a
background fitness c (every c + f_i > 0),

    x_i' = x_i (c + f_i(x)) / (c + f_bar(x)),    f_bar = sum_i x_i f_i.

Its rest points are those of the continuous replicator equation (Taylor & Jonker 1978): every x
whose strategies in use earn the same. Stability is that of the map: the eigenvalues of its
Jacobian on the simplex (tangent directions) inside the unit circle (``stable``), one outside
(``unstable``), else ``neutral`` (the linearisation does not decide). Larger c makes the map a
finer Euler step of the continuous equation; rest points do not depend on c.

Two kinds of payoff table:

- **Matrix game** (the tournaments, the IPD paper Fig. 5: A[i, j] = pi_w(s_i, s_j)): f = A x. Rest
  points by support enumeration: for each set S of strategies, A_SS x_S = v 1 with sum x_S = 1 and
  x_S > 0. A singular system whose solutions reach the open face is a *continuum* of rest points
  (e.g. several strategies that all earn a_LL against each other); it is listed once per largest
  such face, with the point of it farthest from the face's edge (a linear programme), as ``continuum``.
- **Group game of two strategies** (the collective-risk seat payoffs of one pair, the CRG paper: a seat
  of A in a table with k A's earns pi_A(k), of B pi_B(k), k = 0..n): groups of n drawn from an
  infinite population with a share x of A (Hauert, Michor, Nowak & Doebeli 2006, J. Theor. Biol.
  239, 195; Santos & Pacheco 2011, PNAS 108, 10421 for the collective-risk dilemma), so
  f_A(x) = sum_k C(n-1, k) x^k (1-x)^(n-1-k) pi_A(k+1), f_B(x) likewise with pi_B(k), and the
  gradient of selection g(x) = f_A(x) - f_B(x). Rest points: x = 0, x = 1 and the roots of g in
  (0, 1); the map's eigenvalue is (c + f_A(0)) / (c + f_B(0)) at x = 0, (c + f_B(1)) / (c + f_A(1))
  at x = 1 and 1 + x (1 - x) g'(x) / (c + f_A(x)) at an interior root.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numpy.polynomial import Polynomial
from scipy.special import comb

TOLERANCE = 1e-9
"""Frequencies below this are 0; eigenvalue moduli within this of 1 are ``neutral``."""
MAX_STRATEGIES = 16
"""Most strategies of a matrix game (2^16 supports)."""
STABLE, UNSTABLE, NEUTRAL, CONTINUUM = "stable", "unstable", "neutral", "continuum"


@dataclass(frozen=True)
class RestPoint:
    """One rest point of the replicator map.

    Attributes:
        x: frequencies, shape (S,), summing to 1.
        support: indices of the strategies in use.
        eigenvalue: the largest modulus of the map's Jacobian on the simplex (NaN for a continuum).
        stability: ``stable``, ``unstable``, ``neutral`` or ``continuum``.
        payoff: the payoff every strategy in use earns there.
    """

    x: np.ndarray
    support: tuple[int, ...]
    eigenvalue: float
    stability: str
    payoff: float


def _check_background(payoffs: np.ndarray, background: float) -> None:
    low = float(np.nanmin(payoffs)) + float(background)
    if not math.isfinite(background) or low <= 0:
        raise ValueError(f"background fitness c = {background} leaves c + payoff = {low:g} <= 0; the replicator map "
                         "needs every fitness positive: raise the background (config ...replicator background)")


def classify(modulus: float) -> str:
    """``stable`` below 1, ``unstable`` above, ``neutral`` within :data:`TOLERANCE` of 1."""
    if abs(modulus - 1.0) <= TOLERANCE:
        return NEUTRAL
    return STABLE if modulus < 1.0 else UNSTABLE


def replicator_step(x: np.ndarray, matrix: np.ndarray, background: float) -> np.ndarray:
    """One step of the map x_i' = x_i (c + (A x)_i) / (c + x.A x) (module docstring); x shape (S,)."""
    x, a = np.asarray(x, float), np.asarray(matrix, float)
    fitness = background + a @ x
    return x * fitness / float(x @ fitness)


def jacobian(x: np.ndarray, matrix: np.ndarray, background: float) -> np.ndarray:
    """The map's Jacobian on the simplex at x, shape (S - 1, S - 1): derivatives in the directions
    e_j - e_S, coordinates 1..S-1 (the last one follows from sum x = 1)."""
    x, a = np.asarray(x, float), np.asarray(matrix, float)
    size = len(x)
    fitness = background + a @ x
    mean = float(x @ fitness)
    grad_mean = a @ x + a.T @ x
    full = (np.diag(fitness) + x[:, None] * a) / mean - np.outer(x * fitness, grad_mean) / mean**2
    basis = np.vstack([np.eye(size - 1), -np.ones((1, size - 1))])
    return (full @ basis)[: size - 1]


def _solve_support(a: np.ndarray, support: tuple[int, ...]) -> tuple[np.ndarray | None, bool]:
    """(x on the support, singular): the equal-payoff point of the face, None if outside it."""
    size = len(support)
    sub = a[np.ix_(support, support)]
    system = np.block([[sub, -np.ones((size, 1))], [np.ones((1, size)), np.zeros((1, 1))]])
    rhs = np.r_[np.zeros(size), 1.0]
    if np.linalg.matrix_rank(system, tol=TOLERANCE * max(1.0, np.abs(system).max())) == size + 1:
        solution = np.linalg.solve(system, rhs)[:size]
        return (solution if np.all(solution > TOLERANCE) else None), False
    return _interior_of_continuum(sub), True


def _interior_of_continuum(sub: np.ndarray) -> np.ndarray | None:
    """The point of {A x = v 1, sum x = 1} farthest inside the face (max t with x >= t), None if t <= 0."""
    from scipy.optimize import linprog

    size = len(sub)
    # variables: x (size), v, t; maximise t
    equality = np.block([[sub, -np.ones((size, 1)), np.zeros((size, 1))], [np.ones((1, size)), np.zeros((1, 2))]])
    bound = np.hstack([-np.eye(size), np.zeros((size, 1)), np.ones((size, 1))])  # t - x_i <= 0
    found = linprog(np.r_[np.zeros(size + 1), -1.0], A_ub=bound, b_ub=np.zeros(size), A_eq=equality,
                    b_eq=np.r_[np.zeros(size), 1.0], bounds=[(0, None)] * size + [(None, None), (None, 1.0)],
                    method="highs")
    return found.x[:size] if found.status == 0 and found.x[-1] > TOLERANCE else None


def matrix_rest_points(matrix: np.ndarray, background: float) -> list[RestPoint]:
    """Rest points of the map on the payoff matrix and their stability (module docstring).

    Args:
        matrix: A, shape (S, S): A[i, j] is the payoff of strategy i against j.
        background: c, with c + every payoff > 0.

    Returns:
        Isolated rest points (vertices first, then by support size) and one ``continuum`` entry per
        largest face filled with rest points.

    Raises:
        ValueError: for a non-square or non-finite matrix, more than :data:`MAX_STRATEGIES`
            strategies, or a background that leaves a fitness <= 0.
    """
    a = np.asarray(matrix, float)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or not np.all(np.isfinite(a)):
        raise ValueError(f"payoff matrix must be square and finite, got shape {a.shape}")
    if len(a) > MAX_STRATEGIES:
        raise ValueError(f"{len(a)} strategies: support enumeration is limited to {MAX_STRATEGIES}")
    _check_background(a, background)
    points, continua = [], []
    for size in range(1, len(a) + 1):
        for support in itertools.combinations(range(len(a)), size):
            solution, singular = _solve_support(a, support)
            if solution is None:
                continue
            x = np.zeros(len(a))
            x[list(support)] = solution
            payoff = float((a @ x)[support[0]])
            if singular:
                continua.append(RestPoint(x, support, math.nan, CONTINUUM, payoff))
                continue
            modulus = float(np.max(np.abs(np.linalg.eigvals(jacobian(x, a, background))))) if len(a) > 1 else 0.0
            points.append(RestPoint(x, support, modulus, classify(modulus), payoff))
    largest = [c for c in continua if not any(set(c.support) < set(d.support) for d in continua)]
    return points + largest


def group_fitness(payoff_a: np.ndarray, payoff_b: np.ndarray) -> tuple[Polynomial, Polynomial]:
    """f_A(x), f_B(x) as polynomials in the share x of A (module docstring).

    Args:
        payoff_a: shape (n + 1,), payoff_a[k] = pi_A(k): an A seat with k A's at the table (k >= 1 used).
        payoff_b: shape (n + 1,), payoff_b[k] = pi_B(k) (k <= n - 1 used).
    """
    payoff_a, payoff_b = np.asarray(payoff_a, float), np.asarray(payoff_b, float)
    others = len(payoff_a) - 2  # n - 1 co-players
    x = Polynomial([0.0, 1.0])
    weights = [comb(others, k) * x**k * (1 - x) ** (others - k) for k in range(others + 1)]
    f_a = sum((w * payoff_a[k + 1] for k, w in enumerate(weights)), Polynomial([0.0]))
    f_b = sum((w * payoff_b[k] for k, w in enumerate(weights)), Polynomial([0.0]))
    return f_a, f_b


def pair_rest_points(payoff_a: np.ndarray, payoff_b: np.ndarray, background: float) -> list[RestPoint]:
    """Rest points x (share of A) on the edge of two strategies meeting in groups, with their
    stability under the map (module docstring), ascending in x.

    Args:
        payoff_a, payoff_b: pi_A(k), pi_B(k), k = 0..n (shape (n + 1,); pi_A(0) and pi_B(n) unused).
        background: c, with c + every used payoff > 0.

    Returns:
        Rest points with x = (share of A, share of B); a gradient that is 0 everywhere gives one
        ``continuum`` entry (neutral drift).

    Raises:
        ValueError: for a NaN among the used payoffs, or a background that leaves a fitness <= 0.
    """
    payoff_a, payoff_b = np.asarray(payoff_a, float), np.asarray(payoff_b, float)
    used = np.r_[payoff_a[1:], payoff_b[:-1]]
    if np.isnan(used).any():
        raise ValueError("pair payoffs need pi_A(k) for k = 1..n and pi_B(k) for k = 0..n-1 (self-play included)")
    _check_background(used, background)
    f_a, f_b = group_fitness(payoff_a, payoff_b)
    gain = f_a - f_b
    if np.allclose(gain.coef, 0.0, atol=TOLERANCE):
        return [RestPoint(np.array([0.5, 0.5]), (0, 1), math.nan, CONTINUUM, float(f_a(0.5)))]
    slope = gain.deriv()
    points = [(0.0, (background + f_a(0.0)) / (background + f_b(0.0)), f_b(0.0))]
    for root in _unit_roots(gain):
        points.append((root, 1.0 + root * (1 - root) * slope(root) / (background + f_a(root)), f_a(root)))
    points.append((1.0, (background + f_b(1.0)) / (background + f_a(1.0)), f_a(1.0)))
    return [RestPoint(np.array([x, 1 - x]), tuple(i for i, share in enumerate((x, 1 - x)) if share > 0),
                      abs(float(value)), classify(abs(float(value))), float(payoff)) for x, value, payoff in points]


def _unit_roots(polynomial: Polynomial) -> list[float]:
    """Real roots strictly inside (0, 1), ascending, duplicates merged."""
    found = sorted(float(r.real) for r in polynomial.roots() if abs(r.imag) <= 1e-7 and TOLERANCE < r.real < 1 - TOLERANCE)
    merged = []
    for root in found:
        if not merged or root - merged[-1] > 1e-7:
            merged.append(root)
    return merged
