"""Stage tables of the prisoner's-dilemma study: the SI's tables as Markdown."""
