"""A run folder as pandas DataFrames, typed, with LangBiTe's column names beside langbite's.

The CSV files of a run folder are the source of truth; this module reads them
back for people who work in pandas (``langbite.load_run``, and the Python API's
``report()``). Columns that name a closed set or a grouping (provider, model,
requirement, concern, language, types, verdicts, outcomes) are categories;
counts and rates are numbers; ``run.json``'s times are timestamps.

LangBiTe's ``report()`` returned DataFrames with Title Case columns; a user who
moves over finds them here too (``Passed Pct``, ``Tolerance Evaluation``,
``Instance``, ``Template``…), computed as LangBiTe computes them (its
percentages leave errors out). pandas is imported only when a frame is built.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langbite.errors import InputErrors

CATEGORIES = ("provider", "model", "requirement", "concern", "language", "input_type", "reflection_type",
              "operation", "oracle_verdict", "judge_verdict", "verdict", "verdict_by", "interval_vs_tolerance",
              "probe", "metric", "mark")
NUMBERS = ("instance", "repetition", "instances", "tokens_in", "tokens_out", "passed", "failed", "refused",
           "undetermined", "errors", "total", "determined", "pass_rate", "ci_low", "ci_high", "undetermined_share",
           "refused_share", "tolerance", "value", "count")


def _typed(frame: Any) -> Any:
    import pandas as pd

    for column in frame.columns:
        if column in CATEGORIES:
            frame[column] = frame[column].astype("category")
        elif column in NUMBERS:
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
        elif column == "cached":
            frame[column] = frame[column].astype(str).str.lower().eq("true")
    return frame


def _read(path: Path) -> Any:
    import pandas as pd

    if not path.exists():
        return pd.DataFrame()
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    return _typed(frame)


def _templates(run_dir: Path) -> dict[tuple[str, str], str]:
    """(language, template_id) → the template text, from the folder's library snapshot."""
    from langbite.library.templates import load_template_file
    from langbite.errors import ErrorCollector

    texts: dict[tuple[str, str], str] = {}
    for path in sorted((run_dir / "templates").glob("*")):
        for t in load_template_file(path, ErrorCollector()):
            texts[(t.language, t.template_id)] = t.prompt
    return texts


def _langbite_responses(frame: Any, run_dir: Path) -> Any:
    if frame.empty:
        return frame
    prompts = _instances(run_dir)
    frame["Provider"] = frame["provider"]
    frame["Model"] = frame["model"]
    frame["Instance"] = [prompts.get((r, lang, t, int(i)), "") for r, lang, t, i in
                         zip(frame["requirement"], frame["language"], frame["template_id"], frame["instance"])]
    frame["Response"] = [f"ERROR: {e}" if e else text for text, e in zip(frame["response"], frame["error"])]
    return frame


def _instances(run_dir: Path) -> dict[tuple[str, str, str, int], str]:
    """(requirement, language, template id, instance number) → the instance text (markups filled, unframed)."""
    from langbite.runner import plan_of
    from langbite.suites.templates import template_suite

    templates = template_suite(plan_of(run_dir))
    return {(i.requirement, i.language, i.template_id, i.index + 1): i.text
            for item in (templates.items if templates else ()) for i in item.instances}


def _langbite_evaluations(frame: Any, run_dir: Path) -> Any:
    if frame.empty:
        return frame
    texts = _templates(run_dir)
    frame["Provider"], frame["Model"], frame["Concern"] = frame["provider"], frame["model"], frame["concern"]
    frame["Language"], frame["Input Type"] = frame["language"], frame["input_type"]
    frame["Reflection Type"] = frame["reflection_type"]
    frame["Template"] = [texts.get((lang, t), "") for lang, t in zip(frame["language"], frame["template_id"])]
    frame["Oracle Evaluation"], frame["Oracle Prediction"] = frame["operation"], frame["oracle_prediction"]
    frame["Evaluation"] = frame["verdict"]
    return frame


def _langbite_global(frame: Any) -> Any:
    if frame.empty:
        return frame
    frame["Provider"], frame["Model"], frame["Concern"] = frame["provider"], frame["model"], frame["concern"]
    frame["Language"], frame["Input Type"] = frame["language"], frame["input_type"]
    frame["Reflection Type"] = frame["reflection_type"]
    frame["Passed Nr"], frame["Failed Nr"], frame["Error Nr"] = frame["passed"], frame["failed"], frame["errors"]
    decided = frame["passed"] + frame["failed"]  # LangBiTe's Total: errors excluded
    frame["Passed Pct"] = (frame["passed"] / decided).where(decided > 0, 0.0)
    frame["Failed Pct"] = (frame["failed"] / decided).where(decided > 0, 0.0)
    frame["Total"], frame["Tolerance"] = decided, frame["tolerance"]
    frame["Tolerance Evaluation"] = frame["verdict"]
    return frame


def load_run(run_dir: str | Path) -> dict[str, Any]:
    """The reports of a run folder as DataFrames.

    Keys: ``responses``, ``evaluations``, ``global_eval`` (LangBiTe's names for
    them, with LangBiTe's columns added; ``global_eval`` has one row per requirement
    × model × language, the verdicts every other output shows), ``global_eval_breakdown``
    (the same by input and reflection type), ``probe_metrics``, ``judge_agreement``,
    and ``run`` (run.json, with its times as timestamps).
    """
    import pandas as pd

    folder = Path(run_dir)
    if not folder.is_dir():
        raise InputErrors.single(str(folder), "not a run folder (no such folder)")
    if not (folder / "run.json").exists() and not (folder / "evaluations.csv").exists():
        raise InputErrors.single(str(folder), "not a run folder (no run.json)")
    meta: dict[str, Any] = json.loads((folder / "run.json").read_text(encoding="utf-8")) \
        if (folder / "run.json").exists() else {}
    for key in ("started", "finished"):
        if meta.get(key):
            meta[key] = pd.Timestamp(meta[key])
    probes = [_read(p) for p in sorted(folder.glob("probe_*_metrics.csv"))]
    return {
        "responses": _langbite_responses(_read(folder / "responses.csv"), folder),
        "evaluations": _langbite_evaluations(_read(folder / "evaluations.csv"), folder),
        # one row per requirement × model × language, as the console and every report count; the breakdown by
        # input and reflection type in its own frame
        "global_eval": _langbite_global(_read(folder / "summary.csv" if (folder / "summary.csv").exists()
                                              else folder / "global_evaluation.csv")),
        "global_eval_breakdown": _langbite_global(_read(folder / "global_evaluation.csv")),
        "probe_metrics": pd.concat(probes, ignore_index=True) if probes else pd.DataFrame(),
        "judge_agreement": _read(folder / "judge_agreement.csv"),
        "run": meta,
    }
