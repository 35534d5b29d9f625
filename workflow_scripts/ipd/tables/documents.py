"""Markdown documents of the prisoner's-dilemma study's own tables, with their captions: Table S1
(decoding parameters sent), Tables S2-S3 (reference strategies) and the label-swap control."""

from __future__ import annotations

import pandas as pd

from workflow_scripts.ipd.design.labels import MEANING
from workflow_scripts.ipd.tables.strategies import markdown_section


def decoding_document(parameters: pd.DataFrame, coverage: pd.DataFrame) -> str:
    """Table S1: the decoding parameters sent (``decoding_table``) and the cache entries read."""
    return "# Decoding parameters sent to each model (shape of Table S1)\n\n" + markdown_section(
        "parameters", parameters,
        "Every litellm parameter of the requests behind the answers of this run, read from their "
        "response-cache entries (not from the config): one value where every request agrees, else the "
        "number of distinct values and their range (the seed is derived per request). Parameters a server "
        "fills in itself are not sent and not shown; 'not sent' = absent from this model's requests.",
    ) + "\n" + markdown_section(
        "cache entries read", coverage.set_index("model"),
        "Answers of the run, distinct cache entries behind them, entries read, and entries missing or "
        "unreadable (their parameters are not in the table above).",
    )


def reference_document(memory1: pd.DataFrame, memory2: pd.DataFrame, payoffs: tuple) -> str:
    """Tables S2 and S3: the memory-1 and memory-2 reference strategies the analyses use."""
    caption = (f"Cooperation probabilities (L) of the reference strategies that label inferred strategies "
               f"(workflow_scripts/gametheory/known.py), GTFT for the payoffs {payoffs}; pure = every entry 0 or 1 "
               "(only these enter a Wilson-rule reading).")
    return "# Reference strategies (shape of Tables S2 and S3)\n\n" + "\n".join([
        markdown_section("memory-1 reference strategies (Table S2)", memory1.set_index("name"),
                         caption + " Columns p0; pLL, pLR, pRL, pRR: round 1, then after each outcome (own move first)."),
        markdown_section("memory-2 reference strategies (Table S3)", memory2.set_index("name"),
                         caption + " Memory-1 strategies written as memory-2 (SI §3); pXY_ZW: last round XY, "
                         "the round before ZW."),
    ])


def label_swap_document(experiment: str, overview: pd.DataFrame, tables: dict[str, pd.DataFrame], alpha: float) -> str:
    """The label-swap control of one experiment: the summary and one table per condition and labelling."""
    parts = [f"# {experiment}: label-swap control (answers by meaning or by letter?)\n", markdown_section(
        "summary", overview.set_index(["model", "condition", "labels"]),
        f"Scenarios compared and scenarios with a significant difference (two-sided Fisher exact test, p < {alpha:g}, "
        "no multiplicity correction). Labellings: " + "; ".join(f"{k}: {v}" for k, v in MEANING.items()) + ".",
    )]
    for key, table in tables.items():
        parts.append(markdown_section(key, table, (
            f"`{key}`: share of valid answers that cooperate (answers mapped back to their meaning) under the "
            "standard labels and under the control; difference control - standard with its 95% Newcombe "
            f"(hybrid Wilson score) interval; Fisher's exact test; a preference is named where p < {alpha:g}.")))
    return "\n".join(parts)
