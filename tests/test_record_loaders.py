"""The built-in ``jsonl`` and ``csv`` loaders, on real files under ``tmp_path``."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from ragloom.builtin.loaders.records import CsvLoader, JsonlLoader
from ragloom.components import Context
from ragloom.errors import SourceUnavailableError
from ragloom.types import content_hash


class Reports(list):
    """Collects ``context.report`` calls as ``(source, message)`` pairs."""

    def __call__(self, source: str, message: str) -> None:
        self.append((source, message))

    def messages(self) -> list[str]:
        return [message for _, message in self]


@pytest.fixture
def reports() -> Reports:
    return Reports()


@pytest.fixture
def context(tmp_path: Path, reports: Reports) -> Context:
    return Context(base_dir=tmp_path, report=reports, index_dir=tmp_path / ".ragloom")


BEIR_LINES = [
    {
        "_id": "4983",
        "title": "Microstructural development of human newborn cerebral white matter "
        "assessed in vivo by diffusion tensor magnetic resonance imaging.",
        "text": "Alterations of the architecture of cerebral white matter in the developing "
        "human brain can affect cortical development and result in functional disabilities.",
        "metadata": {},
    },
    {
        "_id": "5836",
        "title": "Induction of myelodysplasia by myeloid-derived suppressor cells.",
        "text": "Myelodysplastic syndromes (MDS) are age-dependent stem cell malignancies "
        "that share biological features of activated adaptive immune response.",
        "metadata": {},
    },
    {
        "_id": "7912",
        "title": "",
        "text": "BC1 RNA, the transcript from a master gene for ID element amplification, "
        "is able to prime its own reverse transcription.",
        "metadata": {},
    },
]


def write_jsonl(path: Path, records: list, *, raw_lines: dict[int, str] | None = None) -> Path:
    lines = [json.dumps(r) for r in records]
    for index, raw in (raw_lines or {}).items():
        lines.insert(index, raw)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def load(loader: JsonlLoader | CsvLoader, context: Context) -> list:
    loader.open(context)
    return list(loader.load())


BEIR_OPTIONS = {"id_field": "_id", "title_field": "title", "text_fields": ["text"]}


# -- jsonl -------------------------------------------------------------------


def test_beir_corpus_line(tmp_path: Path, context: Context, reports: Reports) -> None:
    path = write_jsonl(tmp_path / "scifact" / "corpus.jsonl", BEIR_LINES)
    docs = load(JsonlLoader(path="scifact/corpus.jsonl", **BEIR_OPTIONS), context)
    assert [d.id for d in docs] == [
        "scifact/corpus.jsonl#4983",
        "scifact/corpus.jsonl#5836",
        "scifact/corpus.jsonl#7912",
    ]
    first = docs[0]
    title, text = BEIR_LINES[0]["title"], BEIR_LINES[0]["text"]
    assert first.text == f"{title}\n{text}"
    assert dict(first.metadata) == {
        "source": "scifact/corpus.jsonl",
        "path": str(path),
        "record_id": "4983",
        "line": 1,
        "content_hash": content_hash(first.text),
        "title": title,
    }
    assert first.source == "scifact/corpus.jsonl"
    # an empty title: the text alone, and no title in the metadata
    assert docs[2].text == BEIR_LINES[2]["text"] and "title" not in docs[2].metadata
    assert reports == []


def test_ids_are_stable_and_default_to_the_line_number(tmp_path: Path, context: Context) -> None:
    write_jsonl(
        tmp_path / "notes.jsonl", [{"text": "first"}, {"text": "second"}], raw_lines={1: ""}
    )
    docs = load(JsonlLoader(path="notes.jsonl"), context)
    assert [(d.id, d.metadata["line"], d.metadata["record_id"]) for d in docs] == [
        ("notes.jsonl#1", 1, "1"),
        ("notes.jsonl#3", 3, "3"),  # the blank line 2 is skipped silently, numbers stay
    ]
    assert [d.id for d in load(JsonlLoader(path="notes.jsonl"), context)] == [d.id for d in docs]


def test_text_fields_are_joined_and_empty_ones_skipped(tmp_path: Path, context: Context) -> None:
    write_jsonl(
        tmp_path / "faq.jsonl",
        [
            {"id": 17, "question": "Can I get a refund?", "answer": "Within 30 days.", "n": ""},
            {"id": 18, "question": "Is there a trial?", "answer": "   ", "n": None},
            {"id": 19, "question": "Tags?", "answer": ["one", "two"]},
        ],
    )
    docs = load(
        JsonlLoader(path="faq.jsonl", id_field="id", text_fields=["question", "n", "answer"]),
        context,
    )
    assert [d.id for d in docs] == ["faq.jsonl#17", "faq.jsonl#18", "faq.jsonl#19"]
    assert docs[0].text == "Can I get a refund?\n\nWithin 30 days."
    assert docs[1].text == "Is there a trial?"
    assert docs[2].text == "Tags?\n\none\ntwo"
    assert docs[0].metadata["record_id"] == "17"


def test_metadata_fields_listed_and_star(tmp_path: Path, context: Context) -> None:
    record = {
        "_id": "a1",
        "title": "Pricing",
        "text": "The Team plan costs $12.",
        "year": 2024,
        "tags": ["billing", "plans"],
        "draft": False,
        "extra": {"nested": [1, {"x": 2}]},
        "mixed": [1, {"y": 2}],
    }
    write_jsonl(tmp_path / "c.jsonl", [record])
    [listed] = load(JsonlLoader(path="c.jsonl", metadata_fields=["year", "tags", "nope"]), context)
    assert listed.metadata["year"] == 2024 and listed.metadata["tags"] == ["billing", "plans"]
    assert "nope" not in listed.metadata and "draft" not in listed.metadata

    [star] = load(JsonlLoader(path="c.jsonl", metadata_fields="*", **BEIR_OPTIONS), context)
    meta = dict(star.metadata)
    assert meta["year"] == 2024 and meta["draft"] is False and meta["tags"] == ["billing", "plans"]
    assert meta["extra"] == '{"nested": [1, {"x": 2}]}'  # not a JSON scalar: written as JSON
    assert meta["mixed"] == '[1, {"y": 2}]'
    assert meta["title"] == "Pricing" and "_id" not in meta and "text" not in meta
    # every metadata value is one a store can persist and a filter can read
    for value in meta.values():
        items = value if isinstance(value, list) else [value]
        assert all(isinstance(v, (str, int, float, bool, type(None))) for v in items)


def test_star_reports_fields_it_cannot_copy(tmp_path: Path, context: Context, reports: Reports):
    write_jsonl(
        tmp_path / "c.jsonl",
        [{"text": "one", "source": "crawler", "path": "/x"}, {"text": "two", "source": "crawler"}],
    )
    docs = load(JsonlLoader(path="c.jsonl", metadata_fields="*"), context)
    assert [d.metadata["source"] for d in docs] == ["c.jsonl", "c.jsonl"]
    assert len(reports) == 2  # once per field, not per record
    assert "'path' is not copied" in reports.messages()[0]
    assert "'source' is not copied" in reports.messages()[1]


def test_metadata_fields_may_not_shadow_loader_keys() -> None:
    with pytest.raises(ValidationError, match="source"):
        JsonlLoader(path="x.jsonl", metadata_fields=["source", "team"])
    with pytest.raises(ValidationError, match="appear twice"):
        JsonlLoader(path="x.jsonl", title_field="title", text_fields=["title", "text"])
    with pytest.raises(ValidationError, match="unknown encoding"):
        JsonlLoader(path="x.jsonl", encoding="utf-9")
    with pytest.raises(ValidationError):
        JsonlLoader(path="x.jsonl", text_fields=[])


def test_malformed_lines_are_reported_and_the_rest_loads(
    tmp_path: Path, context: Context, reports: Reports
) -> None:
    write_jsonl(
        tmp_path / "corpus.jsonl",
        BEIR_LINES,
        raw_lines={1: '{"_id": "9", "text": "unterminated', 3: "[1, 2, 3]"},
    )
    docs = load(JsonlLoader(path="corpus.jsonl", **BEIR_OPTIONS), context)
    assert [d.metadata["record_id"] for d in docs] == ["4983", "5836", "7912"]
    assert [d.metadata["line"] for d in docs] == [1, 3, 5]
    assert [s for s, _ in reports] == ["corpus.jsonl", "corpus.jsonl"]
    assert reports.messages()[0].startswith("line 2: not valid JSON")
    assert reports.messages()[1].startswith("line 4: a JSON list, not an object")


def test_bad_bytes_cost_one_line(tmp_path: Path, context: Context, reports: Reports) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"text": "caf\xc3\xa9"}\n{"text": "caf\xe9"}\n{"text": "ok"}\n')
    docs = load(JsonlLoader(path="c.jsonl"), context)
    assert [d.text for d in docs] == ["café", "ok"]
    assert reports.messages()[0].startswith("line 2: not valid utf-8 text")
    latin = load(JsonlLoader(path="c.jsonl", encoding="latin-1"), context)
    assert latin[1].text == "café"


def test_records_without_text_or_id_are_reported(
    tmp_path: Path, context: Context, reports: Reports
) -> None:
    write_jsonl(
        tmp_path / "c.jsonl",
        [
            {"_id": "1", "title": "", "text": ""},
            {"title": "no id", "text": "body"},
            {"_id": {"x": 1}, "text": "body"},
            {"_id": "  ", "text": "body"},
            {"_id": "5", "title": "Only a title"},
            {"_id": 6.5, "text": "numeric id"},
        ],
    )
    docs = load(JsonlLoader(path="c.jsonl", **BEIR_OPTIONS), context)
    assert [(d.metadata["record_id"], d.text) for d in docs] == [
        ("5", "Only a title"),
        ("6.5", "numeric id"),
    ]
    messages = reports.messages()
    assert messages[0] == "line 1: no text (field(s) text, title missing or empty); skipped"
    assert messages[1].startswith("line 2: id field '_id' is missing")
    assert messages[2].startswith("line 3: id field '_id' is a dict")
    assert messages[3].startswith("line 4: id field '_id' is empty")


def test_duplicate_ids_keep_the_first(tmp_path: Path, context: Context, reports: Reports) -> None:
    write_jsonl(
        tmp_path / "c.jsonl",
        [{"_id": "7", "text": "first"}, {"_id": "8", "text": "other"}, {"_id": 7, "text": "again"}],
    )
    docs = load(JsonlLoader(path="c.jsonl", id_field="_id"), context)
    assert [d.text for d in docs] == ["first", "other"]
    assert reports == [
        ("c.jsonl", "line 3: record id '7' was already used on line 1; kept the first")
    ]


def test_gzip(tmp_path: Path, context: Context, reports: Reports) -> None:
    with gzip.open(tmp_path / "corpus.jsonl.gz", "wt", encoding="utf-8") as f:
        for record in BEIR_LINES:
            f.write(json.dumps(record) + "\n")
    docs = load(JsonlLoader(path="corpus.jsonl.gz", **BEIR_OPTIONS), context)
    assert [d.id for d in docs] == [f"corpus.jsonl.gz#{r['_id']}" for r in BEIR_LINES]
    (tmp_path / "broken.jsonl.gz").write_bytes(gzip.compress(b'{"text": "a"}\n' * 50)[:40])
    load(JsonlLoader(path="broken.jsonl.gz"), context)
    assert reports and reports[-1][0] == "broken.jsonl.gz"
    assert reports[-1][1].startswith("cannot read file")


def test_missing_file_and_directory_are_unavailable(tmp_path: Path, context: Context) -> None:
    with pytest.raises(SourceUnavailableError, match="nope.jsonl: file not found"):
        load(JsonlLoader(path="nope.jsonl"), context)
    (tmp_path / "folder").mkdir()
    with pytest.raises(SourceUnavailableError, match="folder is a directory"):
        load(CsvLoader(path="folder"), context)


def test_utf8_bom_and_crlf(tmp_path: Path, context: Context) -> None:
    (tmp_path / "c.jsonl").write_bytes(
        b'\xef\xbb\xbf{"_id": "1", "text": "a\\r\\nb"}\r\n{"_id": "2", "text": "c"}\r\n'
    )
    docs = load(JsonlLoader(path="c.jsonl", id_field="_id"), context)
    assert [d.text for d in docs] == ["a\nb", "c"]


def test_ids_are_unique_across_files(tmp_path: Path, context: Context) -> None:
    write_jsonl(tmp_path / "a" / "corpus.jsonl", BEIR_LINES[:1])
    write_jsonl(tmp_path / "b" / "corpus.jsonl", BEIR_LINES[:1])
    ids = [
        d.id
        for folder in ("a", "b")
        for d in load(JsonlLoader(path=f"{folder}/corpus.jsonl", id_field="_id"), context)
    ]
    assert ids == ["a/corpus.jsonl#4983", "b/corpus.jsonl#4983"]


def test_with_sources(tmp_path: Path, context: Context) -> None:
    loader = JsonlLoader(path="data/corpus.jsonl")
    loader.open(context)
    assert loader.with_sources(["data/corpus.jsonl"]) is loader
    assert loader.with_sources(["data"]) is loader
    assert loader.with_sources([str(tmp_path / "data" / "corpus.jsonl")]) is loader
    assert loader.with_sources(["docs", "data/other.jsonl"]) is None


# -- csv ---------------------------------------------------------------------


FAQ_CSV = (
    "id,question,answer,category,updated\n"
    'faq-1,What plans are there?,"Free, Team and Enterprise.",pricing,2024-05-01\n'
    'faq-2,Is there a free trial?,"Yes: 14 days of the Team plan.\n'
    'No credit card needed.",pricing,2024-05-02\n'
    "\n"
    "faq-3,Where is data stored?,Frankfurt or Oregon.,security\n"
    "faq-4,Do you offer discounts?,50% off for non-profits.,pricing,2024-06-01\n"
)


def test_csv_rows(tmp_path: Path, context: Context, reports: Reports) -> None:
    path = tmp_path / "faq.csv"
    path.write_text(FAQ_CSV, "utf-8")
    docs = load(
        CsvLoader(
            path="faq.csv",
            id_field="id",
            title_field="question",
            text_fields=["answer"],
            metadata_fields=["category", "updated"],
        ),
        context,
    )
    assert [d.id for d in docs] == ["faq.csv#faq-1", "faq.csv#faq-2", "faq.csv#faq-4"]
    assert docs[0].text == "What plans are there?\nFree, Team and Enterprise."
    assert docs[1].text == (
        "Is there a free trial?\nYes: 14 days of the Team plan.\nNo credit card needed."
    )
    assert dict(docs[2].metadata) == {
        "source": "faq.csv",
        "path": str(path),
        "record_id": "faq-4",
        "row": 4,
        "content_hash": content_hash(docs[2].text),
        "title": "Do you offer discounts?",
        "category": "pricing",
        "updated": "2024-06-01",
    }
    # the short row (line 6, row 3) is reported with its line and skipped
    assert reports == [("faq.csv", "line 6 (row 3): 4 field(s), the header has 5; skipped")]


def test_csv_default_ids_delimiter_and_star(tmp_path: Path, context: Context) -> None:
    (tmp_path / "t.tsv").write_text(
        "\ufefftext\tlang\tscore\nHallo Welt\tde\t0.9\nHello world\ten\t0.7\n", "utf-8"
    )
    docs = load(CsvLoader(path="t.tsv", delimiter="\t", metadata_fields="*"), context)
    assert [d.id for d in docs] == ["t.tsv#1", "t.tsv#2"]
    assert docs[0].metadata["lang"] == "de" and docs[0].metadata["score"] == "0.9"
    assert docs[0].metadata["row"] == 1 and docs[0].text == "Hallo Welt"


def test_csv_header_problems_are_reported_once(
    tmp_path: Path, context: Context, reports: Reports
) -> None:
    (tmp_path / "a.csv").write_text("id,body\n1,x\n2,y\n", "utf-8")
    assert load(CsvLoader(path="a.csv"), context) == []
    assert load(CsvLoader(path="a.csv", id_field="key", text_fields=["body"]), context) == []
    (tmp_path / "dup.csv").write_text("text,text\n1,2\n", "utf-8")
    assert load(CsvLoader(path="dup.csv"), context) == []
    (tmp_path / "empty.csv").write_text("\n\n", "utf-8")
    assert load(CsvLoader(path="empty.csv"), context) == []
    messages = reports.messages()
    assert len(messages) == 4
    assert "none of the text fields (text) is a column" in messages[0]
    assert "id_field 'key' is not a column (the header has: id, body)" in messages[1]
    assert "more than once" in messages[2]
    assert messages[3] == "empty file (no header row); skipped"


def test_csv_options_are_validated() -> None:
    with pytest.raises(ValidationError):
        CsvLoader(path="a.csv", delimiter=";;")
    with pytest.raises(ValidationError):
        JsonlLoader(path="a.jsonl", delimiter=",")


def test_loaders_in_a_pipeline(tmp_path: Path, pm) -> None:
    """Through the registry and a pipeline: indexed, searchable, incremental."""
    import ragloom
    from ragloom.hookspecs import hookimpl
    from ragloom.registry import Registry

    if ("loader", "jsonl") not in Registry.from_plugin_manager(pm):

        class RecordLoaders:
            @hookimpl
            def register_loaders(self, register) -> None:
                register("jsonl", JsonlLoader)
                register("csv", CsvLoader)

        pm.register(RecordLoaders(), name="test-record-loaders")

    write_jsonl(tmp_path / "corpus.jsonl", BEIR_LINES)
    (tmp_path / "faq.csv").write_text(FAQ_CSV, "utf-8")
    config = {
        "loaders": [
            {"type": "jsonl", "path": "corpus.jsonl", **BEIR_OPTIONS},
            {"type": "csv", "path": "faq.csv", "id_field": "id", "text_fields": ["answer"]},
        ],
        "embedder": {"type": "hash", "dimension": 128},
        "stores": [{"type": "memory"}, {"type": "bm25"}],
    }
    with ragloom.load(config, plugin_manager=pm, base_dir=tmp_path) as pipeline:
        report = pipeline.index()
        assert len(report.added) == 6
        assert report.problems == (
            ("faq.csv", "line 6 (row 3): 4 field(s), the header has 5; skipped"),
        )
        hits = pipeline.retrieve("myelodysplastic syndromes stem cell", k=1)
        assert hits[0].chunk.metadata["record_id"] == "5836"
        # a citation names the record, not "#chunk-0" as every record's did
        assert hits[0].chunk.label == "corpus.jsonl#5836"
        labels = {h.chunk.label for h in pipeline.retrieve("plans trial discounts", k=10)}
        assert {label for label in labels if label.startswith("faq.csv#")} == {
            "faq.csv#faq-1",
            "faq.csv#faq-2",
            "faq.csv#faq-4",
        }
        assert pipeline.index().unchanged == 6


def test_field_labels_name_each_text_column(tmp_path: Path) -> None:
    """A price list's bare values (``249.00``, ``12``) said nothing of what
    they were: neither search nor an answer could tell price from stock."""
    (tmp_path / "prices.csv").write_text(
        "sku,product,price_eur,stock\nVC-300,Nimbus Vacuum,249.00,12\n", encoding="utf-8"
    )
    options = {
        "path": "prices.csv",
        "id_field": "sku",
        "title_field": "product",
        "text_fields": ["sku", "price_eur", "stock"],
    }
    texts = []
    for labels in (False, True):
        loader = CsvLoader(**options, field_labels=labels)
        loader.open(Context(base_dir=tmp_path))
        texts.append([d.text for d in loader.load()])
    assert texts[0] == ["Nimbus Vacuum\nVC-300\n\n249.00\n\n12"]
    assert texts[1] == ["Nimbus Vacuum\nsku: VC-300\n\nprice_eur: 249.00\n\nstock: 12"]
