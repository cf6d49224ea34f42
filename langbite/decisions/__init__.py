"""Decision audits: an LLM that decides about people, measured the way regulators measure it.

A requirements model's ``decisions`` name a CSV of cases (one person per row), a prompt that renders
a case with the library's forms and names for the protected attribute, how an answer is read into a
decision, and tolerances. :mod:`.cases` loads and renders the cases, :mod:`.reading` reads the
answers, :mod:`.metrics` computes selection rates, impact ratios, error-rate gaps and counterfactual
flip rates with bootstrap intervals, and ``langbite.suites.decisions`` runs them as a suite of the run.
"""
