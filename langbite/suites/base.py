"""The suite protocol: one kind of test in a run (template tests, probes, …), seen the same way by the runner.

A run holds several kinds of test. Each is a *suite*, built from the requirements
model before any call, which

1. says which calls it needs (:meth:`Suite.jobs`, one :class:`~langbite.execute.engine.Job`
   per prompt and repetition, for one model) and how many (:meth:`Suite.n_calls`);
2. reads the answers the engine journaled into typed results (:meth:`Suite.evaluate`,
   a :class:`SuiteResult`), with intervals where it aggregates;
3. hands the run what its outputs need from those results: verdicts for the exit code,
   counts for ``run.json``, files for the run folder, lines for the console.

The runner orchestrates suites it does not know by name (prepare, run, rebuild), so
every kind of test gets the same engine, journal, cache, limits, system prompts,
budget, batch mode and resume. A new kind of test is a module with a suite class and
a :func:`register` entry: the runner, the engine and the journal stay as they are.
Built-in suites register like plugins; third parties use the ``langbite.suites``
entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from langbite.model import Answer, GroupVerdict, ModelSpec, RequirementsModel
from langbite.registry import Registry
from langbite.selection import Selection

if TYPE_CHECKING:
    from langbite.evaluate.judge import Ask
    from langbite.evaluate.memo import ReadingMemo
    from langbite.execute.engine import Job

Answers = Mapping[tuple[str, str, int], Answer]


@dataclass(frozen=True)
class BuildOptions:
    """What the command line (or the API) adds to the requirements model when suites are built."""

    libraries: tuple[Path, ...] = ()  # template library files or folders, replacing the model's own
    selection: Selection = Selection()  # -k, --ids, --limit
    use_cache: bool = True  # remembered libraries and readings (--no-cache turns them off)
    data: str | None = None  # probe data folder (--data)
    skip_invalid_templates: bool = False  # run without library rows that have a problem, listing them


@dataclass(frozen=True)
class Context:
    """What a suite reads its answers with, after execution (or when a run folder is rebuilt)."""

    config: RequirementsModel
    answers: Answers
    run_dir: Path
    ask: Ask | None = None  # the judge LLM, when the run has one (replies recorded in the run folder)
    judge: str | None = None  # the judge's model spec
    readings: ReadingMemo | None = None  # readings remembered beside the response cache

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        return self.config.models


@dataclass(frozen=True)
class Note:
    """Something a suite left out or wants said (a library row with a problem, a community without a form)."""

    message: str
    path: str = ""
    line: int = 0
    details: tuple[str, ...] = ()  # every problem, as PATH:LINE:COL: message


class SuiteResult(Protocol):
    """A suite's typed results, and what the run's outputs take from them."""

    suite: str

    def verdicts(self) -> Sequence[GroupVerdict]:
        """One verdict per group the suite decides (the exit code reads them); none for a measurement."""
        ...

    def counts(self) -> dict[str, Any]:
        """The suite's counts for ``run.json`` (keys prefixed by nothing: they are merged with the run's)."""
        ...

    def write(self, run_dir: Path) -> list[Path]:
        """The suite's files in the run folder (CSV, JSON lines): the source of truth of the reports."""
        ...

    def provenance(self) -> dict[str, Any]:
        """Where the suite's tests came from, for ``run.json`` (the library folder used, the data sets)."""
        ...

    def console(self) -> list[str]:
        """What the command line prints after the run for this suite."""
        ...


class Suite(Protocol):
    """One kind of test of a run, built once and carried by the plan."""

    name: ClassVar[str]

    def n_calls(self, model: str) -> int:
        """Calls this suite makes to ``model`` (every prompt × repetition), without building them."""
        ...

    def jobs(self, model: str) -> Iterator[Job]:
        """Every call to ``model``, in a fixed order (streamed: a large suite is never held in memory)."""
        ...

    def describe(self) -> list[str]:
        """What ``langbite plan`` prints for this suite."""
        ...

    def notes(self) -> list[Note]:
        """What the suite left out, for the console, ``run.json`` and the reports' first screen."""
        ...

    def snapshot_files(self) -> tuple[Path, ...]:
        """Input files copied into the run folder, so that it can be rebuilt as it ran."""
        ...

    async def evaluate(self, ctx: Context) -> SuiteResult:
        """Read the journaled answers into typed results."""
        ...


class SuiteKind(Protocol):
    """A registry entry: builds its suite from a requirements model, or nothing when the model has none."""

    def __call__(self, config: RequirementsModel, options: BuildOptions) -> Suite | None: ...


suites: Registry[SuiteKind] = Registry("suite", group="langbite.suites")


K = TypeVar("K", bound=Callable[..., Any])


def register(name: str) -> Callable[[K], K]:
    """Decorator: register a suite builder under ``name`` (its name in run.json and the reports)."""

    def deco(kind: K) -> K:
        suites.add(name, kind)
        return kind

    return deco


@dataclass(frozen=True)
class Plan:
    """What a run sends: the resolved requirements model and the suites built from it."""

    config: RequirementsModel
    suites: tuple[Suite, ...] = ()
    selection: Selection = Selection()
    libraries: tuple[Path, ...] = field(default=())  # the libraries asked for (snapshotted ones on a rebuild)

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        return self.config.models

    def n_calls(self, model: str | None = None) -> int:
        """Calls to ``model`` (every model when None) over every suite."""
        specs = [model] if model is not None else [m.spec for m in self.models]
        return sum(s.n_calls(spec) for spec in specs for s in self.suites)

    def suite(self, name: str) -> Suite | None:
        """The suite registered as ``name``, if the plan has one."""
        return next((s for s in self.suites if s.name == name), None)

    def snapshot_files(self) -> tuple[Path, ...]:
        return tuple(f for s in self.suites for f in s.snapshot_files())

    def notes(self) -> list[Note]:
        return [n for s in self.suites for n in s.notes()]
