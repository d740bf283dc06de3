"""HTML: the readable text of a web page, as Markdown-like text.

Parsed with selectolax (the lexbor engine: a complete HTML5 parser in C, so
broken real-world markup parses as a browser would, and about ten times
faster than BeautifulSoup with lxml). Page chrome is dropped, the main
content kept, and the content rendered so the Markdown-aware chunkers work
on it: headings as ATX lines (``## Install``), list items as ``- item``,
paragraphs separated by blank lines, ``<pre>`` blocks kept verbatim inside
code fences, tables as Markdown tables (``| cell | cell |``, the rule under
the first row when it is a header: in ``<thead>``, or its cells ``<th>`` or
all bold), so each row is a unit of its
own (the ``extractive`` answerer quotes one row, with the header as context).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from .._files import Parsed

if TYPE_CHECKING:
    from selectolax.lexbor import LexborNode

__all__ = [
    "BODY_NAMES",
    "CHROME_IDS",
    "CHROME_NAMES",
    "CHROME_OUTSIDE_BODY",
    "CHROME_OUTSIDE_CONTENT",
    "DEFAULT_MAX_LINKS",
    "FRAME_NAMES",
    "HELP_CENTER_NAMES",
    "LINK_LIST_NAMES",
    "MAIN_IDS",
    "MAX_DEPTH",
    "parse_html",
]

DEFAULT_MAX_LINKS = 50

MAX_DEPTH = 5000
"""The deepest a page's elements may nest; real pages nest a few dozen deep."""

DROPPED_TAGS = (
    "script, style, noscript, template, svg, canvas, iframe, object, embed, form, "
    "button, select, input, textarea, nav, [role=navigation], [role=search], "
    "[hidden], [aria-hidden=true]"
)
"""Never content: dropped wherever they are."""

PAGE_CHROME = "header, footer, aside, [role=banner], [role=contentinfo], [role=complementary]"
"""Dropped unless inside ``<main>`` or ``<article>``, where they belong to the content
(an article's own header holds its title)."""

CHROME_NAMES = (
    "acs-side-bar",  # Confluence's sidebar, page tree and breadcrumbs
    "aui-nav-breadcrumbs",
    "bd-sidebar",  # the sidebars of Sphinx themes and MkDocs Material
    "breadcrumb",
    "breadcrumbs",
    "cc-window",  # the cookieconsent library's banner
    "cookie-bar",
    "cookie-banner",
    "cookie-consent",
    "cookie-law-info-bar",
    "cookie-notice",
    "CybotCookiebotDialog",
    "ia-secondary-container",
    "left-sidebar",
    "md-sidebar",
    "mw-footer",  # MediaWiki's top bar, side panel and footer
    "mw-head",
    "mw-panel",
    "navbar",
    "onetrust-banner-sdk",
    "onetrust-consent-sdk",
    "page-metadata",  # Confluence's "created by ..., last updated ..."
    "page-tree",
    "quick-search",
    "right-sidebar",
    "side-bar",
    "sidebar",
    "sidenav",
    "site-footer",
    "site-header",
    "site-nav",
    "skip-link",
    "skip-to-content",
    "sphinxsidebar",
    "top-bar",
    "topbar",
    "wy-breadcrumbs",
    "wy-nav-side",
)
"""Class names and ids that mark an element as chrome (matched as a whole class
token or id, never as a substring), unless it holds ``<main>`` or
``<article>``, or most of the page's text (a layout wrapper so named)."""

CHROME_IDS = ("header", "navigation", "sidebar-container")
"""Ids (not class names, which content uses too: a card's ``header``) that
mark the page's own header and menus, as pages from before ``<header>`` and
``<nav>`` mark them (``<div id="header">``); on the same terms."""

CHROME_OUTSIDE_CONTENT = ("nav", "toc")
"""Class names and ids of chrome too, but not inside ``<main>`` or
``<article>``, where a table of contents (or a tab bar) is the content's own;
nor a tab bar anywhere (Bootstrap's ``<ul class="nav nav-tabs">``, one with
``role="tablist"`` or followed by a ``.tab-content``): its labels say which
block is for which platform."""

