"""The config: its schema (the one home of defaults), YAML file checks, checks that need no study, redaction of keys."""
