"""Stage analysis of the prisoner's-dilemma study: estimates, strategies, classes, tournaments."""
