"""Rule scripts of the collective-risk study (one per rule, rules/crg/)."""
