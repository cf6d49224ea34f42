"""Execution: LLM services, providers, the response cache and the async engine."""
