"""Evaluation: oracles per template, the judge LLM, and verdicts per requirement."""
