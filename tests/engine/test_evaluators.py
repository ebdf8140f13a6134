"""Built-in metrics: the SC-008 acceptance matrix for `equality` / `numeric`, error messages
that name the side, `response_path`, the NLP overlap metrics, and the skip rules."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from holodeck_lsp.engine.evaluators import (
    GROUND_TRUTH_METRICS,
    NotANumber,
    evaluate_metric,
    parse_number,
)
from holodeck_lsp.engine.evaluators import nlp as nlp_module
from holodeck_lsp.schema.metrics import GEvalMetric, RAGMetric, StandardMetric

NNBSP = "\u202f"
NBSP = "\u00a0"


def standard(metric: str, **flags: Any) -> StandardMetric:
    return StandardMetric.model_validate({"type": "standard", "metric": metric, **flags})


# (id, metric, flags, response, ground truth, passes)
MATRIX: list[tuple[str, str, dict[str, Any], str, str, bool]] = [
    # --- equality: strict by default, each flag relaxes one thing
    ("exact-match", "equality", {}, "25587", "25587", True),
    ("exact-mismatch", "equality", {}, "25587", "25588", False),
    ("case-without-flag", "equality", {}, "yes", "Yes", False),
    ("case-with-flag", "equality", {"case_insensitive": True}, "YES", "Yes", True),
    ("whitespace-without-flag", "equality", {}, "  net   income\n", "net income", False),
    (
        "whitespace-with-flag",
        "equality",
        {"strip_whitespace": True},
        "  net \t  income\n",
        "net income",
        True,
    ),
    ("punctuation-without-flag", "equality", {}, "Yes!", "Yes", False),
    ("punctuation-with-flag", "equality", {"strip_punctuation": True}, "Yes!", "Yes", True),
    ("flags-do-not-cross", "equality", {"strip_punctuation": True}, "yes", "Yes", False),
    (
        "all-flags",
        "equality",
        {"case_insensitive": True, "strip_whitespace": True, "strip_punctuation": True},
        " Net, income. ",
        "net income",
        True,
    ),
    # US4 acceptance scenario 1 (ground truth "Yes", response "yes."); the trailing period
    # needs strip_punctuation, since equality is strict unless told otherwise (FR-018).
    (
        "us4-1",
        "equality",
        {"case_insensitive": True, "strip_punctuation": True},
        "yes.",
        "Yes",
        True,
    ),
    ("us4-1-without-case-flag", "equality", {"strip_punctuation": True}, "yes.", "Yes", False),
    ("us4-1-period-is-punctuation", "equality", {"case_insensitive": True}, "yes.", "Yes", False),
    # --- numeric: integer vs float
    ("int-vs-float", "numeric", {}, "25587.0", "25587", True),
    ("float-vs-int", "numeric", {}, "25587", "25587.00", True),
    ("wrong-number", "numeric", {}, "25000", "25587", False),
    ("float-noise-within-default", "numeric", {}, "0.30000000000000004", "0.3", True),
    ("surrounding-whitespace", "numeric", {}, " 25587\n", "25587", True),
    ("unicode-minus", "numeric", {}, "\u22125.5", "-5.5", True),
    # --- percent suffix
    ("percent-with-flag", "numeric", {"accept_percent": True}, "14.1%", "0.141", True),
    ("percent-without-flag", "numeric", {}, "14.1%", "0.141", False),
    ("percent-in-ground-truth", "numeric", {"accept_percent": True}, "0.141", "14.1%", True),
    ("percent-both-sides", "numeric", {"accept_percent": True}, "-21.08 %", "-21.08%", True),
    ("percent-is-not-points", "numeric", {"accept_percent": True}, "14.1", "14.1%", False),
    # US4 acceptance scenario 2 (ground truth "0.14136", response "14.14%", tolerance 0.01,
    # "with percent handling": accept_percent is false unless set, FR-018).
    (
        "us4-2",
        "numeric",
        {"absolute_tolerance": 0.01, "accept_percent": True},
        "14.14%",
        "0.14136",
        True,
    ),
    ("us4-2-without-percent", "numeric", {"absolute_tolerance": 0.01}, "14.14%", "0.14136", False),
    ("us4-2-default-tolerance", "numeric", {"accept_percent": True}, "14.14%", "0.14136", False),
    # --- thousands separators
    (
        "thousands-with-flag",
        "numeric",
        {"accept_thousands_separators": True},
        "25,587",
        "25587",
        True,
    ),
    ("thousands-without-flag", "numeric", {}, "25,587", "25587", False),
    ("underscore-without-flag", "numeric", {}, "25_587", "25587", False),
    (
        "narrow-nbsp",
        "numeric",
        {"accept_thousands_separators": True},
        f"1{NNBSP}234{NNBSP}567.5",
        "1234567.5",
        True,
    ),
    ("nbsp", "numeric", {"accept_thousands_separators": True}, f"25{NBSP}587", "25587", True),
    ("decimal-comma", "numeric", {"accept_thousands_separators": True}, "25,5", "25.5", False),
    (
        "mixed-separators",
        "numeric",
        {"accept_thousands_separators": True},
        "1,234_567",
        "1234567",
        False,
    ),
    (
        "thousands-and-percent",
        "numeric",
        {"accept_thousands_separators": True, "accept_percent": True},
        "1,250%",
        "12.5",
        True,
    ),
    # --- absolute vs relative tolerance
    ("absolute-within", "numeric", {"absolute_tolerance": 5}, "25590", "25587", True),
    ("absolute-beyond", "numeric", {"absolute_tolerance": 5}, "25593", "25587", False),
    ("relative-within", "numeric", {"relative_tolerance": 0.01}, "25800", "25587", True),
    ("relative-beyond", "numeric", {"relative_tolerance": 0.01}, "25900", "25587", False),
    (
        "either-tolerance-suffices",
        "numeric",
        {"absolute_tolerance": 0.5, "relative_tolerance": 0.01},
        "1.009",
        "1",
        True,
    ),
    ("relative-of-zero", "numeric", {"relative_tolerance": 0.5}, "0.001", "0", False),
    # --- the boundary is inclusive, on both sides and for negative numbers (exact decimals)
    ("at-tolerance-below", "numeric", {"absolute_tolerance": 0.01}, "99.99", "100", True),
    ("at-tolerance-above", "numeric", {"absolute_tolerance": 0.01}, "100.01", "100", True),
    ("just-past-tolerance", "numeric", {"absolute_tolerance": 0.01}, "99.989", "100", False),
    ("negative-at-tolerance", "numeric", {"absolute_tolerance": 0.01}, "-1.49", "-1.5", True),
    ("negative-past-tolerance", "numeric", {"absolute_tolerance": 0.01}, "-1.52", "-1.5", False),
    ("relative-at-bound", "numeric", {"relative_tolerance": 0.01}, "-202", "-200", True),
    ("zero-tolerance", "numeric", {"absolute_tolerance": 0}, "0.1", "0.10", True),
    (
        "zero-tolerance-noise",
        "numeric",
        {"absolute_tolerance": 0},
        "0.30000000000000004",
        "0.3",
        False,
    ),
]


@pytest.mark.parametrize(
    ("metric", "flags", "response", "ground_truth", "passes"),
    [row[1:] for row in MATRIX],
    ids=[row[0] for row in MATRIX],
)
def test_sc008_matrix(
    metric: str, flags: dict[str, Any], response: str, ground_truth: str, passes: bool
) -> None:
    result = evaluate_metric(standard(metric, **flags), response, ground_truth)
    assert result.passed is passes, (result.reasoning, result.error)
    assert result.score == (1.0 if passes else 0.0)
    assert result.threshold == 1.0
    assert result.metric_name == metric and result.kind == "standard"
    assert not result.skipped
    if passes:
        assert result.error is None
    assert isinstance(result.evaluation_time_ms, int) and result.evaluation_time_ms >= 0


def test_the_matrix_covers_sc008() -> None:
    assert len(MATRIX) >= 15
    ids = {row[0] for row in MATRIX}
    assert len(ids) == len(MATRIX)


@pytest.mark.parametrize(
    ("response", "ground_truth", "flags", "error"),
    [
        (
            "about 25 thousand",
            "25587",
            {},
            'agent response "about 25 thousand" is not a number',
        ),
        ("25587", "14.1%", {}, 'ground truth "14.1%" has a % sign; set accept_percent: true'),
        (
            "25,587",
            "25587",
            {},
            'agent response "25,587" has thousands separators; '
            "set accept_thousands_separators: true",
        ),
        ("", "1", {}, "agent response is empty"),
        ("1", "no", {}, 'ground truth "no" is not a number'),
        ("nan", "1", {}, 'agent response "nan" is not a number'),
        ("inf", "1", {}, 'agent response "inf" is not a number'),
        ("0x1A", "26", {}, 'agent response "0x1A" is not a number'),
        ("$25,587", "25587", {"accept_thousands_separators": True}, "agent response"),
    ],
)
def test_an_unreadable_side_fails_naming_the_side(
    response: str, ground_truth: str, flags: dict[str, Any], error: str
) -> None:
    result = evaluate_metric(standard("numeric", **flags), response, ground_truth)
    assert result.passed is False and result.score == 0.0 and not result.skipped
    assert result.error is not None and result.error.startswith(error), result.error


def test_both_sides_unreadable_are_both_named() -> None:
    result = evaluate_metric(standard("numeric"), "lots", "14.1%")
    assert result.error is not None
    assert 'agent response "lots" is not a number' in result.error
    assert 'ground truth "14.1%" has a % sign' in result.error


def test_a_sentence_is_not_read_as_its_number() -> None:
    result = evaluate_metric(
        standard("numeric", accept_thousands_separators=True), "The answer is 25,587.", "25587"
    )
    assert result.passed is False
    assert result.error is not None
    assert result.error.startswith('agent response "The answer is 25,587." is not a number')
    assert "response_path" in result.error


def test_a_decimal_comma_is_explained() -> None:
    result = evaluate_metric(standard("numeric", accept_thousands_separators=True), "1,5", "1.5")
    assert result.error is not None and "groups of three digits" in result.error


@pytest.mark.parametrize(
    ("response", "ground_truth", "flags"),
    [
        ("٢٥٥٨٧", "25587", {}),  # Arabic-Indic digits, read as Python's float() reads them
        ("२५५८७.५", "25587.5", {}),  # Devanagari
        ("١٤.١٤%", "0.1414", {"accept_percent": True}),
        ("٢٥,٥٨٧", "25587", {"accept_thousands_separators": True}),
    ],
)
def test_numbers_in_other_digit_scripts_are_read(
    response: str, ground_truth: str, flags: dict[str, Any]
) -> None:
    assert float(response.rstrip("%").replace(",", "")) > 0  # what upstream's float() reads
    result = evaluate_metric(standard("numeric", **flags), response, ground_truth)
    assert result.passed is True, result.error


def test_other_digit_scripts_keep_the_separator_rules() -> None:
    with pytest.raises(NotANumber, match="groups of three digits"):
        parse_number("١,٥", accept_thousands_separators=True)
    with pytest.raises(NotANumber, match="accept_thousands_separators"):
        parse_number("٢٥,٥٨٧")


def test_parse_number_is_exact() -> None:
    assert str(parse_number("14.14%", accept_percent=True)) == "0.1414"
    assert str(parse_number("1_234.50", accept_thousands_separators=True)) == "1234.50"
    with pytest.raises(NotANumber):
        parse_number("25_587")  # Python's float() would read it


def test_reasoning_shows_the_comparison() -> None:
    passed = evaluate_metric(
        standard("numeric", absolute_tolerance=0.01, accept_percent=True), "14.14%", "0.14136"
    )
    assert passed.reasoning == "|0.1414 − 0.14136| = 0.00004 ≤ absolute_tolerance 0.01"
    failed = evaluate_metric(standard("numeric", relative_tolerance=0.01), "203", "200")
    assert failed.reasoning is not None and "> relative_tolerance 0.01 × |200| = 2" in (
        failed.reasoning
    )


def test_equality_failure_names_the_flags_that_would_match() -> None:
    result = evaluate_metric(standard("equality", case_insensitive=True), "yes.", "Yes")
    assert result.reasoning == '"yes." ≠ "yes"; equal with strip_punctuation: true'
    strict = evaluate_metric(standard("equality"), "Yes\n", "Yes")
    assert strict.reasoning is not None and strict.reasoning.endswith(
        "equal with strip_whitespace: true"
    )


def test_equality_threshold_is_configurable() -> None:
    result = evaluate_metric(standard("equality", threshold=0.0), "a", "b")
    assert result.score == 0.0 and result.passed is True and result.threshold == 0.0


# --- response_path


@pytest.mark.parametrize(
    ("metric", "path", "response", "ground_truth"),
    [
        ("numeric", "answer", '{"answer": 25587.0}', "25587"),
        ("numeric", "result.value", '{"result": {"value": "14.1%"}}', "14.1%"),
        ("numeric", "items[1].score", '{"items": [{"score": 1}, {"score": 2.5}]}', "2.5"),
        ("numeric", "answer", '```json\n{"answer": 7}\n```', "7"),
        ("equality", "answer", '{"answer": "Yes", "why": "because"}', "Yes"),
        # Leaves are read with str(), as upstream reads them (its tests pin this text).
        ("equality", "ok", '{"ok": true}', "True"),
        ("equality", "ok", '{"ok": false}', "False"),
        ("equality", "answer", '{"answer": null}', "None"),
        ("equality", "answer", '{"answer": 1e-07}', "1e-07"),
    ],
)
def test_response_path_grades_one_leaf(
    metric: str, path: str, response: str, ground_truth: str
) -> None:
    flags: dict[str, Any] = {"response_path": path}
    if metric == "numeric":
        flags["accept_percent"] = True
    result = evaluate_metric(standard(metric, **flags), response, ground_truth)
    assert result.passed is True, (result.error, result.reasoning)


def test_response_path_leaves_are_not_json_spellings() -> None:
    # `true` / `null` (JSON's text) no longer equal a true / null leaf: upstream compares
    # `True` / `None`, and a verdict must not flip between the two tools.
    for response, json_text in (('{"ok": true}', "true"), ('{"ok": null}', "null")):
        result = evaluate_metric(standard("equality", response_path="ok"), response, json_text)
        assert result.passed is False


@pytest.mark.parametrize(
    ("path", "response", "error"),
    [
        ("answer", "The answer is 7", "the agent response is not JSON"),
        ("result.value", '{"result": {"val": 7}}', 'no key "value" in result (keys: "val")'),
        ("items[2]", '{"items": [1, 2]}', "items has 2 item(s), no [2]"),
        ("answer.value", '{"answer": 7}', "answer is a number, not an object"),
        ("answer", '{"answer": [7]}', "answer is an array, not a single value"),
    ],
)
def test_response_path_errors(path: str, response: str, error: str) -> None:
    for metric in ("numeric", "equality"):
        result = evaluate_metric(standard(metric, response_path=path), response, "7")
        assert result.passed is False and result.score == 0.0
        assert result.error is not None
        assert result.error.startswith(f'response_path "{path}": ')
        assert error in result.error


# --- NLP overlap metrics

SENTENCE = "The company's net income rose to 25,587 million dollars in 2009."
PARAPHRASE = "In 2009 the company's net income increased to 25,587 million dollars."
UNRELATED = "Quantum chromodynamics describes how quarks bind inside protons."


@pytest.mark.parametrize("metric", ["bleu", "rouge", "meteor"])
def test_nlp_scores_are_sane(metric: str) -> None:
    same = evaluate_metric(standard(metric), SENTENCE, SENTENCE)
    close = evaluate_metric(standard(metric), PARAPHRASE, SENTENCE)
    far = evaluate_metric(standard(metric), UNRELATED, SENTENCE)
    assert same.error is None and close.error is None and far.error is None
    # METEOR's fragmentation penalty keeps even identical text a hair under 1.
    assert same.score == (pytest.approx(1.0, abs=0.01) if metric == "meteor" else 1.0)
    assert far.score < 0.15 < close.score < same.score
    assert same.passed is True and far.passed is False
    assert same.threshold == 0.5 and same.metric_name == metric and same.kind == "standard"


def test_meteor_says_it_runs_without_wordnet() -> None:
    result = evaluate_metric(standard("meteor"), "the cats sat", "the cat sat")
    assert result.reasoning is not None and "WordNet" in result.reasoning
    assert result.score > 0.5  # "cats" matches "cat" by stem


def test_rouge_reads_non_ascii_words() -> None:
    result = evaluate_metric(standard("rouge"), "Straße gesperrt", "straße gesperrt")
    assert result.score == 1.0


def test_nlp_threshold_is_configurable() -> None:
    result = evaluate_metric(standard("rouge", threshold=0.9), PARAPHRASE, SENTENCE)
    assert result.threshold == 0.9 and result.passed is False


def test_a_missing_nlp_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sacrebleu", None)
    monkeypatch.setitem(sys.modules, "sacrebleu.metrics", None)
    monkeypatch.setitem(sys.modules, "sacrebleu.metrics.bleu", None)
    nlp_module._bleu_scorer.cache_clear()
    try:
        result = evaluate_metric(standard("bleu"), "a", "a")
    finally:
        nlp_module._bleu_scorer.cache_clear()
    assert result.passed is False and result.score == 0.0
    assert result.error is not None
    assert "sacrebleu" in result.error and "pip install 'holodeck-lsp[nlp]'" in result.error


def test_nlp_libraries_are_imported_lazily() -> None:
    code = (
        "import sys, holodeck_lsp.engine.evaluators\n"
        "print(sorted(m for m in ('sacrebleu', 'nltk', 'rouge_score') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- skips and failures before grading


@pytest.mark.parametrize(
    ("metric", "name", "kind"),
    [
        (standard("relevance"), "relevance", "standard"),
        (standard("groundedness", threshold=0.7), "groundedness", "standard"),
        (GEvalMetric(name="Helpfulness", criteria="Is it helpful?"), "Helpfulness", "geval"),
        (RAGMetric.model_validate({"metric_type": "faithfulness"}), "faithfulness", "rag"),
    ],
)
def test_llm_judged_metrics_are_skipped(
    metric: StandardMetric | GEvalMetric | RAGMetric, name: str, kind: str
) -> None:
    for ground_truth in ("expected", None):
        result = evaluate_metric(metric, "an answer", ground_truth, ["some context"])
        assert result.skipped and result.passed is None
        assert result.metric_name == name and result.kind == kind
        assert result.reasoning is not None
        assert "needs an LLM judge, and no judge was given" in result.reasoning


@pytest.mark.parametrize(
    "metric",
    [
        standard("numeric", enabled=False),
        standard("relevance", enabled=False),
        GEvalMetric(name="Tone", criteria="Polite?", enabled=False),
    ],
)
def test_disabled_metrics_are_skipped(metric: StandardMetric | GEvalMetric) -> None:
    result = evaluate_metric(metric, "2", "1")
    assert result.skipped and result.passed is None and result.reasoning == "disabled"


@pytest.mark.parametrize("name", sorted(GROUND_TRUTH_METRICS))
def test_ground_truth_metrics_skip_turns_without_one(name: str) -> None:
    result = evaluate_metric(standard(name), "anything", None)
    assert result.skipped and result.passed is None
    assert result.reasoning == "no ground_truth on this turn"
    assert result.error is None


@pytest.mark.parametrize("name", sorted(GROUND_TRUTH_METRICS))
def test_no_response_fails(name: str) -> None:
    result = evaluate_metric(standard(name), None, "25587")
    assert result.passed is False and result.score == 0.0 and not result.skipped
    assert result.error == "no response"