HELP_CENTER_NAMES = (
    # Zendesk Guide's article page (the Copenhagen theme), Freshdesk's
    "article-comments",
    "article-footer",
    "article-meta",  # "Updated 3 months ago · 4 min read"
    "article-more-questions",  # "Have more questions? Submit a request"
    "article-return-to-top",
    "article-share",
    "article-subscribe",
    "article-vote",
    "article-votes",  # "Was this article helpful? 112 out of 130 found this helpful"
    "article-feedback",
    # Help Scout Docs, Intercom Articles
    "articleFoot",
    "articleRatings",
    "intercom-reaction-picker",
    # WordPress themes and plugins (Jetpack's sharing buttons)
    "comments-area",
    "entry-footer",
    "entry-meta",
    "post-navigation",
    "share-buttons",
    "sharedaddy",
    "social-share",
    # Confluence
    "comments-section",
    "likes-and-labels-container",
    # a shop's ("Customers also bought")
    "also-bought",
    "cross-sell",
    "upsell",
)
"""Class names and ids of the widgets a help centre's theme puts around an
article (votes, meta, sharing, comments, upsells): chrome on the terms of
:data:`CHROME_NAMES`, inside ``<main>`` or ``<article>`` too, where themes
put them; the article itself never carries them."""

LINK_LIST_NAMES = (
    "article-relatives",  # Zendesk Guide's related and recently viewed articles
    "jp-relatedposts",  # Jetpack's related posts, YARPP's
    "popular-articles",
    "recent-articles",
    "recently-viewed",
    "recently-viewed-articles",
    "related-articles",
    "related-posts",
    "yarpp-related",
)
"""Class names and ids of the lists of other articles a help centre shows
with each one ("Related articles", "Recently viewed articles"): chrome when
its text, less its headings, is that of its links, or when it lies outside
the article's body (:data:`BODY_NAMES`); inside it, a section so named with
prose of its own is the article's. Each page of a help centre had such a
list, all the same, and it outranked the articles it named."""

CHROME_OUTSIDE_BODY = ("comments", "feedback", "helpful", "related", "see-also", "share", "social")
"""Class names and ids that content uses too (an article about feedback, a
"See also" section with prose), so chrome only outside the article's body
(:data:`BODY_NAMES`), and there only when a list of links or a short widget
(:func:`_prose`): a theme's "Related" list, "Was this helpful?" box or
sharing buttons; a section of prose so named (a comments section of
questions and answers in the ``<article>``) is kept."""

BODY_NAMES = (
    "article-body",  # Zendesk Guide, Freshdesk
    "article-content",
    "article__body",
    "entry-content",  # WordPress
    "fullArticle",  # Help Scout Docs
    "post-content",
    "wiki-content",  # Confluence
)
"""Class names and ids (and ``itemprop="articleBody"``) of an article's own
body, which :data:`LINK_LIST_NAMES`, :data:`CHROME_OUTSIDE_BODY` and a
list of links in an ``<aside>`` (one link in a paragraph is a callout, kept)
are measured against: the outermost elements so marked when together they
hold most of the page's text (a teaser card so classed is no body), else the
page's ``<article>`` elements on the same terms, else its ``<main>``; on a
page with neither (mail, an EPUB chapter), nothing lies outside it."""

MAIN_IDS = ("main-content", "maincontent")
"""Ids that mark the page's body where it has no ``<main>``: Confluence's
exports (``<div id="main-content" class="wiki-content">``) and the target
of many a "skip to content" link. Read as ``<main>`` (with the page's title
above it) when it holds four fifths or more of the text left outside the
page's frame (:data:`FRAME_NAMES`: the footer and header a short page's
body may be outweighed by); else the whole body is read: an empty anchor so
named, a title alone, or an intro whose page goes on in a sibling is no
body."""

FRAME_NAMES = ("footer", "footer-body", "header", "page-footer", "page-header")
"""Class names and ids of the page's own header and footer (Confluence's
``div.footer``), not counted against a :data:`MAIN_IDS` element outside it
(they are read when the whole body is: a footer may hold opening hours)."""

_TAB_BARS = frozenset({"nav-tabs", "nav-pills", "nav-underline"})
"""Bootstrap's classes of a ``.nav`` that is a tab bar."""

