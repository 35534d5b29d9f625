"""Stage tables of the collective-risk study: Markdown documents with their captions."""
