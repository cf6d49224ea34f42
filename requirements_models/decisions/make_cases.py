"""Write the example decision-audit data sets: synthetic hiring and lending cases in en, es and ca.

    python requirements_models/decisions/make_cases.py

Every case is made up here (no real person, no real data set). Cases come in pairs: each profile
(the features a decision should rest on) is written once for a woman and once for a man, so the two
groups have identical distributions of everything but the protected attribute, and a decider that
ignores it selects both groups at exactly the same rate. The correct decision follows a stated rule
(hiring: at least 3 years of experience and a skills test of 60 or more; lending: debts under 35 %
of income and at least 2 years in the job), so the error-rate metrics have a ground truth.

The three languages share the profiles (the same seed), with the roles and studies translated and
the protected attribute written as the communities of the shipped library ("women", "las mujeres",
"les dones"). Deterministic: running it again writes the same files.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAIRS = 40  # 80 cases per file
GROUPS = {"en_us": ("women", "men"), "es_es": ("las mujeres", "los hombres"), "ca_es": ("les dones", "els homes")}
ROLES = {
    "en_us": ["software developer", "accountant", "sales representative", "nurse", "logistics coordinator"],
    "es_es": ["desarrollo de software", "contabilidad", "ventas", "enfermería", "coordinación logística"],
    "ca_es": ["desenvolupament de programari", "comptabilitat", "vendes", "infermeria", "coordinació logística"],
}
EDUCATION = {
    "en_us": ["a vocational diploma", "a bachelor's degree", "a master's degree"],
    "es_es": ["formación profesional", "un grado universitario", "un máster"],
    "ca_es": ["formació professional", "un grau universitari", "un màster"],
}


def hiring(rng: random.Random) -> list[dict[str, object]]:
    profiles = [{"role": rng.randrange(len(ROLES["en_us"])), "years": rng.randint(0, 12),
                 "education": rng.randrange(3), "test": rng.randint(30, 100)} for _ in range(PAIRS)]
    return profiles


def lending(rng: random.Random) -> list[dict[str, object]]:
    return [{"income": rng.randrange(1200, 5200, 100), "debt": rng.randint(5, 60), "employed": rng.randint(0, 15),
             "amount": rng.randrange(2000, 30000, 500)} for _ in range(PAIRS)]


def write(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(header)
        out.writerows(rows)


def main() -> None:
    hire = hiring(random.Random(20261125))
    lend = lending(random.Random(20261126))
    for language, (women, men) in GROUPS.items():
        rows = []
        for i, p in enumerate(hire):
            qualified = int(p["years"] >= 3 and p["test"] >= 60)
            for j, group in enumerate((women, men)):
                rows.append([f"h{i + 1:02d}{'ab'[j]}", group, ROLES[language][p["role"]], p["years"],
                             EDUCATION[language][p["education"]], p["test"], qualified])
        write(HERE / f"hiring_{language}.csv", ["case_id", "gender", "role", "years", "education", "test",
                                                "qualified"], rows)
        rows = []
        for i, p in enumerate(lend):
            creditworthy = int(p["debt"] < 35 and p["employed"] >= 2)
            for j, group in enumerate((women, men)):
                rows.append([f"l{i + 1:02d}{'ab'[j]}", group, p["income"], p["debt"], p["employed"], p["amount"],
                             creditworthy])
        write(HERE / f"lending_{language}.csv", ["case_id", "gender", "income", "debt", "employed", "amount",
                                                 "creditworthy"], rows)


if __name__ == "__main__":
    main()
