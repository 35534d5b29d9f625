"""Stage query of the collective-risk study: games played through the LLM layer, one Snakemake job each."""