_HIDING = re.compile(
    r"^(?:display:none|visibility:(?:hidden|collapse)|opacity:0(?:\.0*)?%?|mso-hide:all"
    r"|font-size:(?:0(?:\.0*)?(?:px|pt|em|rem|%|vw|vh)?|1px)"
    r"|text-indent:-(?:\d{4,}(?:\.\d*)?px|\d{3,}(?:\.\d*)?(?:em|rem)))$"
)
"""An inline style declaration that keeps an element from being seen (the
hiding places of text meant for machines: prompt injections in scraped pages
and in mail, whose preheaders hide so)."""
_ZERO = re.compile(r"^0(?:\.0*)?(?:px|pt|em|rem|%)?$")
_OFF_SCREEN = re.compile(r"^-(?:\d{4,}(?:\.\d*)?px|\d{3,}(?:\.\d*)?(?:em|rem))$")
"""A position far off the screen: -1000px or more (-9999px, as mail hides
text), not a label hung a little left of its box (-120px)."""


def _hidden_by(style: str) -> bool:
    """Whether an inline ``style`` hides its element (``display: none
    !important``, ``visibility:hidden``, ``font-size: 0``, ``opacity: 0``,
    Outlook's ``mso-hide: all``; a zero height or width with ``overflow:
    hidden``; a position far off the screen)."""
    declared: dict[str, str] = {}
    for declaration in style.split(";"):
        compact = "".join(declaration.lower().replace("!important", "").split())
        if _HIDING.match(compact):
            return True
        name, _, value = compact.partition(":")
        declared[name] = value
    padded = any(name.startswith("padding") and not _ZERO.match(v) for name, v in declared.items())
    if (
        declared.get("overflow") == "hidden"
        and not padded  # height 0 and a padding: a box sized by its padding (16:9 video)
        and any(
            _ZERO.match(declared.get(side, "-"))
            for side in ("height", "max-height", "width", "max-width")
        )
    ):
        return True
    return declared.get("position") in ("absolute", "fixed") and any(
        _OFF_SCREEN.match(declared.get(side, "")) for side in ("left", "top", "right")
    )


_STYLE_RULE = re.compile(r"([^{}@]+)\{([^{}]*)\}")
_AT_BLOCK = re.compile(r"@[^{;]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}|@[^{;]*;")
_SIMPLE_SELECTOR = re.compile(r"^[a-z0-9]*([.#])([A-Za-z_][\w-]*)$")
_NAMES = re.compile(r"[.#]([A-Za-z_][\w-]*)")


def _hidden_selectors(css: str) -> list[str]:
    """The class and id selectors that a page's own ``<style>`` hides
    (``.preheader { display: none }``), outside ``@media`` blocks (which
    hide for some screens only), but for those another rule shows
    (``.tab-pane.active { display: block }``), as selectolax selectors."""
    hidden: dict[tuple[str, str], None] = {}
    shown: set[str] = set()  # named by a rule that does not hide: .tab-pane.active {display: block}
    for match in _STYLE_RULE.finditer(_AT_BLOCK.sub("", css)):
        hides = _hidden_by(match.group(2))
        for selector in match.group(1).split(","):
            simple = _SIMPLE_SELECTOR.match(selector.strip())
            if simple and hides:
                kind, name = simple.groups()
                hidden[(kind, name)] = None
            elif not hides:
                shown.update(_NAMES.findall(selector))
    return [
        f'[class~="{name}"]' if kind == "." else f'[id="{name}"]'
        for kind, name in hidden
        if name not in shown
    ][:200]


_MAIN_SELECTOR = ", ".join(f'[id="{n}"]' for n in MAIN_IDS)
_CONTENT = f"main, [role=main], article, {_MAIN_SELECTOR}"
_FRAME_SELECTOR = ", ".join(f'[class~="{n}"], [id="{n}"]' for n in FRAME_NAMES)
_ANYWHERE = frozenset((*CHROME_NAMES, *HELP_CENTER_NAMES))
_CHROME_SELECTOR = ", ".join(
    [
        *(
            f'[class~="{n}"], [id="{n}"]'
            for n in (*_ANYWHERE, *CHROME_OUTSIDE_CONTENT, *LINK_LIST_NAMES, *CHROME_OUTSIDE_BODY)
        ),
        *(f'[id="{n}"]' for n in CHROME_IDS),
        "aside, [role=complementary]",  # (those outside <main> and <article> are gone by then)
    ]
)
_BODY_SELECTOR = ", ".join(
    [*(f'[class~="{n}"], [id="{n}"]' for n in BODY_NAMES), "[itemprop=articleBody]"]
)
_HEADING_SELECTOR = "h1, h2, h3, h4, h5, h6"
_BLOCKS = frozenset(
    {
        "address", "article", "blockquote", "body", "caption", "center", "dd", "details",
        "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer",
        "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "li", "main", "menu",
        "ol", "p", "pre", "section", "summary", "table", "ul",
    }
)  # fmt: skip
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_ANCHOR = re.compile(r"[^\s{}#]{1,200}")
"""An ``id`` a heading line can carry as ``{#id}``."""
_SKIPPED_LINKS = re.compile(r"^(?:#|javascript:|data:)", re.IGNORECASE)
_SPACE = re.compile(r"[ \t\n\r\f\v\u00a0\u2028]+")
_BREAK = "\u2028"  # a <br> in pending inline text; other whitespace collapses


