"""The Python API LangBiTe users know: ``LangBiTe(file=...)`` then generate, execute, report.

It drives the same engine as the CLI (:mod:`langbite.runner`), from a script
or a notebook::

    from langbite import LangBiTe

    tester = LangBiTe(file="requirements_models/quickstart.json")
    reports = tester.execute_full_scenario()   # or: await tester.aexecute_full_scenario()
    reports["global_eval"]                     # a pandas DataFrame

Every method that calls models has an ``a``-prefixed coroutine twin; the plain
ones also work inside a running event loop (Jupyter), where they run the
coroutine in a worker thread. ``.env`` in the current folder is loaded as the
CLI loads it (secrets stay in the environment).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langbite.aio import run_sync
from langbite.model import Instance
from langbite.requirements import load_requirements, parse_requirements
from langbite.rundir import default_run_dir
from langbite.runner import Plan, RunOptions, RunResult, arun, prepare


class WrongStateError(RuntimeError):
    """The calls must follow the order: generate, execute, report."""


def load_dotenv_once() -> None:
    """Load ``.env`` from the current folder into the environment (never overriding what is set)."""
    from dotenv import load_dotenv

    load_dotenv(Path.cwd() / ".env", override=False)


class LangBiTe:
    """A test scenario from a requirements model (a file or a dict).

    Args:
        prompts_path: template library files (a list, or LangBiTe's dict of
            language → path); default: the shipped library (or the model's own ``templates``).
        file: path of a requirements model (JSON).
        file_dict: the requirements model as a dict.
        llms: model specs overriding the model's ``models``.
        out: run folder; default ``langbite-runs/<time>``.
    """

    def __init__(self, prompts_path: Sequence[str | Path] | Mapping[str, str | Path] | None = None,
                 file: str | Path | None = None, file_dict: dict[str, Any] | None = None, *,
                 llms: Sequence[str] = (), out: str | Path | None = None, use_cache: bool = True,
                 progress: bool = False) -> None:
        if file is None and file_dict is None:
            raise ValueError("give a requirements model: LangBiTe(file=...) or LangBiTe(file_dict=...)")
        load_dotenv_once()
        paths = list(prompts_path.values()) if isinstance(prompts_path, Mapping) else list(prompts_path or [])
        self.config = load_requirements(file) if file is not None else parse_requirements(file_dict, "<file_dict>")
        self.options = RunOptions(models=list(llms), templates=[Path(p) for p in paths], use_cache=use_cache,
                                  progress=progress)
        self.out = Path(out) if out else None
        self.plan: Plan | None = None
        self.result: RunResult | None = None

    def generate(self) -> list[Instance]:
        """Select and instantiate templates; returns every prompt instance (no model called)."""
        from langbite.suites.templates import template_suite

        self.plan = prepare(self.config, self.options)
        templates = template_suite(self.plan)
        return [inst for item in (templates.items if templates else ()) for inst in item.instances]

    async def aexecute(self) -> Any:
        """Run the prompts and evaluate them; returns the responses as a DataFrame."""
        if self.plan is None:
            raise WrongStateError("call generate() before execute()")
        self.result = await arun(self.plan, self.out or default_run_dir(), self.options)
        return self.frames()["responses"]

    def execute(self) -> Any:
        """:meth:`aexecute` from synchronous code (also inside a notebook's running loop)."""
        return run_sync(self.aexecute())

    def frames(self) -> dict[str, Any]:
        """The run's reports as DataFrames (see :func:`langbite.load_run`)."""
        if self.result is None:
            raise WrongStateError("call execute() before report()")
        from langbite.frames import load_run

        return load_run(self.result.run_dir)

    def report(self, path: str | Path | None = None) -> dict[str, Any]:
        """The reports as pandas DataFrames under LangBiTe's keys (``responses``, ``evaluations``,
        ``global_eval``) with LangBiTe's columns beside langbite's, plus ``probe_metrics``,
        ``judge_agreement``, ``run`` (run.json), ``run_dir`` and ``exit_code``. With ``path``, the
        CSV files are also copied there."""
        frames = self.frames()
        assert self.result is not None  # frames() checked it
        run_dir = self.result.run_dir
        if path is not None:
            Path(path).mkdir(parents=True, exist_ok=True)
            for name in ("responses.csv", "evaluations.csv", "global_evaluation.csv", "run.json"):
                if (run_dir / name).exists():
                    shutil.copyfile(run_dir / name, Path(path) / name)
        return {**frames, "run_dir": run_dir, "exit_code": self.result.exit_code}

    async def aexecute_full_scenario(self) -> dict[str, Any]:
        self.generate()
        await self.aexecute()
        return self.report()

    def execute_full_scenario(self) -> dict[str, Any]:
        """generate() → execute() → report(); returns the report (LangBiTe's returned nothing)."""
        return run_sync(self.aexecute_full_scenario())
