"""Bad input, by class: one clear ``PATH:LINE:COL: message`` per problem, exit code 2, no model call.

Each test builds its own broken file from the shipped library or the quickstart model, so the
cases follow the rule (a class of mistake), not one example.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, write
from langbite.cli import main
from langbite.errors import InputErrors
from langbite.library.markups import scan
from langbite.library.templates import load_library, load_templates
from langbite.requirements import load_requirements

QUICKSTART = REPO / "requirements_models" / "quickstart.json"
LIBRARY_ROWS = list(csv.reader(io.StringIO((REPO / "templates" / "prompts_en_us.csv").read_text(encoding="utf-8"))))
HEADER = LIBRARY_ROWS[0]
PROMPT = HEADER.index("prompt")


def library(folder: Path, rows: list[list[str]] | None = None, name: str = "prompts_en_us.csv",
            delimiter: str = ",") -> Path:
    """A library file with the shipped header and the given rows (default: the first five sexism rows)."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = rows if rows is not None else [list(r) for r in LIBRARY_ROWS[1:6]]
    path = folder / name
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, delimiter=delimiter).writerows([HEADER, *rows])
    return path


def model(folder: Path, change: Any = None, name: str = "m.json") -> Path:
    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    if change:
        change(doc)
    return write(folder / name, json.dumps(doc, indent=2, ensure_ascii=False))


def problems(*paths: Path) -> list[str]:
    with pytest.raises(InputErrors) as info:
        load_templates(list(paths))
    return [str(e) for e in info.value.errors]


def requirement_problems(path: Path) -> list[str]:
    with pytest.raises(InputErrors) as info:
        load_requirements(path)
    return [str(e) for e in info.value.errors]


def cli(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, list[str]]:
    code = main(list(args))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err.strip().splitlines()


# --- separators, quoting, empty files ---------------------------------------------------------

def test_a_semicolon_export_is_named_once(tmp_path: Path) -> None:
    path = library(tmp_path, delimiter=";")
    [line] = problems(path)
    assert line.startswith(f"{path}:1: the file looks semicolon-separated")


@pytest.mark.parametrize("header_sep, row_sep, named", [("\t", ",", "comma"), (",", "\t", "tab")])
def test_mixed_separators_are_named_once(tmp_path: Path, header_sep: str, row_sep: str, named: str) -> None:
    tmp_path.mkdir(exist_ok=True)
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=row_sep).writerows(LIBRARY_ROWS[1:4])
    path = write(tmp_path / "prompts_en_us.csv", header_sep.join(HEADER) + "\n" + buffer.getvalue())
    [line] = problems(path)
    assert line.startswith(f"{path}:2: this row is {named}-separated") and "mixes separators" in line


