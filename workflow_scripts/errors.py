"""Errors shared by the whole package."""


class ConfigError(ValueError):
    """A config value that cannot work; the message names the field and the fix."""
