"""Reading a model's answer: the answer part, the options as data, forms, structure, roles and the verdict.

:mod:`.parsing` is where an answer is labelled (:func:`~.parsing.parse_answer`); the other modules say
how it is read: :mod:`.text` (the answer part), :mod:`.options` (the options as data), :mod:`.forms`,
:mod:`.structured`, :mod:`.commitments`, :mod:`.decisions`, :mod:`.roles` and :mod:`.cues`.
"""
