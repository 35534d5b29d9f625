"""What spans both studies: the config checks of both, the selection of models and conditions, the
providers a run will ask (used by rules/common.smk and the tools)."""
