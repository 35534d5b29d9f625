"""Properties of the engine over random games (hypothesis): accounting identities that must always hold."""

from hypothesis import given, settings
from hypothesis import strategies as st

from workflow_scripts.gametheory.collective_risk import SEED_000_RULES as RULES
from workflow_scripts.gametheory.collective_risk import GameState, is_settled, outcome

rounds = st.lists(st.tuples(*[st.sampled_from(RULES.actions)] * RULES.n_seats), min_size=10, max_size=10)


@settings(max_examples=200, deadline=None)
@given(rounds=rounds, p=st.floats(0, 1), draw=st.floats(0, 1, exclude_max=True))
def test_accounting(rounds, p, draw):
    """Totals split exactly at settlement; the pool is the sum of totals; payoffs stay in [0, 40].

    The settlement round is the first settled round: settled there, open in every earlier one.
    """
    state = GameState(RULES)
    for row in rounds:
        state = state.play(row)
    result = outcome(state, p, draw)
    assert sum(s.total for s in result.seats) == result.pool
    assert result.target_reached == (result.pool >= 120)
    pools = state.pools_after()
    k = result.settlement_round
    assert is_settled(pools[k - 1], 10 - k, RULES)
    assert not any(is_settled(pools[r - 1], 10 - r, RULES) for r in range(1, k))
    for seat, mine in enumerate(result.seats):
        assert mine.before_settlement + mine.after_settlement == mine.total
        assert mine.before_settlement == sum(row[seat] for row in rounds[:k])
        assert 0 <= mine.expected_payoff <= 40 - mine.total + 1e-9
        assert mine.realised_payoff in (0, 40 - mine.total)
    if result.catastrophe:
        assert not result.target_reached and draw < p
