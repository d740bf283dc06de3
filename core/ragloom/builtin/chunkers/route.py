"""The ``route`` chunker: each document to the chunker its kind needs.

    chunker:
      type: route
      routes:
        - match: {extension: {$in: [".py", ".sh", ".ts"]}}
          chunker: {type: code, size: 1500}
        - match: {extension: ".csv"}
          chunker: {type: fixed, size: 2000, overlap: 0}
      default: {type: markdown, size: 800, overlap: 100}

A folder of prose and source code needs two chunkers: Markdown's headings
mean nothing in a shell script, and a function is the unit of code. Each
route's ``match`` is a metadata filter (the language of ``filters:``, see
docs/filters.md) over the document's metadata: the file loaders set
``extension`` (``".md"``), ``source``, ``language`` (of source code, or from
a Markdown file's front matter) and whatever the config's ``metadata:``
adds. The first route that matches chunks the document; a document no
route matches goes to ``default`` (``{type: recursive}`` unless set).

Every document is cut by one chunker, so its chunk ids, labels and offsets
are that chunker's. The fingerprint holds every route and the default:
changing any of them chunks every document again on the next run.
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from ...components import Chunker, ComponentConfig, Context
from ...errors import FilterError, OptionProblems
from ...filters import Filter, evaluate, parse
from ...types import Chunk, Document
from .layers import _registry, nested_chunker

__all__ = ["RouteChunker"]


class Route(BaseModel):
    """One route: the documents it takes (``match``) and their chunker."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    match: dict[str, Any]
    chunker: dict[str, Any]


class RouteChunker(Chunker):
    """Chunks each document with the chunker of the first route it matches;
    see the module docs."""

    class Config(ComponentConfig):
        """Options of the ``route`` chunker.

        ``routes``: a list of ``{match: <metadata filter>, chunker: <spec>}``,
        tried in order; ``default``: the chunker spec of documents no route
        matches.
        """

        routes: list[Route] = Field(min_length=1)
        default: dict[str, Any] = {"type": "recursive"}
        _parts: list[tuple[Filter | None, type[Chunker], ComponentConfig, dict[str, Any]]] = (
            PrivateAttr(default_factory=list)
        )

        @model_validator(mode="wrap")
        @classmethod
        def _resolve(
            cls, data: Any, handler: ModelWrapValidatorHandler[Any], info: ValidationInfo
        ) -> RouteChunker.Config:
            """Each route's filter and chunker (class and options), every
            route's problems at once: a route pydantic cannot read (one
            without a ``chunker``, say) does not hide the others' problems."""
            try:
                config = handler(data)
            except ValidationError as exc:
                problems, _ = _checked(_readable(data), info)
                if not problems:
                    raise
                details: list[Any] = [
                    {key: e[key] for key in ("type", "loc", "input", "ctx") if key in e}
                    for e in exc.errors()
                ]
                details.append(
                    {
                        "type": "value_error",
                        "loc": (),
                        "input": data,
                        "ctx": {"error": OptionProblems(problems)},
                    }
                )
                raise ValidationError.from_exception_data(exc.title, details) from None
            wanted = [(i, route.match, route.chunker) for i, route in enumerate(config.routes)]
            problems, parts = _checked((wanted, config.default), info)
            if problems:
                raise OptionProblems(problems)
            config._parts = parts
            return config

    config: Config

    def __init__(self, config: ComponentConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._routes: list[tuple[Filter | None, Chunker]] = []
        for node, cls, options, spec in self.config._parts:
            chunker = cls(options)
            chunker.type_name = spec["type"]
            self._routes.append((node, chunker))

    def fingerprint(self) -> dict[str, Any]:
        """Type, every route (in order: the first match wins) and the default,
        each chunker with all its options."""
        *routes, default = self.config._parts
        return {
            "type": self.type_name or type(self).__name__,
            "routes": [
                [route.match, spec] for route, (_, _, _, spec) in zip(self.config.routes, routes)
            ],
            "default": default[3],
        }

    @classmethod
    def needs_for(cls, config: ComponentConfig) -> frozenset[str]:
        assert isinstance(config, RouteChunker.Config)
        return cls.needs.union(*(part.needs_for(options) for _, part, options, _ in config._parts))

    def open(self, context: Context | None = None) -> None:
        super().open(context)
        for _, chunker in self._routes:
            chunker.open(self.context)

    def close(self) -> None:
        for _, chunker in self._routes:
            chunker.close()

    def chunker_for(self, document: Document) -> Chunker:
        """The chunker of the first route ``document`` matches, else the default."""
        for node, chunker in self._routes:
            if node is None or evaluate(node, document.metadata):
                return chunker
        raise AssertionError("the default route matches every document")  # pragma: no cover

    def split(self, document: Document) -> list[Chunk]:
        return self.chunker_for(document).split(document)


_Wanted = tuple[list[tuple[int, Any, Any]], Any]
"""The routes to check, each (its index, its ``match``, its ``chunker``), and the default."""


def _readable(data: Any) -> _Wanted:
    """The routes of ``data`` that pydantic could read, and its default if
    that is one: checked too when another route could not be."""
    routes = data.get("routes") if isinstance(data, dict) else None
    wanted = [
        (i, route["match"], route["chunker"])
        for i, route in enumerate(routes if isinstance(routes, list) else [])
        if isinstance(route, dict)
        and set(route) == {"match", "chunker"}
        and isinstance(route["match"], dict)
        and isinstance(route["chunker"], dict)
    ]
    default = data.get("default", {"type": "recursive"}) if isinstance(data, dict) else None
    return wanted, default if isinstance(default, dict) else None


def _checked(
    wanted: _Wanted, info: ValidationInfo
) -> tuple[list[tuple[tuple[str | int, ...], str]], list[Any]]:
    """Every problem of the routes and the default (where, what), each
    route's match and chunker checked even when the other is wrong; and,
    without problems, each one's (filter, chunker class, options, spec)."""
    registry = _registry(info)
    problems: list[tuple[tuple[str | int, ...], str]] = []
    parts: list[Any] = []
    routes, default = wanted
    checks: list[tuple[str, tuple[str | int, ...], Any, Any]] = [
        (f"routes[{i}]", ("routes", i), match, spec) for i, match, spec in routes
    ]
    if default is not None:
        checks.append(("default", ("default",), None, default))
    for where, at, match, spec in checks:
        node = None
        if match == {}:
            problems.append(
                ((*at, "match"), f"{where}.match: name a field, e.g. `{{extension: .py}}`")
            )
        elif match is not None:
            try:
                _check_extensions(match, f"{where}.match")
                node = parse(match, f"{where}.match")
            except (ValueError, FilterError) as exc:
                problems.append(((*at, "match"), str(exc)))
        try:
            part = nested_chunker(registry, where, spec, outer="route", role="a route")
            parts.append((node, *part))
        except ValueError as exc:
            problems.append((at if match is None else (*at, "chunker"), str(exc)))
    return problems, parts


def _check_extensions(match: Any, where: str) -> None:
    """``extension`` values are written as the loaders set them, with their
    dot (``.py``): ``py`` would match no document, silently."""
    if not isinstance(match, dict) or "extension" not in match:
        return
    value = match["extension"]
    values = value.get("$in", value.get("$eq", [])) if isinstance(value, dict) else value
    for v in values if isinstance(values, list) else [values]:
        if isinstance(v, str) and v and (not v.startswith(".") or v != v.lower()):
            raise ValueError(
                f"{where}.extension: {v!r} matches no document: the loaders write an "
                f"extension with its dot and in lower case, `.{v.lower().lstrip('.')}`"
            )
