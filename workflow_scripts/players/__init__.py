"""The scripted players of both studies behind litellm's CustomLLM interface (tests and dry runs):
:mod:`.ipd` answers prisoner's-dilemma prompts as a known strategy, :mod:`.crg` collective-risk
prompts by a fixed rule; :mod:`.base` is what they share."""