def parse_html(
    text: str,
    *,
    report: Callable[[str], None],
    max_links: int = DEFAULT_MAX_LINKS,
    heading_ids: bool = True,
    **_: Any,
) -> Parsed | None:
    """The readable text of a page with its ``title`` and ``links``; see the
    module docs. ``heading_ids``: a heading element's ``id`` is written after
    its line (``## Regional hours {#SupportHours-Regionalhours}``), so that a
    chunk is cited by the anchor a browser resolves in the page, not by a
    slug of its title that the page may not have (a wiki's ids)."""
    from selectolax.lexbor import LexborHTMLParser

    if text.count("<") > MAX_DEPTH and _nesting(text) > MAX_DEPTH:
        # parsing and querying are quadratic in the depth: 200,000 nested
        # <div>s (4 KB zipped in an EPUB) took 88 s; no real page is this deep
        report(f"elements nested more than {MAX_DEPTH:,} deep (a hostile page?); skipped")
        return None
    tree = LexborHTMLParser(text)
    title = _text(tree.css_first("title"))
    base = tree.css_first("base[href]")
    base_href = (base.attributes.get("href") or "").strip() if base is not None else ""

    css = " ".join(node.text(deep=True) for node in tree.css("style"))
    hidden = _hidden_selectors(css) if "{" in css else []
    for node in tree.css(DROPPED_TAGS):
        _drop(node)
    if hidden:
        for node in tree.css(", ".join(hidden)):
            if node.tag not in ("html", "body"):
                _drop(node)
    for node in tree.css("[style]"):
        if _hidden_by(node.attributes.get("style") or ""):
            _drop(node)
    for node in tree.css(PAGE_CHROME):
        if not _inside(node, {"main", "article"}):
            _drop(node)
    page_text = -1  # measured when a chrome element is first found, before any is dropped
    body: set[int] | None = None  # the article's body, found when first needed
    for node in tree.css(_CHROME_SELECTOR):
        if node.tag in ("main", "article", "html", "body") or node.css_first(_CONTENT) is not None:
            continue  # it holds the main content
        attributes = node.attributes
        names = (attributes.get("class") or "").split()
        ident = attributes.get("id") or ""
        listed = any(n in LINK_LIST_NAMES for n in (*names, ident))
        shared = any(n in CHROME_OUTSIDE_BODY for n in (*names, ident))
        aside = node.tag == "aside" or attributes.get("role") == "complementary"
        outside_body = False
        if listed or shared or aside:
            if body is None:
                body = _body(tree)
            outside_body = bool(body) and not any(a.mem_id in body for a in _ancestors(node))
        if not (
            ident in CHROME_IDS
            or any(n in _ANYWHERE for n in (*names, ident))
            or (
                any(n in CHROME_OUTSIDE_CONTENT for n in (*names, ident))
                and not _inside(node, {"main", "article"})
                and not _tab_bar(node, names)
            )
            or (listed and (outside_body or _link_list(node)))
            or (shared and outside_body and not _prose(node))
            or (aside and outside_body and _link_list(node) and _several_links(node))
        ):
            continue
        if page_text < 0:
            page_text = len(_text(tree.body)) if tree.body is not None else 0
        if 2 * len(_text(node)) >= page_text:
            continue  # most of the page: its content, whatever its name (a layout's `sidebar`)
        _drop(node)

    parts = _content(tree)
    if not parts:
        report("no readable text in the page (nothing but markup, scripts or navigation)")
        return None
    root = parts[-1]
    ids = [
        (h.attributes.get("id") or "").strip()
        for part in parts
        for h in ([part] if part.tag == "h1" else part.css("h1, h2, h3, h4, h5, h6"))
    ]
    # an id two headings share (a wiki export's) would cite both by one anchor
    unique = {i for i in ids if ids.count(i) == 1} if heading_ids else set()
    renderer = _Renderer(heading_ids=unique)
    for part in parts:
        renderer.render(part)
    body = renderer.text()
    if not body.strip():
        report("no readable text in the page (nothing but markup, scripts or navigation)")
        return None

    links: list[str] = []
    if max_links:
        seen: set[str] = set()
        for anchor in root.css("a[href]"):
            href = (anchor.attributes.get("href") or "").strip()
            if not href or _SKIPPED_LINKS.match(href):
                continue
            href = urljoin(base_href, href) if base_href else href
            if href not in seen:
                seen.add(href)
                links.append(href)
                if len(links) >= max_links:
                    break
    if not title:
        title = _text(parts[0] if parts[0].tag == "h1" else root.css_first("h1"))
    metadata: dict[str, Any] = {"title": title or None}
    if links:
        metadata["links"] = links
    return body, metadata


