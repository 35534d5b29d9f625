"""Reading a model's answer: the answer part, the options as data, forms, structure, roles and the verdict."""
