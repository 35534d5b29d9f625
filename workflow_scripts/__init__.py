"""llm-dilemmas: game rules, prompts, cached LLM queries and game-theory analyses.

``workflow_scripts.__version__`` is the installed package's version (``pyproject.toml``), read from its
metadata on first use so that importing the package stays cheap; CHANGELOG.md and CITATION.cff state it too.
"""


def __getattr__(name: str) -> str:
    """PEP 562: ``__version__`` from the package metadata (``importlib.metadata``), on first use."""
    if name == "__version__":
        from importlib.metadata import version

        return version("llm-dilemmas")
    raise AttributeError(f"module 'workflow_scripts' has no attribute {name!r}")
