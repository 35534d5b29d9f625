"""Long-run limits of finite Markov chains: the Cesaro limit (ergodic projector).

For a row-stochastic matrix M the undiscounted (w = 0) payoff of a repeated game
is the Cesaro limit ``P* = lim_T (1/T) sum_{t<T} M**t``, which equals the Abel limit
``lim_{w->0} w (I - (1-w) M)^-1`` (Puterman 1994, *Markov Decision Processes*,
Theorem A.6 and section A.4). It exists for every finite chain, also for chains that
are periodic or have several closed classes (GRIM, WSLS, TFT against STFT), where
``lim M**t`` does not exist or depends on the start. the IPD paper's SI section 6.2 uses
these limits for w = 0.

Two independent constructions are provided:

* :func:`cesaro_limit` (used by the payoffs and the MDP): from the graph of the
  chain. The closed communicating classes are found from the zero pattern of M,
  each gets its stationary distribution, and transient states are split among
  the classes by their absorption probabilities. Exact up to the rounding of the
  small linear solves. Tolerance: transition probabilities at or below
  ``STRUCTURAL_ZERO`` (1e-12) count as 0 (rows renormalised). The w = 0 limit is
  discontinuous in such probabilities (a class that leaks at rate 1e-13 is, in
  exact arithmetic, not closed), and double precision cannot resolve leaks that
  small: 1 - 1e-17 == 1.
* :func:`ergodic_projector_svd` (used only by the brute-force reference): the
  projector onto null(I - M) along range(I - M), from a singular value
  decomposition with a stated rank tolerance.
"""

from __future__ import annotations

import numpy as np

STRUCTURAL_ZERO = 1e-12
"""Transition probabilities <= this are treated as 0 by cesaro_limit."""

SVD_RANK_TOLERANCE = 1e-10
"""Singular values of I - M at or below this count as zero in ergodic_projector_svd."""


def generator(matrix: np.ndarray) -> np.ndarray:
    """I - M for stochastic M, with the diagonal 1 - M_ii computed as sum_{j != i} M_ij.

    The row sums avoid the cancellation of 1 - M_ii when M_ii is close to 1 (a
    strategy that leaves a state with probability 1e-9), keeping absorption
    probabilities and stationary distributions accurate to rounding (the idea of
    Grassmann, Taksar & Heyman 1985, Oper. Res. 33:1107). Shape (..., S, S).
    """
    size = matrix.shape[-1]
    off_diagonal = matrix * (1.0 - np.eye(size))
    result = -off_diagonal
    index = np.arange(size)
    result[..., index, index] = off_diagonal.sum(axis=-1)
    return result


def reachability(pattern: np.ndarray) -> np.ndarray:
    """Reflexive-transitive closure of a directed graph.

    Args:
        pattern: boolean adjacency matrix, shape (S, S).

    Returns:
        boolean array R of shape (S, S), R[i, j] iff j can be reached from i
        in zero or more steps (repeated squaring, ceil(log2 S) products).
    """
    size = pattern.shape[0]
    reach = (pattern | np.eye(size, dtype=bool)).astype(np.int64)
    for _ in range(max(1, int(np.ceil(np.log2(max(size, 2)))))):
        reach = ((reach @ reach) > 0).astype(np.int64)
    return reach.astype(bool)


