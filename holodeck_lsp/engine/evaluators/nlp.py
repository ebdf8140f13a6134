"""`bleu`, `rouge` and `meteor`: text-overlap scores in [0, 1] between the response and the
ground truth, computed by the usual libraries — installed with the `nlp` extra
(`pip install 'holodeck-lsp[nlp]'`) and imported only when such a metric runs.

- `bleu`: sacrebleu's sentence BLEU (default `13a` tokenizer, exponential smoothing,
  effective n-gram order so short answers are not zeroed), divided by 100.
- `rouge`: ROUGE-L F1 from Google's `rouge-score` with Porter stemming. Its reference
  tokenizer drops every character outside a–z / 0–9, so non-English text scored 0; here
  tokens are runs of Unicode letters and digits (identical for ASCII text), lower-cased,
  words longer than three letters stemmed.
- `meteor`: NLTK's `single_meteor_score` over word/punctuation tokens (a regular
  expression: NLTK's own tokenizer needs the `punkt` data). METEOR's synonym stage needs
  the WordNet corpus, which is never downloaded at run time, so it is replaced by a
  WordNet with no synonyms: only exact and stem matches count, and scores can be a little
  lower than METEOR with WordNet. The result's `reasoning` says so.

A metric passes when its score ≥ `threshold`, 0.5 unless set. A library that is not
installed fails the metric with an `error` naming the extra to install.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from holodeck_lsp.engine.evaluators._common import failed_result, pass_mark
from holodeck_lsp.engine.evaluators.response_path import text_to_grade
from holodeck_lsp.schema.metrics import StandardMetric
from holodeck_lsp.schema.results import MetricResult

INSTALL_HINT = "pip install 'holodeck-lsp[nlp]'"
METEOR_NOTE = (
    "METEOR without WordNet synonyms (exact and stem matches only): the WordNet corpus "
    "is not downloaded at run time"
)

_WORDS = re.compile(r"[^\W_]+")
_WORDS_AND_PUNCTUATION = re.compile(r"\w+|[^\w\s]")


class NLPUnavailable(RuntimeError):
    """The library a metric needs is not installed."""

    def __init__(self, metric: str, package: str) -> None:
        super().__init__(
            f"{metric} needs the {package} package, which is not installed: {INSTALL_HINT}"
        )


@cache
def _bleu_scorer() -> Any:
    try:
        from sacrebleu.metrics.bleu import BLEU
    except ImportError:
        raise NLPUnavailable("bleu", "sacrebleu") from None
    return BLEU(effective_order=True)


def bleu(response: str, reference: str) -> float:
    """Sentence BLEU of `response` against `reference`, in [0, 1]."""
    score = float(_bleu_scorer().sentence_score(response, [reference]).score) / 100.0
    return min(1.0, max(0.0, score))


class _UnicodeWordTokenizer:
    """rouge-score's tokenizer, but keeping letters and digits of every script."""

    def __init__(self, stem: Callable[[str], str]) -> None:
        self._stem = stem

    def tokenize(self, text: str) -> list[str]:
        return [
            self._stem(word) if len(word) > 3 else word for word in _WORDS.findall(text.lower())
        ]


@cache
def _rouge_scorer() -> Any:
    try:
        from nltk.stem.porter import PorterStemmer  # type: ignore[import-untyped]
        from rouge_score import rouge_scorer  # type: ignore[import-untyped]
    except ImportError:
        raise NLPUnavailable("rouge", "rouge-score") from None
    stemmer = PorterStemmer()
    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=_UnicodeWordTokenizer(stemmer.stem))


def rouge(response: str, reference: str) -> float:
    """ROUGE-L F1 of `response` against `reference`, with stemming, in [0, 1]."""
    return float(_rouge_scorer().score(reference, response)["rougeL"].fmeasure)


class _NoSynonyms:
    """Stands in for NLTK's WordNet reader: every word has no synsets."""

    def synsets(self, *_args: object, **_kwargs: object) -> list[Any]:
        return []


@cache
def _meteor_function() -> Callable[..., float]:
    try:
        from nltk.translate.meteor_score import (  # type: ignore[import-untyped]
            single_meteor_score,
        )
    except ImportError:
        raise NLPUnavailable("meteor", "nltk") from None
    function: Callable[..., float] = single_meteor_score
    return function


def meteor(response: str, reference: str) -> float:
    """METEOR of `response` against `reference` (exact and stem matches only), in [0, 1]."""
    score = _meteor_function()(
        _WORDS_AND_PUNCTUATION.findall(reference),
        _WORDS_AND_PUNCTUATION.findall(response),
        wordnet=_NoSynonyms(),
    )
    return float(score)


SCORERS: dict[str, Callable[[str, str], float]] = {"bleu": bleu, "rouge": rouge, "meteor": meteor}


def evaluate_nlp(metric: StandardMetric, response: str, ground_truth: str) -> MetricResult:
    """Grade `response` against `ground_truth` with the metric's overlap score."""
    threshold = pass_mark(metric)
    graded = text_to_grade(metric, response, threshold)
    if isinstance(graded, MetricResult):
        return graded
    response = graded
    try:
        score = SCORERS[metric.metric](response, ground_truth)
    except NLPUnavailable as error:
        return failed_result(metric, str(error), threshold)
    return MetricResult(
        metric_name=metric.metric,
        kind="standard",
        score=score,
        threshold=threshold,
        passed=score >= threshold,
        reasoning=METEOR_NOTE if metric.metric == "meteor" else None,
    )
