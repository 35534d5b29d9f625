"""Stage design of the prisoner's-dilemma study: what is asked, from the ``ipd`` config section."""
