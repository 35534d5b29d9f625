"""The command-line tools: ``plan`` (spend plan), ``fixation`` (selection from a payoff table), ``classify`` (strategy classes)."""
