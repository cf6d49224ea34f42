"""A pytest plugin: a requirements model's verdicts as test items, beside a project's own tests.

    pytest --langbite requirements_models/hiring_assistant.json --langbite-llm openai:gpt-4o-mini

Each requirement × model × language becomes one item named
``<model file>::<requirement>[<model>-<language>]``. The run happens once, the
first time an item of that model file runs (into ``--langbite-out``, or a
temporary folder), and each item then reports its verdict: Passed passes,
Failed fails with the failing templates and their reasons, Inconclusive and
Not evaluated are skipped with why. The plugin is registered through the
``pytest11`` entry point and does nothing without ``--langbite``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("langbite", "bias and fairness tests of language models")
    group.addoption("--langbite", action="append", default=[], metavar="MODEL.json",
                    help="run this requirements model and report each requirement × model × language as a test")
    group.addoption("--langbite-llm", action="append", default=[], metavar="SPEC",
                    help="model to test (repeatable; overrides the requirements model's models)")
    group.addoption("--langbite-out", metavar="DIR", help="run folder (default: a temporary folder)")


class LangbiteFailure(Exception):
    """A requirement that failed: shown without a Python traceback."""


class RequirementsFile(pytest.File):
    """The items of one requirements model, planned without calling any model."""

    def collect(self) -> Iterator[pytest.Item]:
        from langbite.runner import RunOptions, prepare
        from langbite.suites.templates import template_suite

        options = RunOptions(models=self.config.getoption("langbite_llm"), progress=False)
        plan = prepare(self.path, options)
        templates = template_suite(plan)
        seen: dict[tuple[str, str, str], None] = {}
        for item in templates.items if templates else ():
            for model in plan.models:
                seen[(item.requirement.name, model.spec, item.template.language)] = None
        for requirement, spec, language in seen:
            yield RequirementItem.from_parent(self, name=f"{requirement}[{spec}-{language}]",
                                              requirement=requirement, model=spec, language=language)


class RequirementItem(pytest.Item):
    def __init__(self, *, requirement: str, model: str, language: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.requirement, self.model, self.language = requirement, model, language

    def _result(self) -> Any:
        cache: dict[Path, Any] = self.config.stash.setdefault(_RESULTS, {})
        if self.path not in cache:
            from langbite.runner import RunOptions, prepare, run

            options = RunOptions(models=self.config.getoption("langbite_llm"), progress=False)
            out = self.config.getoption("langbite_out")
            base = Path(out) if out else Path(tempfile.mkdtemp(prefix="langbite-"))
            cache[self.path] = run(prepare(self.path, options), base / self.path.stem, options)
        return cache[self.path]

    def runtest(self) -> None:
        from langbite.evaluate.summary import summarise
        from langbite.model import GroupVerdict, ModelSpec, Verdict

        from langbite.suites.templates import template_results

        result = self._result()
        templates = template_results(result)
        evaluations = [e for e in (templates.evaluations if templates else ()) if (e.requirement, e.model, e.language) ==
                       (self.requirement, self.model, self.language)]
        groups = summarise(evaluations, result.plan.config.requirements, by=("provider", "model", "requirement",
                                                                               "language"))
        g = next((x for x in groups if ModelSpec.format(x.provider, x.model) == self.model), None)
        verdict = g.verdict if g is not None else GroupVerdict.NOT_EVALUATED
        if verdict is GroupVerdict.PASSED:
            return
        rate = f"{g.pass_rate:.0%}" if g is not None and g.pass_rate is not None else "no rate"
        head = f"{verdict}: pass rate {rate}, tolerance {g.tolerance if g else '-'} ({result.run_dir})"
        if verdict is GroupVerdict.FAILED:
            lines = [f"  {e.template_id}: {e.reason}" for e in evaluations if e.verdict is Verdict.FAILED][:20]
            raise LangbiteFailure("\n".join([head, *lines]))
        pytest.skip(head)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, LangbiteFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"langbite: {self.name}"


_RESULTS = pytest.StashKey[dict[Path, Any]]()


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    from langbite.errors import InputErrors

    for name in config.getoption("langbite"):
        path = Path(name).resolve()
        try:
            items.extend(RequirementsFile.from_parent(session, path=path).collect())
        except InputErrors as exc:  # bad input: the lines langbite prints, not a traceback
            raise pytest.UsageError(str(exc)) from None
