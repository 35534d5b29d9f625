"""Stage design of the collective-risk study: what is played, from the ``crg`` config section."""
