"""The ``code`` chunker: functions and classes as units.

    chunker:
      type: code
      size: 1500
      overlap: 100

The language comes from the ``language`` option, else the document's
``language`` metadata (the ``code`` loader sets it), else its extension.

- Python is parsed with ``ast``: each top-level function and class is a unit,
  with its decorators and the comment lines directly above it (docstrings are
  inside). A class longer than ``size`` is split per member: each method
  (``Client.create_invoice``, kind ``method``) and nested class is a unit, and
  the rest of the class (its header, docstring and attributes) goes with the
  class's symbol.
- Other languages are parsed with tree-sitter when its grammar package is
  installed (``pip install tree-sitter tree-sitter-javascript``: see
  ``_code_languages``), with the same rules: functions, classes, methods,
  types and namespaces, ``export`` and ``const f = () => ...`` included.
- Code between definitions (imports, constants, a ``__main__`` block) is
  grouped into one unit per stretch, kind ``module``, labelled by its lines
  (``client.py#L1-L12``).
- A unit longer than ``size`` is split by the recursive splitter on the
  language's separators (definition keywords at line starts, then blank
  lines, lines, words), keeping ``overlap``; every piece keeps the symbol.
- Without a parser (no grammar installed, an unknown language, a Python
  syntax error) the whole file is split that way, each chunk labelled by its
  lines.

Each chunk's label anchor is its symbol (``client.py#Client.create_invoice``),
with ``-2``, ``-3``... for the further pieces of a long unit and for a symbol
defined again (a property's setter); metadata: ``language``, ``symbol``,
``symbol_kind`` (``function``, ``method``, ``class``, ``type``,
``namespace`` or ``module``), ``start_line`` and ``end_line`` (1-based,
inclusive). ``text[start:end]`` is the chunk text, indentation included.
"""

from __future__ import annotations

import ast
import importlib
import logging
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any

from pydantic import Field

from ...components import Chunker, ComponentConfig
from ...types import Chunk, Document
from .._languages import LANGUAGES as EXTENSION_LANGUAGES
from ._chunking import SizedConfig, embedder_of, length_function, make_chunk
from ._code_languages import LanguageSpec, spec_for
from ._recursive import split_range

__all__ = ["CodeChunker", "CodeUnit", "python_units", "treesitter_units"]

log = logging.getLogger("ragloom")

_NEWLINE = re.compile("\n")
_CLOSING = re.compile(r"[\s})\];,]*(?:end)?[\s;]*")
_PY_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_NAMES = frozenset(
    {
        "identifier",
        "property_identifier",
        "private_property_identifier",
        "type_identifier",
        "field_identifier",
        "constant",
        "name",
        "qualified_identifier",
        "scoped_identifier",
        "destructor_name",
        "operator_name",
        "simple_identifier",
    }
)
_BODIES = frozenset(
    {
        "class_body",
        "declaration_list",
        "field_declaration_list",
        "body_statement",
        "enum_body",
        "interface_body",
        "object_type",
    }
)


@dataclass
class CodeUnit:
    """A definition spanning rows ``first`` to ``last`` (0-based, inclusive),
    with its members when it is a class or namespace."""

    first: int
    last: int
    symbol: str | None
    kind: str
    members: list[CodeUnit] = field(default_factory=list)


