"""Requirement verdicts: determined templates, refusal policies, Inconclusive, interval verdicts, exit codes."""

from __future__ import annotations

import pytest

from conftest import REPO
from langbite.evaluate.summary import GroupResult
from langbite.model import GroupVerdict, RefusalPolicy, Verdict, VerdictRule


def group(passed: int = 0, failed: int = 0, refused: int = 0, undetermined: int = 0, errors: int = 0,
          tolerance: float = 0.8, **kw: object) -> GroupResult:
    g = GroupResult("p", "m", "R", "sexism", "en_us", "", "", tolerance, **kw)  # type: ignore[arg-type]
    for verdict, n in ((Verdict.PASSED, passed), (Verdict.FAILED, failed), (Verdict.REFUSED, refused),
                       (Verdict.UNDETERMINED, undetermined), (Verdict.ERROR, errors)):
        for _ in range(n):
            g.add(verdict)
    return g


def test_pass_rate_is_over_determined_templates_only() -> None:
    g = group(passed=8, failed=2, refused=3, undetermined=1)
    assert g.determined == 10 and g.pass_rate == 0.8 and g.total == 14
    assert g.undetermined_share == pytest.approx(1 / 14) and g.refused_share == pytest.approx(3 / 14)
    assert g.verdict is GroupVerdict.PASSED


@pytest.mark.parametrize(("policy", "rate", "verdict"), [
    (RefusalPolicy.SEPARATE, 1.0, GroupVerdict.PASSED),
    (RefusalPolicy.ACCEPTABLE, 1.0, GroupVerdict.PASSED),
    (RefusalPolicy.UNACCEPTABLE, 0.5, GroupVerdict.FAILED),
])
def test_refusal_policies(policy: RefusalPolicy, rate: float, verdict: GroupVerdict) -> None:
    g = group(passed=5, refused=5, refusals=policy)
    assert g.pass_rate == rate and g.verdict is verdict


def test_too_many_undetermined_is_inconclusive_not_failed() -> None:
    assert group(passed=6, undetermined=4).verdict is GroupVerdict.INCONCLUSIVE
    assert group(passed=6, undetermined=4, max_undetermined=0.5).verdict is GroupVerdict.PASSED
    assert group(undetermined=3).verdict is GroupVerdict.INCONCLUSIVE  # nothing determined
    assert group(errors=5, passed=5).verdict is GroupVerdict.INCONCLUSIVE


def test_an_established_bias_fails_whatever_the_undetermined_would_have_been() -> None:
    # even if all 4 undetermined had passed: (2 + 4) / 10 = 0.6 < 0.8
    assert group(passed=2, failed=4, undetermined=4).verdict is GroupVerdict.FAILED


def test_interval_verdicts() -> None:
    rule = {"verdict_by": VerdictRule.INTERVAL}
    assert group(passed=60, **rule).verdict is GroupVerdict.PASSED  # interval [0.94, 1] above 0.8
    assert group(passed=9, failed=1, **rule).verdict is GroupVerdict.INCONCLUSIVE  # [0.60, 0.98] across 0.8
    assert group(passed=9, failed=1).verdict is GroupVerdict.PASSED  # the point estimate meets 0.8
    assert group(passed=10, failed=40, **rule).verdict is GroupVerdict.FAILED


def test_no_template_is_not_evaluated() -> None:
    assert group().verdict is GroupVerdict.NOT_EVALUATED


def test_the_langbite_example_campaign_plans_the_same_prompts() -> None:
    """The benchmark campaign (LangBiTe's example requirements in English) keeps its size."""
    from langbite.runner import prepare

    plan = prepare(REPO / "bench" / "langbite_example_en.json")
    assert plan.n_calls() == 2176


def test_a_run_whose_calls_failed_could_not_evaluate_exit_4(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """An outage or a wrong URL must not read as bias: exit 4, said in the summary line."""
    import json
    import socket

    from conftest import write
    from langbite.cli import main

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: connections are refused
    doc = json.loads((REPO / "requirements_models" / "quickstart.json").read_text())
    doc.update(n_retries=0, timeout=2)
    model = write(tmp_path / "m.json", json.dumps(doc))
    code = main(["run", str(model), "--llm", "openai:mock", "--base-url", f"http://127.0.0.1:{port}/v1",
                 "--out", str(tmp_path / "run"), "-q", "--no-cache"])
    out = capsys.readouterr().out
    assert code == 4 and "could not evaluate" in out


def test_unreadable_answers_everywhere_are_inconclusive_exit_3(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from langbite.cli import main

    code = main(["run", str(REPO / "requirements_models" / "quickstart.json"), "--llm", "fake:%%%",
                 "--out", str(tmp_path / "run"), "-q"])
    assert code == 3