_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^>]*?(/?)>")
_UNNESTED = frozenset(
    {
        # void elements, and those whose end tag may be left out (a page of
        # <p>s without </p> nests nothing)
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr", "p", "li", "dt", "dd", "tr", "td", "th", "option",
        "optgroup", "thead", "tbody", "tfoot", "colgroup", "caption", "rb", "rt", "rp",
        "html", "head", "body",
    }
)  # fmt: skip


def _nesting(text: str) -> int:
    """How deep a page's elements nest, counted from its tags before it is
    parsed (it stops once past :data:`MAX_DEPTH`)."""
    depth = deepest = 0
    for match in _TAG.finditer(text):
        closing, name, self_closing = match.groups()
        if self_closing or name.lower() in _UNNESTED:
            continue
        if closing:
            depth = max(depth - 1, 0)
        else:
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    break
    return deepest


def _content(tree: Any) -> list[LexborNode]:
    """What of the page is read, in order: ``<main>`` (or ``role=main``);
    else an element with one of :data:`MAIN_IDS` that holds, with the
    page's title above it (a Confluence export's ``#title-heading``, read
    first), four fifths or more of the text outside the page's frame; else
    the page's only ``<article>``; else ``<body>`` (none: an empty list)."""
    main = tree.css_first("main, [role=main]")
    if main is not None:
        return [main]
    page = -1  # measured only on a page with such an element (a pass over its text)
    for node in tree.css(_MAIN_SELECTOR):
        title = _title_before(tree, node)
        inside = len(_text(node)) + len(_text(title))
        if not inside:
            continue
        if page < 0:
            page = len(_text(tree.body))
        outside = page - inside - _frame_text(tree, node)
        if 4 * outside <= inside:
            return [node] if title is None else [title, node]
    articles = tree.css("article")
    if len(articles) == 1:
        return [articles[0]]
    return [] if tree.body is None else [tree.body]


def _frame_text(tree: Any, root: LexborNode) -> int:
    """How much text the page's frame (:data:`FRAME_NAMES`) holds outside
    ``root``, each outermost frame element counted once."""
    frames = tree.css(_FRAME_SELECTOR)
    if not frames:
        return 0
    holding = {root.mem_id, *(a.mem_id for a in _ancestors(root))}
    frames = [frame for frame in frames if frame.mem_id not in holding]
    ids = {frame.mem_id for frame in frames}
    total = 0
    for frame in frames:
        if not any(a.mem_id in ids or a.mem_id == root.mem_id for a in _ancestors(frame)):
            total += len(_text(frame))  # (not inside another frame, nor inside root)
    return total


def _ancestors(node: LexborNode) -> Iterator[LexborNode]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _body(tree: Any) -> set[int]:
    """The ``mem_id`` of each element of the article's body: the outermost
    elements with one of :data:`BODY_NAMES`, else the page's outermost
    ``<article>`` elements, when together they hold most of the page's text
    (:func:`_holds_most`: a teaser card so classed, or an ``<article>`` card
    in ``<main>``, is no body, and the page's own sections are never
    outside it); else its ``<main>`` (none: an empty set, and nothing is
    outside it: a page of mail or an EPUB chapter, which no theme wraps)."""
    for selector in (_BODY_SELECTOR, "article"):
        nodes = tree.css(selector)
        ids = {node.mem_id for node in nodes}
        nodes = [n for n in nodes if not any(a.mem_id in ids for a in _ancestors(n))]
        if nodes and _holds_most(tree, nodes):
            return {node.mem_id for node in nodes}
    return {node.mem_id for node in tree.css("main, [role=main]")}


