"""llm-dilemmas: game rules, prompts, cached LLM queries and game-theory analyses."""
