"""The one LLM layer both studies use (issue 9): asking a model, reading its answer, recording it.

Modules:
    parsing: read a raw answer as one of the allowed options, or label why it cannot be read;
        check that an answer conforms to the grammar or JSON schema it was asked under.
"""