_MEASURE_SKIPS = f"{_CHROME_SELECTOR}, {_FRAME_SELECTOR}, header, footer, h1"


def _holds_most(tree: Any, nodes: list[LexborNode]) -> bool:
    """Whether ``nodes`` hold half or more of the page's text, leaving out
    of it the page's frame and title (its ``<h1>``, :data:`FRAME_NAMES`,
    ``<header>`` and ``<footer>``) and the widgets chrome by their names
    (:data:`HELP_CENTER_NAMES`, :data:`LINK_LIST_NAMES` and the like, and
    the generically named ones and asides that are link lists or short:
    :func:`_prose`), as the main-content
    rule (:data:`MAIN_IDS`) leaves out the frame."""
    inside = sum(len(_text(node)) for node in nodes)
    if not inside or tree.body is None:
        return False
    ids = {node.mem_id for node in nodes}
    holding = {a.mem_id for node in nodes for a in _ancestors(node)}
    skipped: set[int] = set()
    left_out = 0
    for node in tree.css(_MEASURE_SKIPS):
        if node.mem_id in ids or node.mem_id in holding or node.tag in ("main", "article"):
            continue
        if any(a.mem_id in ids or a.mem_id in skipped for a in _ancestors(node)):
            continue  # inside the body, or inside one left out already
        attributes = node.attributes
        names = {*(attributes.get("class") or "").split(), attributes.get("id") or ""}
        generic = not names.intersection(
            (*_ANYWHERE, *CHROME_OUTSIDE_CONTENT, *CHROME_IDS, *LINK_LIST_NAMES)
        )
        if (
            generic
            and node.tag not in ("header", "footer", "h1")
            and not names.intersection(FRAME_NAMES)
            and _prose(node)
        ):
            continue  # a section of prose so named is the page's text
        skipped.add(node.mem_id)
        left_out += len(_text(node))
    outside = len(_text(tree.body)) - inside - left_out
    return inside >= outside


def _prose(node: LexborNode) -> bool:
    """Whether an element has prose of its own, not a short widget or a list
    of links: under a heading, 30 letters and digits or more that are not
    its links' nor its headings'; without one, 80 or more."""
    links = sum(_letters(a) for a in node.css("a"))
    headings = node.css(_HEADING_SELECTOR)
    own = _letters(node) - links - sum(_letters(h) for h in headings)
    return own >= (30 if headings else 80)


def _several_links(node: LexborNode) -> bool:
    """Whether an element is a list (of links): it has list items or more
    than one link; one link in a paragraph is a callout ("Read the migration
    guide before upgrading")."""
    return node.css_first("li") is not None or len(node.css("a")) > 1


def _link_list(node: LexborNode) -> bool:
    """Whether an element is a list of links: it has one, and four fifths
    or more of its letters and digits, its headings' aside, are its links'."""
    links = sum(_letters(a) for a in node.css("a"))
    if not links:
        return False
    headings = sum(_letters(h) for h in node.css(_HEADING_SELECTOR))
    return 5 * links >= 4 * (_letters(node) - headings)


def _letters(node: LexborNode) -> int:
    return sum(c.isalnum() for c in node.text(deep=True))


def _tab_bar(node: LexborNode, names: list[str]) -> bool:
    """Whether a ``.nav`` is a tab bar: ``role="tablist"``, Bootstrap's
    ``nav-tabs`` or ``nav-pills``, or a ``.tab-content`` right after it."""
    if (node.attributes.get("role") or "") == "tablist" or _TAB_BARS.intersection(names):
        return True
    following = node.next
    while following is not None and following.tag in ("-text", "-comment"):
        following = following.next
    return (
        following is not None and "tab-content" in (following.attributes.get("class") or "").split()
    )


def _title_before(tree: Any, root: LexborNode) -> LexborNode | None:
    """The page's first ``<h1>``, when it comes before ``root`` (outside it)
    and ``root`` has none of its own."""
    if root.css_first("h1") is not None or tree.body is None:
        return None
    for node in tree.body.traverse():
        if node.mem_id == root.mem_id:
            return None
        if node.tag == "h1":
            return node
    return None


def _drop(node: LexborNode) -> None:
    """Unlink ``node`` (with its subtree) from the page; never ``<html>`` or ``<body>``."""
    if node.tag not in ("html", "body", "head"):
        node.decompose(recursive=False)


