from __future__ import annotations

import json

import pytest
import Stemmer
from pydantic import ValidationError
from ragloom.analysis import ENGLISH_STOPWORDS, Analyzer, AnalyzerConfig
from ragloom.config import validate_config
from ragloom.errors import ConfigValidationError

from .conftest import basic_config


def test_stemming_maps_word_forms_to_one_term() -> None:
    analyzer = Analyzer()
    assert analyzer.analyze("pricing") == analyzer.analyze("prices") == ["price"]
    assert analyzer.analyze("Refunds refunded REFUNDING") == ["refund"] * 3


def test_english_stopwords_and_single_characters_are_dropped() -> None:
    analyzer = Analyzer()
    assert analyzer.analyze("the price of a plan is in the table") == ["price", "plan", "tabl"]
    assert analyzer.analyze("x y z") == []  # the default pattern wants 2+ characters
    assert "the" in ENGLISH_STOPWORDS and len(ENGLISH_STOPWORDS) == 33


def test_stopwords_none_and_own_list() -> None:
    assert Analyzer(stopwords="none").analyze("the plan") == ["the", "plan"]
    own = Analyzer(stopwords=["Plan", "Über"])
    assert own.analyze("the plan") == ["the"]  # own list replaces the built-in one
    assert own.analyze("über uber") == []  # the list is lowercased and folded too


def test_unicode_folding() -> None:
    analyzer = Analyzer()
    assert analyzer.analyze("café") == analyzer.analyze("cafe") == ["cafe"]
    assert analyzer.analyze("Crème Brûlée") == analyzer.analyze("creme brulee")
    assert analyzer.analyze("ﬁnal") == analyzer.analyze("final")  # NFKD ligature
    decomposed = "cafe\u0301"  # the same word in NFD form
    assert analyzer.analyze(decomposed) == ["cafe"]
    assert Analyzer(fold_unicode=False, stem=False).analyze("café cafe") == ["café", "cafe"]


def test_lowercase_option() -> None:
    assert Analyzer(stem=False).analyze("Apple APPLE") == ["apple", "apple"]
    assert Analyzer(stem=False, lowercase=False, stopwords="none").analyze("Apple APPLE") == [
        "Apple",
        "APPLE",
    ]


def test_german_stemming_and_no_builtin_stopwords() -> None:
    german = Analyzer(language="german")
    assert german.analyze("Häuser") == german.analyze("Haus") == ["haus"]
    assert "und" in german.analyze("Katzen und Hunde")  # no built-in German list
    own = Analyzer(language="german", stopwords=["und"])
    assert own.analyze("Katzen und Hunde") == german.analyze("Katzen Hunde")


def test_no_stemming() -> None:
    assert Analyzer(language="none").analyze("pricing prices") == ["pricing", "prices"]
    assert Analyzer(stem=False).analyze("pricing prices") == ["pricing", "prices"]
    assert Analyzer(language="none").analyze("the plan") == ["the", "plan"]  # no list for none


def test_min_token_length_and_token_pattern() -> None:
    assert Analyzer(min_token_length=4, stem=False).analyze("cat cats") == ["cats"]
    single = Analyzer(token_pattern=r"\w+", stopwords="none", stem=False)
    assert single.analyze("a b c") == ["a", "b", "c"]
    hyphens = Analyzer(token_pattern=r"[\w-]{2,}", stem=False)
    assert hyphens.analyze("AES-256 at rest") == ["aes-256", "rest"]


def test_analyze_many_and_cache_agree_with_analyze() -> None:
    texts = ["Pricing plans", "refunds within 30 days", "", "Pricing plans again"]
    cold = Analyzer().analyze_many(texts)
    fresh = Analyzer()
    assert cold == [fresh.analyze(t) for t in texts]
    assert fresh.analyze_many(texts) == cold  # warm cache, same answer


