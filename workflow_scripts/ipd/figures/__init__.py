"""Stage figures of the prisoner's-dilemma study: Figs. 1-5 of the IPD paper."""
