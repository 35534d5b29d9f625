"""Tests of workflow_scripts.gametheory (one file per module)."""
