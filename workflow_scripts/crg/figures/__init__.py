"""Stage figures of the collective-risk study: Figs. 2-5 and S7."""
