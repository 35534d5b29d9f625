"""Evolutionary selection, pure: fixation probabilities, stationary distribution and the Fermi process over payoff tables."""
