"""Thin Snakemake rule scripts: read snakemake.input/params/output, log, call library code."""