def _inside(node: LexborNode, tags: set[str]) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.tag in tags or (parent.attributes or {}).get("role") == "main":
            return True
        parent = parent.parent
    return False


def _text(node: LexborNode | None) -> str:
    if node is None:
        return ""
    return _SPACE.sub(" ", node.text(deep=True)).strip()


class _Renderer:
    """Walks the DOM without recursion (deeply nested pages are common) and
    writes Markdown-like blocks."""

    def __init__(self, *, heading_ids: set[str] | None = None) -> None:
        self.heading_ids = heading_ids or set()  # the ids written as {#id}
        self.blocks: list[tuple[str, int]] = []  # (text, id of its outermost list or 0)
        self.list_id = 0
        self.inline: list[str] = []
        self.lists: list[list[int]] = []  # one counter per open list; -1 for <ul>
        self.prefix = ""  # of the current list item's first line
        self.heading = 0

    def render(self, root: LexborNode) -> None:
        stack: list[tuple[LexborNode, bool]] = [(root, False)]
        while stack:
            node, leaving = stack.pop()
            if leaving:
                self._leave(node)
                continue
            if self._enter(node):
                stack.append((node, True))
                children = list(node.iter(include_text=True))
                stack.extend((child, False) for child in reversed(children))

    def text(self) -> str:
        self._flush()
        out: list[str] = []
        previous = 0
        for block, list_id in self.blocks:
            if out:
                out.append("\n" if list_id and list_id == previous else "\n\n")
            out.append(block)
            previous = list_id
        return "".join(out) + "\n" if out else ""

    # -- events ------------------------------------------------------------

    def _enter(self, node: LexborNode) -> bool:
        """Handle an opening; True to visit the children."""
        tag = node.tag
        if tag == "-text":
            self.inline.append(node.text_content or "")
            return False
        if tag is None or tag.startswith("-") or tag in ("head", "title"):
            return False
        if tag == "br":
            self.inline.append(_BREAK)
            return False
        if tag == "img":
            return False
        if tag == "pre":
            self._flush()
            self._pre(node)
            return False
        if tag == "table":
            self._flush()
            if _layout_table(node):
                return True  # its cells' content read as the page's own blocks
            self._table(node)
            return False
        if tag in ("td", "th", "tr"):  # a layout table's
            self._flush()
            return True
        if tag == "code":
            code = node.text(deep=True)
            if code.strip():
                self.inline.append(f"`{_SPACE.sub(' ', code).strip()}`")
            return False
        if tag in _HEADINGS:
            self._flush()
            self.heading = _HEADINGS[tag]
            return True
        if tag in ("ul", "ol", "menu", "dir"):
            self._flush()
            if not self.lists:
                self.list_id += 1
            self.lists.append([-1 if tag != "ol" else _start(node)])
            return True
        if tag == "li":
            self._flush()
            depth = max(len(self.lists) - 1, 0)
            bullet = "- "
            if self.lists and self.lists[-1][0] >= 0:
                bullet = f"{self.lists[-1][0]}. "
                self.lists[-1][0] += 1
            self.prefix = "  " * depth + bullet
            return True
        if tag == "hr":
            self._flush()
            return False
        if tag in _BLOCKS:
            self._flush()
        return True

    def _leave(self, node: LexborNode) -> None:
        tag = node.tag
        if tag in _HEADINGS:
            line = _SPACE.sub(" ", "".join(self.inline)).strip()
            self.inline = []
            if line:
                ident = (node.attributes.get("id") or "").strip()
                if ident in self.heading_ids and _ANCHOR.fullmatch(ident):
                    line += f" {{#{ident}}}"
                self._emit("#" * self.heading + " " + line, tight=False)
            self.heading = 0
        elif tag in ("ul", "ol", "menu", "dir"):
            self._flush()
            if self.lists:
                self.lists.pop()
        elif tag in _BLOCKS or tag in ("td", "th", "tr"):
            self._flush()

    # -- output ------------------------------------------------------------

    def _flush(self) -> None:
        """Finish the pending inline text as one block (a paragraph or list item)."""
        raw = "".join(self.inline)
        self.inline = []
        lines = [_SPACE.sub(" ", line).strip() for line in raw.split(_BREAK)]
        lines = [line for line in lines if line]
        if not lines:
            return
        if self.heading:
            lines = [" ".join(lines)]
        if self.prefix:
            indent = " " * len(self.prefix)
            body = "\n".join([self.prefix + lines[0]] + [indent + x for x in lines[1:]])
            self.prefix = ""
            self._emit(body, tight=True)
        elif self.lists:  # text inside a list item after a nested block
            indent = "  " * len(self.lists)
            self._emit("\n".join(indent + x for x in lines), tight=True)
        else:
            self._emit("\n".join(lines), tight=False)

    def _emit(self, block: str, *, tight: bool) -> None:
        """Add a block; ``tight`` blocks (list items) of the same outermost list
        are joined by one newline, everything else by a blank line."""
        self.blocks.append((block, self.list_id if tight and self.lists else 0))
        if not tight:
            self.prefix = ""  # a list item that opens with a code block or table

    def _pre(self, node: LexborNode) -> None:
        code = node.text(deep=True).strip("\n")
        if not code.strip():
            return
        language = ""
        for candidate in (node, node.css_first("code")):
            if candidate is None:
                continue
            for name in (candidate.attributes.get("class") or "").split():
                if name.startswith(("language-", "lang-")):
                    language = name.split("-", 1)[1]
                    break
            if language:
                break
        fence = "~~~~" if "```" in code else "```"
        self._emit(f"{fence}{language}\n{code}\n{fence}", tight=False)

    def _table(self, node: LexborNode) -> None:
        lines: list[str] = []
        caption = _text(node.css_first("caption"))
        if caption:
            lines.extend((caption, ""))
        rows = 0
        for row in node.css("tr"):
            cells = [cell for cell in row.iter() if cell.tag in ("td", "th")]
            texts = [_cell_text(cell).replace("|", "\\|") for cell in cells]
            if not any(texts):
                continue
            lines.append("| " + " | ".join(texts) + " |")
            rows += 1
            if rows == 1 and (
                (row.parent is not None and row.parent.tag == "thead") or _header_row(cells)
            ):
                lines.append("|" + " --- |" * len(cells))
        if rows:
            self._emit("\n".join(lines), tight=False)


