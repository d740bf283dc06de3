"""What the ``code`` chunker knows about each language.

For each language: its file extensions, the separators the recursive
splitter falls back on (definition keywords at the start of a line, then
blank lines, lines, words, characters; ragloom's own table, in the spirit of
LangChain's ``RecursiveCharacterTextSplitter.from_language``), how a comment
line starts, and, where a tree-sitter grammar package exists, the package and
the node types that are functions, classes and wrappers.

Grammars come from the per-language packages (``tree-sitter-javascript``,
``tree-sitter-go``...), which ship the compiled grammar in the wheel.
``tree-sitter-language-pack`` 1.x is not used: it downloads grammars at run
time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain, repeat

__all__ = ["ALIASES", "LANGUAGES", "LanguageSpec", "spec_for"]


@dataclass(frozen=True)
class LanguageSpec:
    """One language: see the module docs."""

    name: str
    separators: tuple[str, ...]
    comments: tuple[str, ...] = ("//", "/*", "*")
    grammar: str | None = None
    """The tree-sitter grammar module (``tree_sitter_javascript``)."""
    grammar_function: str = "language"
    kinds: dict[str, str] = field(default_factory=dict)
    """Node type -> ``function``, ``class``, ``type`` or ``namespace``. Classes
    and namespaces have members, split one by one when the whole is too long;
    a function inside one is a ``method``."""
    wrappers: frozenset[str] = field(default_factory=frozenset)
    """Nodes that wrap one definition (``export``, ``template<...>``)."""
    variables: frozenset[str] = field(default_factory=frozenset)
    """Declarations whose value may be a function or class (``const f = () => 1``)."""


_TAIL = ("\n\n", "\n", " ", "")


def _kinds(
    function: str = "", cls: str = "", types: str = "", namespace: str = ""
) -> dict[str, str]:
    """Node types (space-separated) by kind."""
    groups = ((function, "function"), (cls, "class"), (types, "type"), (namespace, "namespace"))
    return dict(chain.from_iterable(zip(names.split(), repeat(kind)) for names, kind in groups))


_JS_FUNCTIONS = (
    "function_declaration generator_function_declaration method_definition function_expression"
    " arrow_function generator_function function"
)
_C_FAMILY = ("\n#", "\nstruct ", "\nstatic ", "\nextern ", "\ntypedef ", "\nvoid ", "\nint ")

LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        LanguageSpec(
            "python",
            ("\nclass ", "\ndef ", "\nasync def ", "\n@", "\n    def ", "\n    async def ", *_TAIL),
            comments=("#",),
        ),
        LanguageSpec(
            "javascript",
            (
                "\nexport ",
                "\nfunction ",
                "\nasync function ",
                "\nclass ",
                "\nconst ",
                "\nlet ",
                "\nvar ",
                *_TAIL,
            ),
            grammar="tree_sitter_javascript",
            kinds=_kinds(function=_JS_FUNCTIONS, cls="class_declaration class"),
            wrappers=frozenset({"export_statement"}),
            variables=frozenset({"lexical_declaration", "variable_declaration"}),
        ),
        LanguageSpec(
            "typescript",
            (
                "\nexport ",
                "\ninterface ",
                "\ntype ",
                "\nenum ",
                "\nnamespace ",
                "\nfunction ",
                "\nasync function ",
                "\nclass ",
                "\nabstract class ",
                "\nconst ",
                "\nlet ",
                *_TAIL,
            ),
            grammar="tree_sitter_typescript",
            grammar_function="language_typescript",
            kinds=_kinds(
                function=_JS_FUNCTIONS + " function_signature abstract_method_signature",
                cls="class_declaration abstract_class_declaration class",
                types="interface_declaration type_alias_declaration enum_declaration",
                namespace="internal_module module",
            ),
            wrappers=frozenset({"export_statement", "ambient_declaration"}),
            variables=frozenset({"lexical_declaration", "variable_declaration"}),
        ),
        LanguageSpec(
            "java",
            (
                "\npublic ",
                "\nprotected ",
                "\nprivate ",
                "\nclass ",
                "\ninterface ",
                "\nenum ",
                "\n    public ",
                "\n    protected ",
                "\n    private ",
                "\n    @",
                *_TAIL,
            ),
            grammar="tree_sitter_java",
            kinds=_kinds(
                function="method_declaration constructor_declaration",
                cls="class_declaration interface_declaration enum_declaration record_declaration"
                " annotation_type_declaration",
            ),
        ),
        LanguageSpec(
            "go",
            ("\nfunc ", "\ntype ", "\nvar ", "\nconst ", *_TAIL),
            grammar="tree_sitter_go",
            kinds=_kinds(
                function="function_declaration method_declaration", types="type_declaration"
            ),
        ),
        LanguageSpec(
            "rust",
            (
                "\nfn ",
                "\npub fn ",
                "\nimpl",
                "\nstruct ",
                "\npub struct ",
                "\nenum ",
                "\npub enum ",
                "\ntrait ",
                "\npub trait ",
                "\nmod ",
                "\n    fn ",
                "\n    pub fn ",
                *_TAIL,
            ),
            grammar="tree_sitter_rust",
            kinds=_kinds(
                function="function_item macro_definition",
                cls="impl_item trait_item",
                types="struct_item enum_item union_item type_item",
                namespace="mod_item",
            ),
        ),
        LanguageSpec(
            "c",
            (*_C_FAMILY, "\nchar ", "\nunsigned ", "\ndouble ", *_TAIL),
            grammar="tree_sitter_c",
            kinds=_kinds(
                function="function_definition",
                types="struct_specifier enum_specifier union_specifier",
            ),
        ),
        LanguageSpec(
            "cpp",
            ("\nnamespace ", "\ntemplate", "\nclass ", *_C_FAMILY, "\nauto ", *_TAIL),
            grammar="tree_sitter_cpp",
            kinds=_kinds(
                function="function_definition",
                cls="class_specifier struct_specifier",
                types="enum_specifier union_specifier",
                namespace="namespace_definition",
            ),
            wrappers=frozenset({"template_declaration"}),
        ),
        LanguageSpec(
            "csharp",
            (
                "\nnamespace ",
                "\npublic ",
                "\ninternal ",
                "\nclass ",
                "\ninterface ",
                "\n    public ",
                "\n    private ",
                "\n    protected ",
                "\n    internal ",
                *_TAIL,
            ),
            grammar="tree_sitter_c_sharp",
            kinds=_kinds(
                function="method_declaration constructor_declaration",
                cls="class_declaration interface_declaration struct_declaration record_declaration",
                types="enum_declaration",
                namespace="namespace_declaration",
            ),
        ),
        LanguageSpec(
            "ruby",
            ("\nclass ", "\nmodule ", "\ndef ", "\n  def ", *_TAIL),
            comments=("#",),
            grammar="tree_sitter_ruby",
            kinds=_kinds(function="method singleton_method", cls="class", namespace="module"),
        ),
        LanguageSpec(
            "php",
            (
                "\nfunction ",
                "\nclass ",
                "\ninterface ",
                "\ntrait ",
                "\n    public function ",
                "\n    protected function ",
                "\n    private function ",
                *_TAIL,
            ),
            comments=("//", "/*", "*", "#"),
            grammar="tree_sitter_php",
            grammar_function="language_php",
            kinds=_kinds(
                function="function_definition method_declaration",
                cls="class_declaration interface_declaration trait_declaration",
                types="enum_declaration",
            ),
        ),
        LanguageSpec(
            "kotlin",
            ("\nclass ", "\nobject ", "\ninterface ", "\nfun ", "\n    fun ", "\nval ", *_TAIL),
        ),
        LanguageSpec(
            "swift",
            ("\nclass ", "\nstruct ", "\nenum ", "\nprotocol ", "\nextension ", "\nfunc ", *_TAIL),
        ),
        LanguageSpec("scala", ("\nclass ", "\nobject ", "\ntrait ", "\ndef ", "\n  def ", *_TAIL)),
        LanguageSpec("bash", ("\nfunction ", *_TAIL), comments=("#",)),
        LanguageSpec("lua", ("\nfunction ", "\nlocal function ", *_TAIL), comments=("--",)),
        LanguageSpec("text", ("\n\n\n", *_TAIL), comments=()),
    )
}


ALIASES: dict[str, str] = {
    "py": "python",
    "python3": "python",
    "js": "javascript",
    "jsx": "javascript",
    "node": "javascript",
    "ts": "typescript",
    "tsx": "typescript",
    "golang": "go",
    "rs": "rust",
    "c++": "cpp",
    "cxx": "cpp",
    "c#": "csharp",
    "cs": "csharp",
    "c_sharp": "csharp",
    "rb": "ruby",
    "kt": "kotlin",
    "sh": "bash",
    "shell": "bash",
    "zsh": "bash",
}


def spec_for(language: str) -> LanguageSpec:
    """The spec of ``language`` (a name or alias, any case); ``text``'s for
    a language not in the table."""
    name = language.strip().lower()
    name = ALIASES.get(name, name)
    return LANGUAGES.get(name) or LanguageSpec(name, LANGUAGES["text"].separators, comments=())
