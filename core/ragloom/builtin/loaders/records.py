"""The ``jsonl`` and ``csv`` loaders: one document per record of a data file.

    loaders:
      - type: jsonl
        path: corpus.jsonl            # or corpus.jsonl.gz
        id_field: _id
        title_field: title
        text_fields: [text]
      - type: csv
        path: faq.csv
        id_field: id
        text_fields: [question, answer]
        metadata_fields: [category]

Both share :class:`RecordOptions` and :func:`record_document`, so a record
becomes the same document whichever file format held it. A bad record (a line
that is not JSON, a row with the wrong number of fields, a record without
text or id, a duplicate id) is reported through ``context.report`` with its
line number and skipped; the rest of the file loads.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
import logging
import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import Field, field_validator, model_validator

from ...components import ComponentConfig, Context, Loader
from ...errors import SourceUnavailableError
from ...types import Document, content_hash
from ._files import absolute, covered, path_text, source_id

__all__ = [
    "RECORD_METADATA",
    "CsvLoader",
    "JsonlLoader",
    "RecordOptions",
    "record_document",
]

log = logging.getLogger(__name__)

RECORD_METADATA = frozenset({"source", "path", "record_id", "line", "row", "content_hash"})
"""Metadata keys the record loaders set themselves; ``metadata_fields`` may not name them."""

_JSON_SCALARS = (str, int, float, bool, type(None))


class RecordOptions(ComponentConfig):
    """Options shared by the record loaders.

    ``id_field`` names the field holding the record's id (None: the line or row
    number); ``text_fields`` are joined with a blank line; ``title_field``
    becomes ``metadata.title`` and the first line of the text;
    ``metadata_fields`` are copied into the metadata (``"*"``: every field not
    used for the id, text or title); ``field_labels`` writes each text field
    as ``name: value`` (a price list's ``price: 249.00``, which bare values
    would leave unnamed).
    """

    path: str
    id_field: str | None = None
    text_fields: list[str] = Field(default_factory=lambda: ["text"], min_length=1)
    title_field: str | None = None
    metadata_fields: list[str] | Literal["*"] = Field(default_factory=list)
    field_labels: bool = False
    encoding: str = "utf-8"

    @field_validator("encoding")
    @classmethod
    def _known_encoding(cls, value: str) -> str:
        try:
            codecs.lookup(value)
        except LookupError:
            raise ValueError(
                f"unknown encoding {value!r}; use a Python codec name such as "
                "'utf-8', 'utf-8-sig' or 'latin-1'"
            ) from None
        return value

    @field_validator("metadata_fields")
    @classmethod
    def _not_reserved(cls, value: list[str] | str) -> list[str] | str:
        if isinstance(value, list):
            reserved = sorted(RECORD_METADATA.intersection(value))
            if reserved:
                raise ValueError(
                    f"metadata field(s) {', '.join(reserved)} would overwrite metadata the "
                    "loader sets itself; rename the field in the file, or leave it out"
                )
        return value

    @model_validator(mode="after")
    def _title_not_twice(self) -> RecordOptions:
        if self.title_field is not None and self.title_field in self.text_fields:
            raise ValueError(
                f"title_field {self.title_field!r} is also in text_fields, so the title "
                "would appear twice; list it in only one of them"
            )
        if (
            self.title_field is not None
            and isinstance(self.metadata_fields, list)
            and "title" in self.metadata_fields
        ):
            raise ValueError(
                "metadata_fields names 'title', but title_field already sets metadata.title; "
                "leave 'title' out of metadata_fields"
            )
        return self


class _RecordLoader(Loader):
    """What the ``jsonl`` and ``csv`` loaders share: the file, ids and ``with_sources``."""

    config: RecordOptions
    number_key = "line"

    def load(self) -> Iterator[Document]:
        path = absolute(self.context.resolve(self.config.path))
        source = source_id(path, self.context)
        if path.is_dir():
            raise SourceUnavailableError(
                f"{source} is a directory, not a file; give the data file itself"
            )
        if not path.is_file():
            raise SourceUnavailableError(
                f"{source}: file not found; check `path:` (relative paths resolve against "
                f"{absolute(self.context.base_dir)})"
            )
        seen: dict[str, int] = {}
        left_out: set[str] = set()
        try:
            for number, record in self._records(path, source):
                self._report_left_out(record, source, left_out)
                document = record_document(
                    record,
                    self.config,
                    source=source,
                    path=path,
                    number=number,
                    number_key=self.number_key,
                    context=self.context,
                )
                if document is None:
                    continue
                record_id = document.metadata["record_id"]
                if record_id in seen:
                    self.context.report(
                        source,
                        f"{self.number_key} {number}: record id {record_id!r} was already "
                        f"used on {self.number_key} {seen[record_id]}; kept the first",
                    )
                    continue
                seen[record_id] = number
                yield document
        except (OSError, EOFError, zlib.error) as exc:  # includes a truncated or corrupt .gz
            # the records after the break are unknown: keep what the index holds of the file
            self.context.report_unreadable(
                source,
                f"cannot read file: {getattr(exc, 'strerror', None) or exc}; the records "
                "not read are kept as indexed",
            )

    def _report_left_out(self, record: Mapping[str, Any], source: str, done: set[str]) -> None:
        """With ``metadata_fields: "*"``, say once per file which fields are not
        copied because the loader sets a metadata key of that name itself."""
        if self.config.metadata_fields != "*":
            return
        c = self.config
        used = {c.id_field, c.title_field, *c.text_fields}
        for name in sorted(RECORD_METADATA.intersection(record).difference(done, used)):
            done.add(name)
            self.context.report(
                source,
                f"field {name!r} is not copied into the metadata: the loader sets "
                f"metadata.{name} itself (the records load; list the fields you need "
                "in metadata_fields to silence this)",
            )

    def _records(self, path: Path, source: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
        raise NotImplementedError

    def with_sources(self, sources: Sequence[str]) -> _RecordLoader | None:
        """This loader if its file is one of ``sources`` or lies under one of
        them (a directory); else None."""
        return self if covered(self.config.path, sources, self.context) else None


class JsonlLoader(_RecordLoader):
    """Loads a JSON Lines file (one JSON object per line; ``.jsonl.gz`` too), one
    document per line. Blank lines are ignored; a line that is not a JSON object,
    or that does not decode with ``encoding``, is reported and skipped."""

    class Config(RecordOptions):
        pass

    config: Config
    number_key = "line"

    def _records(self, path: Path, source: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
        encoding = self.config.encoding
        with _open_binary(path) as raw:
            for number, text in enumerate(_decoded_lines(raw, encoding), start=1):
                if isinstance(text, UnicodeDecodeError):
                    self.context.report(
                        source,
                        f"line {number}: not valid {encoding} text ({text.reason}); "
                        f"skipped (set `encoding:` on the loader if the file uses another)",
                    )
                    continue
                if number == 1:
                    text = text.removeprefix("\ufeff")
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except ValueError as exc:
                    self.context.report(source, f"line {number}: not valid JSON ({exc}); skipped")
                    continue
                if not isinstance(record, dict):
                    self.context.report(
                        source,
                        f"line {number}: a JSON {type(record).__name__}, not an object "
                        "({...}); skipped",
                    )
                    continue
                yield number, record


class CsvLoader(_RecordLoader):
    """Loads a CSV file with a header row (``.csv.gz`` too), one document per row.

    Fields are named by the header; every value is a string. Blank lines are
    ignored; a row with more or fewer fields than the header is reported with
    its line number and skipped. ``row`` in the metadata (and in the default
    id) counts data rows from 1, the header not included.
    """

    class Config(RecordOptions):
        delimiter: str = Field(",", min_length=1, max_length=1)

    config: Config
    number_key = "row"

    def _records(self, path: Path, source: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
        c = self.config
        with _open_binary(path) as raw:
            text = io.TextIOWrapper(raw, encoding=c.encoding, errors="strict", newline="")
            reader = csv.reader(text, delimiter=c.delimiter)
            try:
                header = next(reader, None)
                while header is not None and not any(h.strip() for h in header):
                    header = next(reader, None)
            except (UnicodeDecodeError, csv.Error) as exc:
                self.context.report(source, f"cannot read the header row: {exc}")
                return
            if header is None:
                self.context.report(source, "empty file (no header row); skipped")
                return
            header = [h.strip() for h in header]
            header[0] = header[0].removeprefix("\ufeff")
            if not self._check_header(header, source):
                return
            row_number = 0
            while True:
                try:
                    row = next(reader)
                except StopIteration:
                    return
                except UnicodeDecodeError as exc:
                    self.context.report(
                        source,
                        f"near line {reader.line_num + 1}: not valid {c.encoding} text "
                        f"({exc.reason}); the rest of the file was not read (set `encoding:`)",
                    )
                    return
                except csv.Error as exc:
                    self.context.report(
                        source, f"line {reader.line_num}: {exc}; the rest of the file was not read"
                    )
                    return
                if not row or not any(cell.strip() for cell in row):
                    continue
                row_number += 1
                if len(row) != len(header):
                    self.context.report(
                        source,
                        f"line {reader.line_num} (row {row_number}): {len(row)} field(s), "
                        f"the header has {len(header)}; skipped",
                    )
                    continue
                yield row_number, dict(zip(header, row))

    def _check_header(self, header: list[str], source: str) -> bool:
        """Report (once, for the whole file) fields the config names that the header lacks."""
        c = self.config
        columns = ", ".join(header)
        duplicates = sorted({h for h in header if header.count(h) > 1})
        if duplicates:
            self.context.report(
                source,
                f"the header names column(s) {', '.join(duplicates)} more than once; "
                "give every column a distinct name",
            )
            return False
        if c.id_field is not None and c.id_field not in header:
            self.context.report(
                source,
                f"id_field {c.id_field!r} is not a column (the header has: {columns}); "
                "nothing loaded",
            )
            return False
        textual = [*c.text_fields, *([c.title_field] if c.title_field else [])]
        if not any(f in header for f in textual):
            self.context.report(
                source,
                f"none of the text fields ({', '.join(textual)}) is a column (the header "
                f"has: {columns}); nothing loaded",
            )
            return False
        return True


def record_document(
    record: Mapping[str, Any],
    options: RecordOptions,
    *,
    source: str,
    path: Path,
    number: int,
    number_key: str,
    context: Context,
) -> Document | None:
    """One record as a :class:`Document`, or report why not and return None.

    :param record: the record's fields by name.
    :param options: which fields hold the id, the text, the title and the metadata.
    :param source: the file's id (its path relative to ``context.base_dir``).
    :param path: the file's absolute path.
    :param number: the record's line (``jsonl``) or data row (``csv``) number, from 1.
    :param number_key: ``"line"`` or ``"row"``: the metadata key of ``number``.
    :param context: gives ``report`` for problems.
    :returns: the document, or None when the record was reported and skipped.

    The id is ``<source>#<record id>``, the record id being the ``id_field``
    value or, without one, ``number``. The text is the title (if any) on its
    first line, then the non-empty ``text_fields`` joined with a blank line.
    """
    where = f"{number_key} {number}"
    if options.id_field is None:
        record_id = str(number)
    else:
        value = record.get(options.id_field)
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            shown = "missing" if value is None else f"a {type(value).__name__}"
            context.report(
                source,
                f"{where}: id field {options.id_field!r} is {shown}, not a string or "
                "number; skipped",
            )
            return None
        record_id = str(value).strip()
        if not record_id:
            context.report(source, f"{where}: id field {options.id_field!r} is empty; skipped")
            return None

    parts = [
        f"{f}: {t}" if options.field_labels else t
        for f, t in ((f, _as_text(record.get(f))) for f in options.text_fields)
        if t
    ]
    title = _as_text(record.get(options.title_field)) if options.title_field else ""
    title = " ".join(title.split())
    text = "\n\n".join(parts)
    if title:
        text = f"{title}\n{text}" if text else title
    if not text.strip():
        fields = [*options.text_fields, *([options.title_field] if options.title_field else [])]
        context.report(
            source,
            f"{where}: no text (field(s) {', '.join(fields)} missing or empty); skipped",
        )
        return None

    metadata: dict[str, Any] = {
        "source": source,
        "path": path_text(path),
        "record_id": record_id,
        number_key: number,
        "content_hash": content_hash(text),
    }
    if title:
        metadata["title"] = title
    for name in _metadata_names(record, options):
        if name in record and name not in RECORD_METADATA:
            metadata[name] = _metadata_value(record[name])
    return Document(id=f"{source}#{record_id}", text=text, metadata=metadata)


def _metadata_names(record: Mapping[str, Any], options: RecordOptions) -> list[str]:
    if options.metadata_fields != "*":
        return list(options.metadata_fields)
    used = {options.id_field, options.title_field, *options.text_fields}
    if options.title_field is not None:
        used.add("title")  # metadata.title comes from title_field
    return [name for name in record if name not in used]


def _as_text(value: Any) -> str:
    """A field value as text: strings as they are (line endings made ``\\n``),
    numbers as written, lists line by line, objects as JSON; None and blanks as ``""``."""
    if value is None:
        return ""
    if isinstance(value, str):
        text = value.replace("\r\n", "\n").replace("\r", "\n")
        return text if text.strip() else ""
    if isinstance(value, list):
        return "\n".join(t for t in (_as_text(v) for v in value) if t)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _metadata_value(value: Any) -> Any:
    """JSON scalars and lists of them as they are; anything else as JSON text."""
    if isinstance(value, _JSON_SCALARS):
        return value
    if isinstance(value, list) and all(isinstance(v, _JSON_SCALARS) for v in value):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return str(value)


def _open_binary(path: Path) -> IO[bytes]:
    """The file's bytes, decompressed when it ends in ``.gz``."""
    if path.suffix.lower() == ".gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")  # noqa: SIM115 - the caller closes it


def _decoded_lines(raw: IO[bytes], encoding: str) -> Iterator[str | UnicodeDecodeError]:
    """The file's lines decoded one by one, so a bad byte costs one line, not the file.

    UTF-16 and UTF-32 cannot be split on the byte ``\\n``; those files are
    decoded as a whole stream instead.
    """
    codec = codecs.lookup(encoding).name
    if codec.startswith(("utf-16", "utf-32")):
        stream = io.TextIOWrapper(raw, encoding=encoding, errors="strict", newline=None)
        try:
            yield from (line.rstrip("\n") for line in stream)
        except UnicodeDecodeError as exc:
            yield exc
        return
    for line in raw:
        try:
            yield line.decode(encoding).rstrip("\r\n")
        except UnicodeDecodeError as exc:
            yield exc