class CodeChunker(Chunker):
    """Splits source code into functions, classes and methods; see the module docs."""

    class Config(SizedConfig):
        """Options of the ``code`` chunker.

        ``size`` is the most ``unit`` s in a chunk (longer units are split);
        ``overlap`` what the pieces of a long unit share; ``language``
        overrides the document's.
        """

        size: int = Field(default=1500, gt=0)
        overlap: int = Field(default=100, ge=0)
        language: str | None = None

    config: Config

    def __init__(self, config: ComponentConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._parsers: dict[tuple[str, str], Any] = {}

    def language(self, document: Document) -> tuple[LanguageSpec, str]:
        """The document's language and the grammar function to use for it."""
        suffix = PurePosixPath(str(document.metadata.get("path") or document.source)).suffix
        name = (
            self.config.language
            or document.metadata.get("language")
            or EXTENSION_LANGUAGES.get(suffix.lower())
            or "text"
        )
        spec = spec_for(str(name))
        function = spec.grammar_function
        if spec.name == "typescript" and suffix.lower() == ".tsx":
            function = "language_tsx"
        return spec, function

    def split(self, document: Document) -> list[Chunk]:
        c = self.config
        spec, function = self.language(document)
        builder = _Builder(
            document, spec, c.size, c.overlap, length_function(c.unit, embedder_of(self))
        )
        units: list[CodeUnit] | None = None
        if spec.name == "python":
            units = python_units(document.text, builder.lines)
        elif spec.grammar:
            parser = self.parser(spec.grammar, function)
            if parser is not None:
                root = parser.parse(document.text.encode("utf-8")).root_node
                units = treesitter_units(root, spec, builder.lines)
        if units is None:
            builder.emit(0, len(document.text), None, None)
        else:
            builder.partition(0, len(builder.lines.starts) - 1, units, None, "module")
        return builder.chunks

    def parser(self, module: str, function: str) -> Any:
        """A tree-sitter parser for the grammar ``module.function()``, or None
        when tree-sitter (>= 0.22) or the grammar package is not installed."""
        key = (module, function)
        if key not in self._parsers:
            self._parsers[key] = _load_parser(module, function)
        return self._parsers[key]


def _load_parser(module: str, function: str) -> Any:
    try:
        import tree_sitter

        grammar = importlib.import_module(module)
    except ImportError:
        return None
    try:
        return tree_sitter.Parser(tree_sitter.Language(getattr(grammar, function)()))
    except (AttributeError, TypeError, ValueError) as error:
        log.warning(
            "cannot load the tree-sitter grammar %s.%s (%s); splitting without it. "
            "The code chunker needs tree-sitter >= 0.22",
            module,
            function,
            error,
        )
        return None


class _Lines:
    """Row starts of a text (rows end at ``\\n``)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]

    def line(self, row: int) -> str:
        end = self.starts[row + 1] - 1 if row + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[row] : end]

    def row_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Offsets of rows ``first..last`` without leading blank lines and
        trailing whitespace; an empty span when they hold only whitespace."""
        text = self.text
        start = self.starts[first]
        end = self.starts[last + 1] - 1 if last + 1 < len(self.starts) else len(text)
        passage = text[start:end]
        stripped = passage.strip()
        if not stripped:
            return start, start
        body = start + len(passage) - len(passage.lstrip())
        start = self.starts[self.row_of(body)]
        return start, body + len(stripped)

    def attach_comments(self, first: int, floor: int, prefixes: tuple[str, ...]) -> int:
        """``first`` moved up over the comment lines directly above it (no
        blank line between, indented like row ``first``), not above ``floor``."""
        if not prefixes:
            return first
        own = self.line(first)
        indent = len(own) - len(own.lstrip())
        while first > floor:
            line = self.line(first - 1)
            stripped = line.lstrip()
            if not stripped.startswith(prefixes) or not (
                indent <= len(line) - len(stripped) <= indent + 1
            ):
                break
            first -= 1
        return first


def python_units(text: str, lines: _Lines) -> list[CodeUnit] | None:
    """The top-level functions and classes of Python source, or None if it
    does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    return _python_defs(tree.body, "", lines, 0)


def _python_defs(
    body: Sequence[ast.stmt], prefix: str, lines: _Lines, floor: int
) -> list[CodeUnit]:
    units: list[CodeUnit] = []
    for node in body:
        if not isinstance(node, _PY_DEFS):
            continue
        first = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
        first = lines.attach_comments(first, floor, ("#",))
        last = (node.end_lineno or node.lineno) - 1
        symbol = prefix + node.name
        if isinstance(node, ast.ClassDef):
            members = _python_defs(node.body, symbol + ".", lines, node.lineno)
            units.append(CodeUnit(first, last, symbol, "class", members))
        else:
            units.append(CodeUnit(first, last, symbol, "method" if prefix else "function"))
        floor = last + 1
    return units


def treesitter_units(root: Any, spec: LanguageSpec, lines: _Lines) -> list[CodeUnit]:
    """The definitions among the children of a tree-sitter root node."""
    return _treesitter_defs(root.named_children, spec, "", lines, 0)


def _treesitter_defs(
    nodes: Sequence[Any], spec: LanguageSpec, prefix: str, lines: _Lines, floor: int
) -> list[CodeUnit]:
    units: list[CodeUnit] = []
    for node in nodes:
        found = _definition(node, spec)
        if found is None:
            continue
        kind, name, inner = found
        first = node.start_point.row
        last = node.end_point.row
        if node.end_point.column == 0 and last > first:
            last -= 1
        if units and first <= units[-1].last:  # shares a line with the one before
            units[-1].last = max(units[-1].last, last)
            continue
        first = lines.attach_comments(first, floor, spec.comments)
        symbol = f"{prefix}{name}" if name else None
        members: list[CodeUnit] = []
        if kind in ("class", "namespace"):
            members = _treesitter_defs(
                _body(inner).named_children, spec, f"{symbol or '<anonymous>'}.", lines, first + 1
            )
        elif kind == "function" and prefix:
            kind = "method"
        units.append(CodeUnit(first, last, symbol, kind, members))
        floor = last + 1
    return units


def _definition(node: Any, spec: LanguageSpec) -> tuple[str, str | None, Any] | None:
    """``(kind, name, definition node)`` if ``node`` defines something."""
    kind = spec.kinds.get(node.type)
    if kind is not None:
        return kind, _name_of(node), node
    if node.type in spec.wrappers:
        for child in node.named_children:
            found = _definition(child, spec)
            if found is not None:
                return found
    elif node.type in spec.variables:
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        if len(declarators) == 1:
            value = declarators[0].child_by_field_name("value")
            if value is not None and value.type in spec.kinds:
                return spec.kinds[value.type], _name_of(declarators[0]), value
    return None


def _name_of(node: Any) -> str | None:
    name = node.child_by_field_name("name")
    if name is None:
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type not in _NAMES:
            declarator = declarator.child_by_field_name(
                "declarator"
            ) or declarator.child_by_field_name("name")
        name = declarator
    if name is None:
        name = node.child_by_field_name("type")  # Rust: impl Client
    if name is None:
        for child in node.named_children:  # Go: type_declaration > type_spec
            name = child.child_by_field_name("name")
            if name is not None:
                break
    if name is None:
        return None
    text = name.text.decode("utf-8", "replace")
    receiver = node.child_by_field_name("receiver")  # Go: func (c *Client) Create()
    if receiver is not None:
        owner = _first_of_type(receiver, "type_identifier")
        if owner is not None:
            text = f"{owner.text.decode('utf-8', 'replace')}.{text}"
    return text


def _first_of_type(node: Any, type_name: str) -> Any:
    for child in node.named_children:
        if child.type == type_name:
            return child
        found = _first_of_type(child, type_name)
        if found is not None:
            return found
    return None


def _body(node: Any) -> Any:
    body = node.child_by_field_name("body")
    if body is not None:
        return body
    for child in node.named_children:
        if child.type in _BODIES:
            return child
    return node


class _Builder:
    """Turns units into chunks, in order."""

    def __init__(
        self,
        document: Document,
        spec: LanguageSpec,
        size: int,
        overlap: int,
        length: Callable[[str], int],
    ) -> None:
        self.document = document
        self.text = document.text
        self.spec = spec
        self.size = size
        self.overlap = overlap
        self.length = length
        self.lines = _Lines(document.text)
        self.chunks: list[Chunk] = []
        self.seen: Counter[str] = Counter()

    def measure(self, start: int, end: int) -> int:
        return end - start if self.length is len else self.length(self.text[start:end])

    def partition(
        self, first: int, last: int, members: list[CodeUnit], symbol: str | None, kind: str
    ) -> None:
        """Rows ``first..last``: each member unit, and the rows between them
        as the owner's (``symbol``, ``kind``)."""
        row = first
        for i, member in enumerate(members):
            if member.first > row:
                self.emit(*self.lines.span(row, member.first - 1), symbol, kind)
            if i == len(members) - 1 and member.last < last:
                start, end = self.lines.span(member.last + 1, last)
                if _CLOSING.fullmatch(self.text, start, end):
                    # The owner's closing brace goes with its last member.
                    member = replace(member, last=last)
            self.unit(member)
            row = member.last + 1
        if row <= last:
            self.emit(*self.lines.span(row, last), symbol, kind)

    def unit(self, unit: CodeUnit) -> None:
        start, end = self.lines.span(unit.first, unit.last)
        if unit.members and self.measure(start, end) > self.size:
            self.partition(unit.first, unit.last, unit.members, unit.symbol, unit.kind)
        else:
            self.emit(start, end, unit.symbol, unit.kind)

    def emit(self, start: int, end: int, symbol: str | None, kind: str | None) -> None:
        """Chunks of ``text[start:end]``: one if it fits, else recursive pieces."""
        if start >= end:
            return
        text = self.text
        pieces = [(start, end)]
        if self.measure(start, end) > self.size:
            pieces = [
                (a, b)
                for a, b, _ in split_range(
                    text,
                    start,
                    end,
                    self.size,
                    overlap=self.overlap,
                    separators=self.spec.separators,
                    length_function=self.length,
                )
            ]
        for a, b in pieces:
            if text[a:b].isspace():  # nothing to find or cite (a blank file)
                continue
            first_line = self.lines.row_of(a) + 1
            last_line = self.lines.row_of(b - 1) + 1
            extra: dict[str, Any] = {"language": self.spec.name}
            if symbol is not None:
                extra["symbol"] = symbol
                self.seen[symbol] += 1
                count = self.seen[symbol]
                anchor = symbol if count == 1 else f"{symbol}-{count}"
            else:
                anchor = (
                    f"L{first_line}" if first_line == last_line else f"L{first_line}-L{last_line}"
                )
            if kind is not None:
                extra["symbol_kind"] = kind
            extra["start_line"] = first_line
            extra["end_line"] = last_line
            self.chunks.append(
                make_chunk(
                    self.document, text[a:b], len(self.chunks), a, b, anchor=anchor, extra=extra
                )
            )