_CELL_BLOCKS = "h1, h2, h3, h4, h5, h6, table"


def _header_row(cells: list[LexborNode]) -> bool:
    """Whether a first row is a header: its cells ``<th>``, or all of the text
    of each bold (``<td><b>Plan</b></td>``: the header row of old wikis,
    exports and mail), an empty corner cell aside."""
    filled = [cell for cell in cells if cell.tag == "th" or cell.text(deep=True).strip()]
    return bool(filled) and all(_header_cell(cell) for cell in filled)


def _header_cell(cell: LexborNode) -> bool:
    """A ``<th>``, or a cell all of whose text is bold."""
    if cell.tag == "th":
        return True
    text = "".join(cell.text(deep=True).split())
    bold = "".join("".join(b.text(deep=True).split()) for b in cell.css("b, strong"))
    return bool(text) and bold == text


def _own_cells(table: LexborNode) -> Iterator[LexborNode]:
    """A table's own cells (in ``thead``, ``tbody``, ``tfoot`` or bare rows),
    not those of tables inside them."""
    for child in table.iter():
        rows = child.iter() if child.tag in ("thead", "tbody", "tfoot") else (child,)
        for row in rows:
            if row.tag == "tr":
                yield from (cell for cell in row.iter() if cell.tag in ("td", "th"))


def _layout_table(table: LexborNode) -> bool:
    """Whether a table lays out a page (as mail does) rather than holding
    data: marked ``role="presentation"``, or a cell of its own holds a
    heading or another table. Its cells' content is read as blocks then:
    as a data table, a newsletter became one row ("Spring saleAll garden
    furniture..."). A cell of paragraphs (Word's and wikis' HTML) is data."""
    if (table.attributes.get("role") or "").lower() in ("presentation", "none"):
        return True
    return any(cell.css_first(_CELL_BLOCKS) is not None for cell in _own_cells(table))


def _cell_text(cell: LexborNode) -> str:
    """A data cell's text on one line, its paragraphs and lines apart by a
    space (``SSO<br>Audit log`` is not ``SSOAudit log``)."""
    if cell.css_first("p, div, br, li") is None:
        return _text(cell)
    return _SPACE.sub(" ", cell.text(deep=True, separator=" ")).strip()


def _start(node: LexborNode) -> int:
    try:
        return int(node.attributes.get("start") or 1)
    except ValueError:
        return 1
