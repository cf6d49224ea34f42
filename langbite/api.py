"""The Python API LangBiTe users know: ``LangBiTe(file=...)`` then generate, execute, report.

It drives the same engine as the CLI (:mod:`langbite.runner`)::

    from langbite import LangBiTe

    tester = LangBiTe(file="requirements_models/quickstart.json")
    reports = tester.execute_full_scenario()
    reports["global_eval"]  # rows of global_evaluation.csv, as dicts
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langbite.execute.journal import read_journal
from langbite.model import Instance
from langbite.plan import Plan
from langbite.report import rows
from langbite.requirements import load_requirements, parse_requirements
from langbite.rundir import default_run_dir
from langbite.runner import RunOptions, RunResult, prepare, run


class WrongStateError(RuntimeError):
    """The calls must follow the order: generate, execute, report."""


class LangBiTe:
    """A test scenario from a requirements model (a file or a dict).

    Args:
        prompts_path: template library files (a list, or LangBiTe's dict of
            language → path); default: the shipped library.
        file: path of a requirements model (JSON).
        file_dict: the requirements model as a dict.
        llms: model specs overriding the model's ``aiModels``.
        out: run folder; default ``langbite-runs/<time>``.
    """

    def __init__(self, prompts_path: Sequence[str | Path] | Mapping[str, str | Path] | None = None,
                 file: str | Path | None = None, file_dict: dict[str, Any] | None = None, *,
                 llms: Sequence[str] = (), out: str | Path | None = None, use_cache: bool = True,
                 progress: bool = False) -> None:
        if file is None and file_dict is None:
            raise ValueError("give a requirements model: LangBiTe(file=...) or LangBiTe(file_dict=...)")
        paths = list(prompts_path.values()) if isinstance(prompts_path, Mapping) else list(prompts_path or [])
        self.config = load_requirements(file) if file is not None else parse_requirements(file_dict, "<file_dict>")
        self.options = RunOptions(models=list(llms), templates=[Path(p) for p in paths], use_cache=use_cache,
                                  progress=progress)
        self.out = Path(out) if out else None
        self.plan: Plan | None = None
        self.result: RunResult | None = None

    def generate(self) -> list[Instance]:
        """Select and instantiate templates; returns every prompt instance (no model called)."""
        self.plan = prepare(self.config, self.options)
        return [inst for item in self.plan.items for inst in item.instances]

    def execute(self) -> list[dict[str, Any]]:
        """Run the prompts and evaluate them; returns the response rows."""
        if self.plan is None:
            raise WrongStateError("call generate() before execute()")
        self.result = run(self.plan, self.out or default_run_dir(), self.options)
        return list(rows.response_rows(self.plan, read_journal(self.result.run_dir)))

    def report(self, path: str | Path | None = None) -> dict[str, Any]:
        """The three reports as lists of row dicts; with ``path``, also copy the CSV files there."""
        if self.result is None or self.plan is None:
            raise WrongStateError("call execute() before report()")
        run_dir = self.result.run_dir
        if path is not None:
            Path(path).mkdir(parents=True, exist_ok=True)
            for name in ("responses.csv", "evaluations.csv", "global_evaluation.csv", "run.json"):
                shutil.copyfile(run_dir / name, Path(path) / name)
        return {
            "responses": list(rows.response_rows(self.plan, read_journal(run_dir))),
            "evaluations": [rows.evaluation_row(e) for e in self.result.evaluations],
            "global_eval": [rows.global_row(g) for g in self.result.groups],
            "run_dir": run_dir,
            "exit_code": self.result.exit_code,
        }

    def execute_full_scenario(self) -> dict[str, Any]:
        self.generate()
        self.execute()
        return self.report()