def test_a_malformed_quote_names_its_physical_line(tmp_path: Path) -> None:
    path = library(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace(",", ',"oops"x,', 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    [line] = problems(path)
    assert line.startswith(f"{path}:4: malformed CSV")


def test_a_header_only_library_names_the_library(tmp_path: Path) -> None:
    path = library(tmp_path, rows=[])
    assert problems(path) == [f"{path}:2: the library has a header but no templates"]
    code = main(["run", str(QUICKSTART), "--templates", str(tmp_path), "--out", str(tmp_path / "run")])
    assert code == 2 and not (tmp_path / "run").exists()


def test_blank_trailing_header_columns_are_ignored(tmp_path: Path) -> None:
    rows = [r + ["", ""] for r in LIBRARY_ROWS[1:4]]
    path = tmp_path / "prompts_en_us.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([HEADER + ["", ""], *rows])
    assert len(load_templates([path])) == 3
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([HEADER[:3] + [""] + HEADER[3:], *rows])
    assert any("column has no name" in p for p in problems(path))


# --- libraries given where they are not, folders, names -----------------------------------------

def test_templates_pointed_at_a_json_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, [line] = cli(capsys, "run", str(QUICKSTART), "--templates", str(QUICKSTART), "--out", str(tmp_path / "r"))
    assert code == 2 and line.startswith(f"{QUICKSTART}: not a template library") and "MODEL argument" in line


def test_a_folder_without_libraries(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "empty").mkdir()
    code, [line] = cli(capsys, "plan", str(QUICKSTART), "--templates", str(tmp_path / "empty"))
    assert code == 2 and line == f"{tmp_path / 'empty'}: no template library (.csv or .tsv file) in this folder"


def test_a_folder_where_a_file_is_expected(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "prompts_en_us.csv").mkdir()
    (tmp_path / "model.json").mkdir()
    code, [line] = cli(capsys, "validate", str(tmp_path / "prompts_en_us.csv"))
    assert code == 2 and "is a folder" in line
    code, [line] = cli(capsys, "plan", str(tmp_path / "model.json"))
    assert code == 2 and line == f"{tmp_path / 'model.json'}: is a folder, not a requirements model file"


def test_two_libraries_with_one_file_name(tmp_path: Path) -> None:
    library(tmp_path / "a", rows=[list(r) for r in LIBRARY_ROWS[1:3]])
    library(tmp_path / "b", rows=[list(r) for r in LIBRARY_ROWS[3:5]])
    [line] = problems(tmp_path / "a", tmp_path / "b")
    assert "another library has the same file name" in line


# --- duplicate ids: answers must never be swapped between templates ---------------------------

def test_duplicate_ids_across_files_name_both_locations(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                        calls: dict) -> None:
    first = library(tmp_path / "lib", rows=[list(r) for r in LIBRARY_ROWS[1:3]], name="prompts_en_us--a.csv")
    other = [list(r) for r in LIBRARY_ROWS[3:5]]
    other[1][0] = LIBRARY_ROWS[2][0]  # the second row of the other file reuses an id of the first file
    second = library(tmp_path / "lib", rows=other, name="prompts_en_us--b.csv")
    [line] = problems(tmp_path / "lib")
    id_col = HEADER.index("template_id") + 1
    assert line == (f"{second}:3:{id_col}: duplicate template_id '{LIBRARY_ROWS[2][0]}' for en_us: also at "
                    f"{first}:3:{id_col} (ids are unique per language across all libraries)")
    code, lines = cli(capsys, "run", str(QUICKSTART), "--llm", "scripted:fair", "--templates",
                      str(tmp_path / "lib"), "--out", str(tmp_path / "run"))
    assert code == 2 and lines == [line] and calls == {}


def test_the_same_id_in_two_languages_is_fine(tmp_path: Path) -> None:
    library(tmp_path, rows=[list(r) for r in LIBRARY_ROWS[1:3]])
    library(tmp_path, rows=[list(r) for r in LIBRARY_ROWS[1:3]], name="prompts_en_gb.csv")
    assert len(load_templates([tmp_path])) == 4


# --- markups and invisible characters -----------------------------------------------------------

@pytest.mark.parametrize("left, right", [("｛", "｝"), ("﹛", "﹜"), ("❴", "❵")])
def test_brace_lookalikes(tmp_path: Path, left: str, right: str) -> None:
    rows = [list(r) for r in LIBRARY_ROWS[1:3]]
    rows[0][PROMPT] = f"Are {left}GENDER1{right} smarter than {left}GENDER2{right}?"
    path = library(tmp_path, rows)
    [line] = problems(path)
    assert line.startswith(f"{path}:2:{PROMPT + 1}: '{left}'") and "ASCII braces" in line


@pytest.mark.parametrize("text, n", [("{GENDER0} and {GENDER1}", 1), ("{GENDER01} and {GENDER02}", 2),
                                     ("{GENDER1} and {GENDER3}", 1), ("{GENDER} and {GENDER1}", 1)])
def test_a_markup_error_is_reported_once(text: str, n: int) -> None:
    assert len(scan(text).problems) == n, scan(text).problems


def test_markups_may_use_non_ascii_upper_case_letters() -> None:
    found = scan("Són {RELIGIÓ1} més honestos que {RELIGIÓ2}?")
    assert found.names == ("RELIGIÓ1", "RELIGIÓ2") and not found.problems
    assert scan("{religió}").problems  # lower case is still not a markup


@pytest.mark.parametrize("bad, named", [("\x00", "NUL"), ("\u200b", "zero-width space"),
                                        ("\u202e", "right-to-left override"), ("\x07", "U+0007")])
@pytest.mark.parametrize("column", ["template_id", "task_prefix", "prompt", "oracle_prediction"])
def test_invisible_characters_in_any_cell(tmp_path: Path, bad: str, named: str, column: str) -> None:
    rows = [list(r) for r in LIBRARY_ROWS[1:3]]
    i = HEADER.index(column)
    rows[1][i] = rows[1][i][:1] + bad + rows[1][i][1:]
    path = library(tmp_path, rows)
    found = problems(path)
    assert any(p.startswith(f"{path}:3:{i + 1}: ") and named in p for p in found), found


# --- a template problem skips the template in run, fails validate --------------------------------

def test_a_template_problem_is_excluded_not_fatal(tmp_path: Path) -> None:
    rows = [list(r) for r in LIBRARY_ROWS[1:4]]
    rows[1][PROMPT] = "Are {GENDER0} smarter?"
    path = library(tmp_path, rows)
    loaded = load_library([path])
    assert [t.template_id for t in loaded.templates] == [rows[0][0], rows[2][0]]
    [row] = loaded.excluded_rows()
    assert row.line == 3 and row.problems[0].startswith(f"{path}:3:{PROMPT + 1}: markup {{GENDER0}}")
    with pytest.raises(InputErrors):
        load_library([path], strict=True)


def test_a_markup_declared_by_a_requirement_or_beside_the_library(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture) -> None:
    rows = [list(r) for r in LIBRARY_ROWS[1:5]]
    for r in rows:
        r[PROMPT] = r[PROMPT].replace("GENDER", "SEX")
    path = library(tmp_path / "lib", rows)
    [*_, line] = problems(path)
    assert "{SEX} is not a markup of concern 'sexism'" in line

    def declare(doc: dict[str, Any]) -> None:
        doc["requirements"] = doc["requirements"][:1]
        doc["requirements"][0]["markup"] = "SEX"

    m = model(tmp_path, declare)
    code, _ = cli(capsys, "validate", str(m), str(tmp_path / "lib"))
    assert code == 0
    write(tmp_path / "lib" / "concerns.json", json.dumps({"concerns": {"sexism": {"markups": ["SEX"]}}}))
    assert len(load_templates([path])) == 4


# --- requirements models ---------------------------------------------------------------------

def test_a_blank_or_repeated_community(tmp_path: Path) -> None:
    path = model(tmp_path, lambda d: d["requirements"][0]["communities"].update(en_us=["men", "  ", "Men", " women"]))
    found = requirement_problems(path)
    assert [p.split(": ", 1)[1] for p in found] == [
        "$.requirements[0].communities.en_us[1]: community is blank",
        "$.requirements[0].communities.en_us[2]: community 'Men' is listed twice (also [0])",
        "$.requirements[0].communities.en_us[3]: community ' women' has spaces around it",
    ]
    assert all(p.startswith(f"{path}:") and p.split(":")[1].isdigit() for p in found)


def test_communities_for_a_language_the_requirement_does_not_list(tmp_path: Path) -> None:
    path = model(tmp_path, lambda d: d["requirements"][0]["communities"].update(es_es=["hombres", "mujeres"]))
    [line] = requirement_problems(path)
    text = path.read_text(encoding="utf-8").splitlines()
    row = int(line.split(":")[1])
    assert '"es_es"' in text[row - 1]
    assert "'es_es' is not one of the requirement's languages (en_us)" in line


@pytest.mark.parametrize("entry, expected", [
    ("opnai:gpt-4o", "unknown provider 'opnai'; did you mean 'openai'?"),
    ("OpenAIGPT4oMin", "did you mean 'OpenAIGPT4oMini'?"),
    ("openai:", "no model name after 'openai:'"),
    ({"model": "openai:gpt-4o-mini", "base_url": "localhost:8000/v1"}, "must start with http:// or https://"),
])
def test_a_bad_model_entry_names_its_position(tmp_path: Path, entry: Any, expected: str) -> None:
    path = model(tmp_path, lambda d: d.update(models=["local:smollm2", entry]))
    [line] = requirement_problems(path)
    row = int(line.split(":")[1])
    assert line.split(": ", 1)[1].startswith("$.models[1]: ") and expected in line
    assert "openai" in path.read_text(encoding="utf-8").splitlines()[row - 1].lower() or "opnai" in line


def test_a_concern_typo_gets_a_position_and_a_suggestion(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = model(tmp_path, lambda d: d["requirements"][0].update(concern="Sexsim"))
    code, [line] = cli(capsys, "validate", str(path))
    text = path.read_text(encoding="utf-8").splitlines()
    assert code == 2 and line.endswith("did you mean 'sexism'?")
    assert '"Sexsim"' in text[int(line.split(":")[1]) - 1]


def test_a_key_with_spaces_around_it(tmp_path: Path) -> None:
    path = model(tmp_path, lambda d: d["requirements"][0].update({" tolerance ": d["requirements"][0].pop("tolerance")}))
    [line] = requirement_problems(path)
    assert line.endswith("key ' tolerance ' has spaces around it; write 'tolerance'")


def test_validate_reports_every_problem_in_one_pass(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    def break_three(doc: dict[str, Any]) -> None:
        doc["requirements"][0]["tolerance"] = 7
        doc["requirements"][1]["markup"] = "GENDER"
        del doc["requirements"][2]["communities"]["en_us"]

    path = model(tmp_path, break_three)
    rows = [list(r) for r in LIBRARY_ROWS[1:4]]
    rows[0][PROMPT] = "Are {GENDER1} smarter than {GENDER3}?"
    lib = library(tmp_path / "lib", rows)
    # a header problem (an unknown column) does not hide the problems of rows that can still be read
    header_bad = library(tmp_path / "lib2", [list(r) for r in LIBRARY_ROWS[6:8]])
    text = header_bad.read_text(encoding="utf-8").replace("source", "sauce", 1)
    header_bad.write_text(text, encoding="utf-8")
    rows_bad = text.splitlines()
    rows_bad[1] = rows_bad[1].replace("constrained", "constraint", 1)
    header_bad.write_text("\n".join(rows_bad) + "\n", encoding="utf-8")
    code, lines = cli(capsys, "validate", str(path), str(lib), str(header_bad))
    assert code == 2
    joined = "\n".join(lines)
    assert "tolerance: 7 is greater than the maximum of 1" in joined
    assert "'GENDER' is not a markup of concern 'Racism'" in joined
    assert "no entry for language 'en_us'" in joined
    assert "consecutive from 1" in joined
    assert "unknown column 'sauce'" in joined and "input_type must be constrained or verbose" in joined


@pytest.mark.parametrize("community", ["25 años", "65 anys", "30 years", "40-year-old"])
def test_an_age_community_that_repeats_the_unit_is_refused(tmp_path: Path, community: str) -> None:
    def change(doc: dict[str, Any]) -> None:
        age = next(r for r in doc["requirements"] if r["markup"] == "AGE")
        age["communities"]["en_us"] = [community, "45"]

    [line] = requirement_problems(model(tmp_path, change))
    assert f"community '{community}' already says" in line and "give the number alone" in line


def test_a_template_in_a_language_without_a_lexicon_is_named_not_read_in_english(tmp_path: Path) -> None:
    """Every answer is read side by side with the language's lexicon: without one, a row is an input error that
    names the language, never a silent pass read with another language's phrases."""
    rows = [list(r) for r in LIBRARY_ROWS[1:3]]
    found = problems(library(tmp_path, rows, name="prompts_fr_fr.csv"))
    assert len(found) == 2 and all("prompts_fr_fr.csv:" in p and "'fr_fr'" in p for p in found), found


def test_a_lexicon_without_qualifiers_cannot_read_unequal_treatment(tmp_path: Path) -> None:
    from langbite.oracles.lexicon import add_lexicon, lexicons

    add_lexicon({"language": "fr", "yes": {"standalone": ["oui"]}, "no": {"standalone": ["non"]}})
    try:
        found = problems(library(tmp_path, [list(LIBRARY_ROWS[1])], name="prompts_fr_fr.csv"))
    finally:
        lexicons.remove("fr")
        from langbite.oracles.lexicon import _lookup

        _lookup.cache_clear()
    assert len(found) == 1 and "has no qualifiers conditions, requirements, concessions, hedges_open" in found[0]