def closed_classes(pattern: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Closed communicating (recurrent) classes and transient states of a chain.

    Args:
        pattern: boolean matrix, shape (S, S), True where the transition
            probability is positive.

    Returns:
        ``(classes, transient)``: a list of sorted index arrays, one per closed
        class (ordered by their smallest state), and the sorted transient states.
        A state i is recurrent iff every state reachable from i reaches i back.
    """
    reach = reachability(pattern)
    recurrent = np.all(~reach | reach.T, axis=1)
    classes: list[np.ndarray] = []
    assigned = np.zeros(pattern.shape[0], dtype=bool)
    for state in np.flatnonzero(recurrent):
        if not assigned[state]:
            members = np.flatnonzero(reach[state] & recurrent)
            assigned[members] = True
            classes.append(members)
    return classes, np.flatnonzero(~recurrent)


def markov_stationary_distribution(matrix: np.ndarray) -> np.ndarray:
    """Stationary distribution of irreducible stochastic matrices.

    Args:
        matrix: shape (..., c, c), each irreducible and row-stochastic.

    Returns:
        shape (..., c), rows summing to 1, solving pi M = pi (unique for an
        irreducible chain, also when it is periodic).
    """
    system = np.swapaxes(generator(matrix), -1, -2).copy()
    system[..., -1, :] = 1.0
    rhs = np.zeros(matrix.shape[:-1])
    rhs[..., -1] = 1.0
    return np.linalg.solve(system, rhs[..., None])[..., 0]


def cesaro_limit(matrix: np.ndarray) -> np.ndarray:
    """Exact Cesaro limit P* = lim_T (1/T) sum_{t<T} M**t of stochastic matrices.

    Args:
        matrix: row-stochastic matrices, shape (S, S) or (..., S, S). A batch is
            grouped by zero pattern, and each group is solved vectorised.

    Returns:
        P*, same shape. Row i is the long-run distribution of the chain started
        in state i: for i in a closed class C, the stationary distribution of C;
        for a transient i, the mix of the classes' stationary distributions
        weighted by the probabilities of absorption into them.

    Method and tolerance: see the module docstring (entries <= STRUCTURAL_ZERO
    count as 0; otherwise floating-point rounding of the linear solves only).
    """
    matrix = _without_structural_zeros(np.asarray(matrix, dtype=float))
    if matrix.ndim == 2:
        return _limit_for_pattern(matrix[None], matrix > 0)[0]
    batch_shape, size = matrix.shape[:-2], matrix.shape[-1]
    flat = matrix.reshape(-1, size, size)
    result = np.empty_like(flat)
    keys = np.packbits((flat > 0).reshape(flat.shape[0], -1), axis=1)
    _, first, group = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    for label, representative in enumerate(first):
        members = np.flatnonzero(group.ravel() == label)
        result[members] = _limit_for_pattern(flat[members], flat[representative] > 0)
    return result.reshape(*batch_shape, size, size)


def _without_structural_zeros(matrix: np.ndarray) -> np.ndarray:
    """Set entries <= STRUCTURAL_ZERO to 0 and renormalise the rows (copy if changed)."""
    tiny = matrix <= STRUCTURAL_ZERO
    if not np.any(tiny & (matrix != 0)):
        return matrix
    cleaned = np.where(tiny, 0.0, matrix)
    return cleaned / cleaned.sum(axis=-1, keepdims=True)


def _limit_for_pattern(batch: np.ndarray, pattern: np.ndarray) -> np.ndarray:
    """Cesaro limits of a batch (b, S, S) of chains sharing one zero pattern."""
    classes, transient = closed_classes(pattern)
    result = np.zeros_like(batch)
    stationary = []
    for members in classes:
        block = batch[:, members[:, None], members[None, :]]
        distribution = markov_stationary_distribution(block)
        result[:, members[:, None], members[None, :]] = distribution[:, None, :]
        stationary.append(distribution)
    if transient.size:
        leaving = generator(batch)[:, transient[:, None], transient[None, :]]
        into = np.stack(
            [batch[:, transient[:, None], members[None, :]].sum(axis=-1) for members in classes],
            axis=-1,
        )
        absorption = np.linalg.solve(leaving, into)
        for index, members in enumerate(classes):
            weights = absorption[:, :, index, None] * stationary[index][:, None, :]
            result[:, transient[:, None], members[None, :]] = weights
    return result


def ergodic_projector_svd(matrix: np.ndarray, tol: float = SVD_RANK_TOLERANCE) -> np.ndarray:
    """Ergodic projector of stochastic matrices from a singular value decomposition.

    P* is the projector onto null(A) along range(A) for A = I - M (A has index 1
    for stochastic M, so the two spaces are complementary; Meyer 1975, SIAM Rev.
    17:443, "The role of the group generalized inverse in the theory of finite
    Markov chains"). With N a basis of null(A) (right singular vectors) and Y a
    basis of null(A^T) (left singular vectors), P* = N (Y^T N)^-1 Y^T.

    Args:
        matrix: row-stochastic matrices, shape (..., S, S).
        tol: singular values <= tol are treated as zero. Chains whose nearly
            closed sets leak with probability below about tol per round are
            misread as having several classes; use :func:`cesaro_limit` there.

    Returns:
        P*, shape (..., S, S). Equals :func:`cesaro_limit` up to rounding.
    """
    matrix = np.asarray(matrix, dtype=float)
    batch_shape, size = matrix.shape[:-2], matrix.shape[-1]
    flat = generator(matrix.reshape(-1, size, size))
    left, singular, right_h = np.linalg.svd(flat)
    nullity = np.maximum(np.sum(singular <= tol, axis=-1), 1)  # a stochastic M has >= 1
    result = np.empty_like(flat)
    for k in np.unique(nullity):
        members = np.flatnonzero(nullity == k)
        right_null = np.swapaxes(right_h[members, size - k :, :], -1, -2)
        left_null = left[members, :, size - k :]
        gram = np.swapaxes(left_null, -1, -2) @ right_null
        result[members] = right_null @ np.linalg.solve(gram, np.swapaxes(left_null, -1, -2))
    return result.reshape(*batch_shape, size, size)
