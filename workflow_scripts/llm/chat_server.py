"""``python -m workflow_scripts.llm.chat_server --chat_template NAME [--reuse_prefix] <llama_cpp.server arguments>``.

llama-cpp-python's server with one of the product's chat templates
(:mod:`workflow_scripts.llm.chat_templates`) registered as a chat format and chosen with
``--chat_format``, so the server never falls back to a format of its own, and with every request
evaluated from its first token (:func:`evaluate_cold`; ``--reuse_prefix`` keeps the library's prefix
reuse, for the benchmark only). Started by :func:`workflow_scripts.llm.embedded.embedded_server`.
"""

from __future__ import annotations

import functools
import sys

from workflow_scripts.llm.chat_templates import register


def evaluate_cold() -> None:
    """Make ``llama_cpp.Llama.generate`` reset the model's KV cache first, so no request reuses the
    prefix it shares with the one before and its answer depends only on itself (issue 18; measured
    cost in the README, "Reproducible answers on the embedded model"). llama-cpp-python (0.3.x) has no
    setting for it."""
    import llama_cpp

    generate = llama_cpp.Llama.generate

    @functools.wraps(generate)
    def cold(self, *args, **kwargs):
        self.reset()
        return generate(self, *args, **kwargs)

    llama_cpp.Llama.generate = cold


def main(argv: list[str]) -> None:
    """Register the template named after ``--chat_template`` and run llama-cpp-python's server with
    the other arguments and ``--chat_format`` of that template.

    Raises:
        SystemExit: ``--chat_template`` missing (exit code 2).
    """
    if "--chat_template" not in argv[:-1]:
        sys.exit("usage: python -m workflow_scripts.llm.chat_server --chat_template NAME [llama_cpp.server args]")
    at = argv.index("--chat_template")
    name, rest = argv[at + 1], argv[:at] + argv[at + 2:]
    if "--reuse_prefix" in rest:
        rest.remove("--reuse_prefix")
    else:
        evaluate_cold()
    from llama_cpp.server.__main__ import main as serve

    sys.argv = ["llama_cpp.server", *rest, "--chat_format", register(name)]
    serve()


if __name__ == "__main__":
    main(sys.argv[1:])
