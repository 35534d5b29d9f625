"""``python -m workflow_scripts.llm.chat_server --chat_template NAME <llama_cpp.server arguments>``.

llama-cpp-python's server with one of the product's chat templates
(:mod:`workflow_scripts.llm.chat_templates`) registered as a chat format and chosen with
``--chat_format``, so the server never falls back to a format of its own. Started by
:func:`workflow_scripts.llm.embedded.embedded_server`.
"""

from __future__ import annotations

import sys

from workflow_scripts.llm.chat_templates import register


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
    from llama_cpp.server.__main__ import main as serve

    sys.argv = ["llama_cpp.server", *rest, "--chat_format", register(name)]
    serve()


if __name__ == "__main__":
    main(sys.argv[1:])
