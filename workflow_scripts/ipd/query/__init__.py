"""Stage query of the prisoner's-dilemma study: prompts, elicitation and actual play through the LLM layer."""