def test_fingerprint() -> None:
    base = Analyzer().fingerprint()
    assert base == Analyzer(AnalyzerConfig()).fingerprint()
    assert base["language"] == "english" and base["stemmer_version"]
    json.dumps(base)
    assert Analyzer(stem=False).fingerprint() != base
    assert Analyzer(stopwords=["plan"]).fingerprint()["stopwords"] == ["plan"]


def test_unknown_language_lists_the_stemmers() -> None:
    with pytest.raises(ValidationError) as info:
        AnalyzerConfig(language="englsh")
    message = str(info.value)
    assert "did you mean 'english'" in message
    for name in Stemmer.algorithms():
        assert name in message
    assert AnalyzerConfig(language="German").language == "german"


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"token_pattern": "(\\w+)"}, "capturing groups"),
        ({"token_pattern": "[a-"}, "not a valid regular expression"),
        ({"token_pattern": "\\w*"}, "empty string"),
        ({"min_token_length": 0}, "greater than or equal to 1"),
        ({"stopwords": "english"}, "stopwords"),
        ({"stemmer": "english"}, "Extra inputs"),
    ],
)
def test_bad_options(options: dict, match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        AnalyzerConfig(**options)


def test_config_check_reports_the_analyzer_path(registry) -> None:
    config = basic_config(
        stores=[{"type": "bm25", "analyzer": {"language": "klingon", "stem": True}}]
    )
    with pytest.raises(ConfigValidationError) as info:
        validate_config(config, registry, env={})
    issues = {i.path: i.message for i in info.value.issues}
    assert "stores[0].analyzer.language" in issues
    assert "unknown language 'klingon'" in issues["stores[0].analyzer.language"]
    assert "english" in issues["stores[0].analyzer.language"]


VERSIONS = r"(?u)\b\d+(?:\.\d+)+\b|\b\w\w+\b"
"""The pattern docs/config.md gives for software documentation."""


def test_the_documented_pattern_keeps_a_version_or_a_decimal_as_one_term() -> None:
    """With the default pattern "When was version 2.3.1 released?" gives bm25
    no term for the version (three single digits, each dropped)."""
    assert "2.3.1" not in Analyzer(AnalyzerConfig()).analyze("version 2.3.1")
    analyze = Analyzer(AnalyzerConfig(token_pattern=VERSIONS)).analyze
    assert analyze("When was version 2.3.1 released?") == ["when", "version", "2.3.1", "releas"]
    assert analyze("Python 3.8 and p < 0.05.") == ["python", "3.8", "0.05"]
    assert analyze("v2, 10 users, a.b.c") == ["v2", "10", "user"]  # as before otherwise


def test_bm25_finds_a_changelog_section_by_its_version(tmp_path) -> None:
    import ragloom

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "CHANGELOG.md").write_text(
        "# Changelog\n\n## 2.4.0 - 2026-09-14\n\n- Added the PagerDuty notifier.\n\n"
        "## 2.3.1 - 2026-06-02\n\n- Fixed a crash on an empty reading.\n\n"
        "## 2.3.0 - 2026-04-20\n\n- Added the max_feeds option.\n"
    )
    config = basic_config(
        chunker={"type": "markdown", "size": 200, "overlap": 0},
        stores=[{"type": "bm25", "analyzer": {"token_pattern": VERSIONS}}],
    )
    with ragloom.load(config, base_dir=tmp_path) as pipeline:
        pipeline.index()
        hits = pipeline.retrieve("2.3.1", k=1)
    assert hits and "2.3.1" in hits[0].chunk.text and "2.3.0" not in hits[0].chunk.text


def test_terms_of_made_up_words_are_not_remembered() -> None:
    analyzer = Analyzer(AnalyzerConfig())
    analyzer.analyze("Parking costs")
    known = dict(analyzer._terms)
    assert analyzer.terms_of(["parking", "PARKS", "the", "parkingz"]) == {
        "parking": "park",
        "parks": "park",
        "the": "",
        "parkingz": "parkingz",
    }
    assert analyzer._terms == known  # (the words of the texts are not crowded out)
