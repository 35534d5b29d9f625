"""Errors shared by the whole package."""


class JobStopped(RuntimeError):
    """A job ended for a reason its message states in full (which field, what to do next): rule
    scripts print the message as one clear line instead of a traceback
    (:func:`workflow_scripts.scripts.logs.rule_log`). Everything answered is in the cache."""


class ConfigError(ValueError):
    """A config value that cannot work; the message names the field and the fix."""
