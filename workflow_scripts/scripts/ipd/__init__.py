"""Rule scripts of the prisoner's-dilemma study (one per rule, rules/ipd/)."""
