"""Stage analysis of the collective-risk study: Tables 3-5 and the data of Figs. 2-5 and S7."""
