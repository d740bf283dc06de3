"""The ``extractive`` generator: quotes the right sentences, cites the right
chunks, and says so when the hits do not answer the question."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from pydantic import ValidationError
from ragloom.builtin.generators._figures import fits_kind, given_figures
from ragloom.builtin.generators._kind_words import unknown_acronym, unknown_kind
from ragloom.builtin.generators._kinds import answer_kind, counted_thing
from ragloom.builtin.generators._measures import measures_another, prices_another_period
from ragloom.builtin.generators._names import entities
from ragloom.builtin.generators._parts import question_parts
from ragloom.builtin.generators._people import asked_age, asker, holds_age
from ragloom.builtin.generators._questions import main_question
from ragloom.builtin.generators._sums import _INSTEAD
from ragloom.builtin.generators.extractive import (
    FOLLOW_UP,
    FROM_DEPRECATED,
    NOT_ENGLISH,
    NOT_FOUND,
    UNANSWERED_PART,
    ExtractiveGenerator,
    split_sentences,
    stem,
)
from ragloom.types import Answer, Chunk, Hit


def chunk(source: str, text: str, index: int = 0, anchor: str | None = None) -> Chunk:
    return Chunk(
        id=f"{source}::{index}",
        document_id=source,
        text=text,
        index=index,
        start=0,
        end=len(text),
        label=f"{source}#{anchor or f'chunk-{index}'}",
        metadata={"source": source},
    )


def hits_of(*chunks: Chunk) -> list[Hit]:
    return [Hit(c, score=1.0 - i / 10) for i, c in enumerate(chunks)]


def _opens_with_or_refuses(answer: Answer, said: str | None) -> None:
    """The answer opens with ``said``, or, where it is None, is a refusal."""
    if said is None:
        assert not answer.grounded, answer.text
    else:
        assert answer.text.startswith(said), answer.text


DISCOUNTS = (
    "## Discounts\n\nSeniors (65 and over) get a 10% discount on all passes. Children "
    "under 5 travel free.\n\n## Passes\n\nA day pass costs £10.\n\n"
)
PRICING = chunk(
    "docs/pricing.md",
    "# Pricing\n\n"
    "Acme Cloud offers three plans: Starter, Pro and Enterprise.\n\n"
    "## Pro plan\n"
    "The Pro plan costs $29 per user per month. Annual billing saves 20%.\n",
    0,
    "pro-plan",
)
ENTERPRISE = chunk(
    "docs/pricing.md",
    "## Enterprise plan\n"
    "Enterprise pricing is custom, e.g. for teams above 500 seats. "
    "Enterprise includes SSO, audit logs and a 99.9% uptime SLA.\n",
    1,
    "enterprise-plan",
)
FEATURES = chunk(
    "docs/features.md",
    "# Features\n\n"
    "- Real-time collaboration with comments and mentions.\n"
    "- Version history for 90 days on Pro.\n"
    "- Integrations with Slack, GitHub and Jira.\n\n"
    "All data is encrypted at rest with AES-256.\n",
    0,
    "features",
)
ABOUT = chunk(
    "docs/about.md",
    "The company is based in Berlin. Our support team answers email within one day.",
    0,
    "about",
)
DOCS = hits_of(PRICING, ENTERPRISE, FEATURES, ABOUT)


@pytest.fixture
def generator() -> ExtractiveGenerator:
    return ExtractiveGenerator()


def assert_not_found(answer: Answer) -> None:
    assert answer.grounded is False
    assert answer.text.startswith(NOT_FOUND)
    assert NOT_FOUND == "I could not find information about this in the indexed documents."
    assert answer.citations == ()


def markers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\[(\d+)\]", text)]


def test_relevant_question_quotes_the_right_sentence(generator: ExtractiveGenerator) -> None:
    answer = generator.generate("How much does the Pro plan cost?", DOCS)
    assert answer.grounded is True
    assert "The Pro plan costs $29 per user per month [1]." in answer.text
    first = answer.citations[0]
    assert first.number == 1
    assert first.label == "docs/pricing.md#pro-plan"
    assert first.chunk_id == PRICING.id
    assert first.source == "docs/pricing.md"
    assert "The Pro plan costs $29 per user per month." in first.quote
    assert answer.hits == tuple(DOCS)
    assert answer.metadata == {"generator": "extractive"}


def test_stemming_matches_word_forms(generator: ExtractiveGenerator) -> None:
    answer = generator.generate("What is the pricing for Enterprise?", DOCS)
    assert answer.grounded
    assert "Enterprise pricing is custom, e.g. for teams above 500 seats [" in answer.text
    cited = [c for c in answer.citations if "Enterprise pricing is custom" in c.quote]
    assert [c.label for c in cited] == ["docs/pricing.md#enterprise-plan"]
    assert stem("pricing") == stem("price") == stem("prices") == stem("priced")
    assert stem("costs") == stem("cost") == stem("costing")
    assert stem("cancelled") == stem("cancel") == stem("canceling")
    assert stem("policies") == stem("policy")
    assert stem("uses") == stem("using") == stem("used") == stem("use")


@pytest.mark.parametrize(
    ("noun", "verb"),
    [
        ("attachment", "attach"),
        ("deletion", "deleted"),
        ("cancellations", "cancel"),
        ("payment", "pay"),
        ("departure", "depart"),
        ("reservation", "reserve"),
        ("insurance", "insured"),
        ("rental", "rent"),
    ],
)
def test_a_noun_made_from_a_verb_meets_the_verb(noun: str, verb: str) -> None:
    """ "Can I attach ..." and "An attachment can be ..." speak of one thing."""
    assert stem(noun) == stem(verb)


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("My dog's booster is late. Can he have one injection?", "Can he have one injection?"),
        ("If I cancel after 5 months, do I owe anything?", "do I owe anything?"),
        ("I'm 22, can I rent the Toyota RAV4?", "can I rent the Toyota RAV4?"),
        ("Is Dr. Brenner available in March?", "Is Dr. Brenner available in March?"),
        ("Yes, but how much is it?", "Yes, but how much is it?"),
    ],
)
def test_the_question_asked_is_the_last_past_its_opening(question: str, asked: str) -> None:
    assert main_question(question) == asked


@pytest.mark.parametrize(
    ("noun", "other"),
    [
        ("department", "departure"),
        ("allowance", "allowed"),
        ("station", "state"),
        ("sentence", "sent"),
        ("comment", "come"),
    ],
)
def test_a_noun_that_only_looks_derived_stays_apart(noun: str, other: str) -> None:
    assert stem(noun) != stem(other)


def test_single_short_document(generator: ExtractiveGenerator) -> None:
    only = chunk("notes.txt", "The Pro plan costs $29 per user per month.")
    answer = generator.generate("How much does the Pro plan cost?", hits_of(only))
    assert answer.grounded
    assert answer.text == "The Pro plan costs $29 per user per month [1]."
    assert [c.label for c in answer.citations] == ["notes.txt#chunk-0"]


def test_bullet_answer(generator: ExtractiveGenerator) -> None:
    answer = generator.generate("Which integrations are available?", DOCS)
    assert answer.grounded
    assert "Integrations with Slack, GitHub and Jira [" in answer.text
    assert any(c.label == "docs/features.md#features" for c in answer.citations)


@pytest.mark.parametrize(
    "question",
    [
        "What is the capital of Mongolia?",
        "Who founded the company?",
        "When was the company founded?",
        "Who is the CEO?",
        "How do I delete my account?",
    ],
)
def test_unrelated_question_is_not_found(generator: ExtractiveGenerator, question: str) -> None:
    answer = generator.generate(question, DOCS)
    assert_not_found(answer)
    assert answer.hits == tuple(DOCS)
    assert answer.metadata == {"generator": "extractive"}


def test_no_hits_is_not_found(generator: ExtractiveGenerator) -> None:
    answer = generator.generate("How much does the Pro plan cost?", [])
    assert_not_found(answer)
    assert answer.hits == ()


@pytest.mark.parametrize("question", ["", "What is it?", "How can I do that?", "??"])
def test_stopword_only_question_is_not_found(generator: ExtractiveGenerator, question: str) -> None:
    assert_not_found(generator.generate(question, DOCS))


def test_citations_are_numbered_in_order_and_refer_to_given_hits() -> None:
    generator = ExtractiveGenerator(max_sentences=3, min_relevance=0.2)
    hits = hits_of(ENTERPRISE, PRICING, FEATURES)
    answer = generator.generate("Enterprise plan pricing and Pro plan cost per month", hits)
    assert answer.grounded
    numbers = [c.number for c in answer.citations]
    assert numbers == list(range(1, len(numbers) + 1))
    assert len(numbers) >= 2
    # markers in the text: first uses appear in order 1, 2, ...; every marker has a citation
    used = markers(answer.text)
    first_uses = list(dict.fromkeys(used))
    assert first_uses == numbers
    given = {h.chunk.id: h.chunk for h in hits}
    for citation in answer.citations:
        assert citation.chunk_id in given
        assert citation.label == given[citation.chunk_id].label
        assert (
            citation.quote and citation.quote.split(" \u2026 ")[0] in given[citation.chunk_id].text
        )
    assert len({c.chunk_id for c in answer.citations}) == len(answer.citations)
    # hits are ranked: the first-ranked hit's sentence comes first
    assert answer.citations[0].chunk_id == ENTERPRISE.id


def test_max_sentences_is_respected() -> None:
    text = " ".join(f"Widget model {i} supports export to CSV format." for i in range(10))
    hits = hits_of(chunk("widgets.md", text))
    answer = ExtractiveGenerator(max_sentences=2).generate(
        "Which widgets support CSV export?", hits
    )
    assert answer.grounded
    assert len(markers(answer.text)) == 2


def test_sentences_from_one_chunk_share_a_citation(generator: ExtractiveGenerator) -> None:
    text = "Refunds are processed within 30 days. Exchanges are processed within 5 days."
    answer = generator.generate(
        "How are refunds and exchanges processed?", hits_of(chunk("refunds.md", text))
    )
    assert markers(answer.text) == [1, 1]
    assert len(answer.citations) == 1


def test_duplicate_sentences_from_overlapping_chunks_are_quoted_once(
    generator: ExtractiveGenerator,
) -> None:
    a = chunk("doc.md", "Intro text here. The API rate limit is 100 requests per minute.", 0)
    b = chunk("doc.md", "The API rate limit is 100 requests per minute. More text.", 1)
    answer = generator.generate("What is the API rate limit?", hits_of(a, b))
    assert answer.text.count("rate limit") == 1
    assert [c.chunk_id for c in answer.citations] == [a.id]


def test_headings_are_never_the_answer(generator: ExtractiveGenerator) -> None:
    text = "# Refund policy\n\nWe issue refunds within 30 days of purchase.\n"
    answer = generator.generate("What is the refund policy?", hits_of(chunk("refunds.md", text)))
    assert answer.grounded
    assert answer.text == "We issue refunds within 30 days of purchase [1]."
    only_heading = hits_of(chunk("h.md", "# Refund policy\n"))
    assert_not_found(generator.generate("What is the refund policy?", only_heading))


def test_faq_question_lines_give_context_not_answers(generator: ExtractiveGenerator) -> None:
    text = (
        "**How do I reset my password?**\n"
        'Click "Forgot password" on the sign-in page.\n\n'
        "**Is there a mobile app?**\n"
        "Yes, for iOS and Android.\n"
    )
    answer = generator.generate("Is there an iOS app?", hits_of(chunk("faq.md", text)))
    assert answer.grounded
    assert answer.text == "Yes, for iOS and Android [1]."


def test_abbreviations_and_numbers_do_not_split_sentences() -> None:
    text = (
        "Dr. Smith wrote the guide, e.g. the chapter on setup. "
        "Version 1.5 added SSO, i.e. single sign-on. "
        "See Fig. 3 for details. It was written by J. R. R. Tolkien.\n"
        "Prices are approx. 29 USD."
    )
    assert split_sentences(text) == [
        "Dr. Smith wrote the guide, e.g. the chapter on setup.",
        "Version 1.5 added SSO, i.e. single sign-on.",
        "See Fig. 3 for details.",
        "It was written by J. R. R. Tolkien.",
        "Prices are approx. 29 USD.",
    ]


def test_splitter_handles_markdown_structure() -> None:
    text = (
        "# Title\n\n"
        "First sentence. Second one!\nwrapped line continues here.\n\n"
        "- bullet one\n"
        "* bullet two. With two sentences.\n"
        "1. numbered\n\n"
        "| Plan | Price |\n|------|-------|\n| Pro | $29 |\n\n"
        "```\npip install acme\n```\n"
    )
    assert split_sentences(text, kinds=True) == [
        ("Title", "heading"),
        ("First sentence.", "sentence"),
        ("Second one! wrapped line continues here.", "sentence"),
        ("bullet one", "bullet"),
        ("bullet two.", "bullet"),
        ("With two sentences.", "sentence"),
        ("numbered", "bullet"),
        ("Plan | Price", "header"),
        ("Pro | $29", "row"),
        ("pip install acme", "code"),
    ]


def test_a_short_line_between_sentences_is_a_heading_not_their_words(
    generator: ExtractiveGenerator,
) -> None:
    """A PDF's text has no blank line under a heading: "How we measure" ran
    into the sentence under it, which was then quoted as one ("How we measure
    We measure pans ..."), in no document. A wrapped line is never that short."""
    text = (
        "Dutch ovens\n"
        "The 5.5 qt Dutch oven serves 6 and fits a whole chicken of up to 2 kg.\n"
        "How we measure\n"
        "We measure pans across the top rim, not the cooking surface.\n"
        "You can return any pan within 30 days of delivery, as long as\n"
        "it is unused. Please contact\n"
        "Maria Lopez at the front desk for refunds and exchanges of any kind.\n"
    )
    assert split_sentences(text, kinds=True) == [
        ("Dutch ovens", "heading"),
        ("The 5.5 qt Dutch oven serves 6 and fits a whole chicken of up to 2 kg.", "sentence"),
        ("How we measure", "heading"),
        ("We measure pans across the top rim, not the cooking surface.", "sentence"),
        ("You can return any pan within 30 days of delivery, as long as it is unused.", "sentence"),
        # (a line that goes on after a sentence's end is the text's, not a heading)
        (
            "Please contact Maria Lopez at the front desk for refunds and exchanges of any kind.",
            "sentence",
        ),
    ]
    answer = generator.generate(
        "Are pans measured at the top rim or the cooking surface?",
        hits_of(chunk("size-guide.pdf", text)),
    )
    assert answer.text == "We measure pans across the top rim, not the cooking surface [1]."
    assert answer.citations[0].quote in text


def test_a_quoted_reply_is_no_part_of_the_line_before_or_after_it() -> None:
    """A mail's "... wrote:" line, the text it quotes and the reply after it
    are each a paragraph: a quote joining them would be in no document."""
    text = (
        "On Mon, 21 Jul 2025, Priya Raman wrote:\n"
        "> After upgrading to 2.4.1 our workers grow\n> to 4 GB of RAM within a day.\n"
        "Set max_tasks_per_child to 500, not 50.\n"
    )
    assert split_sentences(text) == [
        "On Mon, 21 Jul 2025, Priya Raman wrote:",
        "After upgrading to 2.4.1 our workers grow to 4 GB of RAM within a day.",
        "Set max_tasks_per_child to 500, not 50.",
    ]
    # a line under a quote's with no ">" goes on with it (Markdown's lazy continuation)
    lazy = (
        "> Back up the database before every upgrade, because\nthe migrations cannot be undone.\n"
    )
    assert split_sentences(lazy) == [
        "Back up the database before every upgrade, because the migrations cannot be undone."
    ]


def test_table_header_gives_context(generator: ExtractiveGenerator) -> None:
    text = "| Plan | Monthly price |\n|---|---|\n| Starter | $0 |\n| Pro | $29 |\n"
    answer = generator.generate("What is the price of the Pro plan?", hits_of(chunk("t.md", text)))
    assert answer.grounded
    # each cell after its column's name: "$29" is said to be the monthly price
    assert answer.text.startswith("Plan: Pro; Monthly price: $29 [1].")
    assert answer.citations[0].quote == "Pro | $29"  # the quote stays verbatim


def test_higher_ranked_hit_wins_a_tie(generator: ExtractiveGenerator) -> None:
    a = chunk("a.md", "The Pro plan costs $29 per month.")
    b = chunk("b.md", "The Pro plan costs $35 per month.")
    answer = generator.generate("Pro plan cost", hits_of(b, a))
    assert answer.citations[0].source == "b.md"
    assert answer.text.startswith("The Pro plan costs $35")


def test_stream_yields_text_then_answer(generator: ExtractiveGenerator) -> None:
    pieces = list(generator.stream("How much does the Pro plan cost?", DOCS))
    assert isinstance(pieces[-1], Answer)
    assert "".join(p for p in pieces[:-1] if isinstance(p, str)) == pieces[-1].text


def test_config_validation() -> None:
    with pytest.raises(ValidationError, match="not supported"):
        ExtractiveGenerator(language="de")
    with pytest.raises(ValidationError):
        ExtractiveGenerator(max_sentences=0)
    with pytest.raises(ValidationError):
        ExtractiveGenerator(min_relevance=1.5)
    with pytest.raises(ValidationError):
        ExtractiveGenerator(temperature=0.2)


def test_min_relevance_zero_answers_anything_that_overlaps() -> None:
    strict = ExtractiveGenerator(min_relevance=0.99)
    assert not strict.generate("Which support team is based in Berlin?", DOCS).grounded
    loose = ExtractiveGenerator(min_relevance=0.1)
    assert loose.generate("Which support team is based in Berlin?", DOCS).grounded


def test_founded_does_not_match_found(generator: ExtractiveGenerator) -> None:
    text = (
        "Settings can be found under the gear icon. "
        "If no config file is found, defaults are used. "
        "The company ships weekly releases."
    )
    answer = generator.generate("Who founded the company?", hits_of(chunk("docs.md", text)))
    assert_not_found(answer)
    history = hits_of(chunk("about.md", "Acme was founded in 2015 by Jane Doe and Raj Patel."))
    answer = generator.generate("Who founded the company?", history)
    assert answer.grounded
    assert "Jane Doe" in answer.text


def test_navigation_and_link_definitions_are_not_answers(
    generator: ExtractiveGenerator,
) -> None:
    text = (
        "# Guide\n\n"
        "- [Install on Windows](#install-on-windows)\n"
        "- [Install on Linux](#install-on-linux)\n\n"
        "[![Build](https://ci.example.com/badge.svg)](https://ci.example.com)\n\n"
        "## Install on Linux\n\n"
        "Run the installer script from the [download page](https://example.com/dl).\n\n"
        "[download]: https://example.com/dl\n"
    )
    answer = generator.generate("How do I install on Linux?", hits_of(chunk("guide.md", text)))
    assert answer.grounded
    # said after its heading, which names what the question names and it does not
    assert answer.text == (
        "Install on Linux: Run the installer script from the [download page]"
        "(https://example.com/dl) [1]."
    )
    assert "Install on Linux" in answer.citations[0].quote


def test_a_table_laid_out_in_spaces_is_read_as_a_table(generator: ExtractiveGenerator) -> None:
    """A PDF's (or a text file's) table keeps its columns apart with spaces:
    its lines are a header and rows, not one sentence that runs through them."""
    text = (
        "Staff ratios\nWe always meet the ratios required by the EYFS framework.\n"
        "Room                    Age                        Adults : children\n"
        "Seedlings               3-23 months                1:3\n"
        "Saplings                24-35 months               1:5\n"
        "Oak Room                3 years to school age      1:8\n"
        "At mealtimes we add an extra adult to each room.\n"
    )
    kinds = [kind for _, kind in split_sentences(text, kinds=True)]
    assert kinds == ["heading", "sentence", "header", "row", "row", "row", "sentence"]
    answer = generator.generate(
        "What is the ratio in Saplings?", hits_of(chunk("ratios.pdf", text))
    )
    assert answer.text.startswith("Room: Saplings; Age: 24-35 months; Adults : children: 1:5")


@pytest.mark.parametrize(
    "text",
    [
        # sentences spaced twice after their periods
        "We are open.  Please call ahead.\nClosed on Sundays.  Ring first.\nOpen late.  Ask us.\n",
        # justified prose: its gaps fall anywhere
        "Fees  are  invoiced  monthly  in\nadvance and  must be paid  by the\n"
        "first of the  month,  at  £10 per\nweek until  the balance is paid.\n",
        # a settings file, an options list, lettered steps
        "host      = 127.0.0.1\nport      = 8080\nworkers   = 4\n",
        "--host      Host to bind (default 127.0.0.1)\n--port      Port (default 8080)\n"
        "--workers   Worker count (default 4)\n",
        "a)  Complete the registration form\nb)  Pay the £50 deposit\n"
        "c)  Book 2 settling-in visits\n",
        # a first line of figures is no header: opening hours
        "Monday - Friday    7:30am - 6:00pm\nSaturday           9:00am - 1:00pm\n"
        "Sunday             Closed at 5\n",
    ],
)
def test_text_laid_out_in_spaces_that_is_no_table_is_not_read_as_one(text: str) -> None:
    assert not {"header", "row"} & {kind for _, kind in split_sentences(text, kinds=True)}


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "How many webhook endpoints can I have on the Starter plan, and how long are its "
            "message logs kept?",
            [
                "How many webhook endpoints can I have on the Starter plan?",
                "How long are the Starter plan's message logs kept?",
            ],
        ),
        # ("it" may be what the first part does, not where: left whole)
        (
            "How do I get on the waiting list, and does it cost anything?",
            ["How do I get on the waiting list, and does it cost anything?"],
        ),
        (
            "How do I get to the airport, and how long does it take?",
            ["How do I get to the airport, and how long does it take?"],
        ),
    ],
)
def test_its_stands_for_the_place_the_first_part_ends_on(question: str, parts: list[str]) -> None:
    assert [part.question for part in question_parts(question)] == parts


def test_plain_text_title_lines_are_headings() -> None:
    text = "Installation\n\nRun the installer. Then restart.\n\nLicense\n\nMIT.\n"
    assert split_sentences(text, kinds=True) == [
        ("Installation", "heading"),
        ("Run the installer.", "sentence"),
        ("Then restart.", "sentence"),
        ("License", "heading"),
        ("MIT.", "sentence"),
    ]


def test_section_metadata_gives_context(generator: ExtractiveGenerator) -> None:
    with_section = Chunk(
        id="p::3",
        document_id="p",
        text="It costs $29 per user per month.",
        index=3,
        start=0,
        end=32,
        label="pricing.md#pro-plan",
        metadata={"source": "pricing.md", "section": "Pro plan"},
    )
    answer = generator.generate("How much does the Pro plan cost?", hits_of(with_section))
    assert answer.grounded
    assert answer.citations[0].label == "pricing.md#pro-plan"


GARDEN = chunk(
    "docs/garden.md",
    "# Gardenly\n\n"
    "Gardenly sells three kits. The Herb kit grows basil and mint indoors. "
    "The Balcony kit fits a two-metre railing. The Orchard kit ships with "
    "five young trees. Every order ships within a week.\n\n"
    "## Returns\n"
    "The Herb kit can be returned within 30 days.\n",
    0,
    "gardenly",
)


def test_a_sentence_announcing_n_items_is_quoted_with_the_items(
    generator: ExtractiveGenerator,
) -> None:
    """Asked which kits there are, "Gardenly sells three kits." names none of
    them: the three sentences after it that name a kit come with it, and
    nothing past them (not the next sentence, not the next section)."""
    answer = generator.generate("Which kits does Gardenly sell?", hits_of(GARDEN))
    assert answer.grounded
    for kit in ("Herb kit grows", "Balcony kit", "Orchard kit"):
        assert kit in answer.text, answer.text
    assert "within a week" not in answer.text
    assert "returned" not in answer.text
    assert markers(answer.text) == [1, 1, 1, 1]


def test_an_announcement_that_names_its_items_is_quoted_alone(
    generator: ExtractiveGenerator,
) -> None:
    answer = generator.generate("Which plans does Acme Cloud offer?", DOCS)
    assert answer.text.startswith(
        "Acme Cloud offers three plans: Starter, Pro and Enterprise [1]."
    ), answer.text
    assert "$29" not in answer.text


SUBSCRIPTIONS = chunk(
    "docs/coffee.md",
    "## Subscriptions\n"
    "The Explorer subscription sends one 250 g bag every month for €14. The Barista "
    "subscription sends two 500 g bags every two weeks for €39. The Office subscription "
    "is for teams: 5 kg a month for €149.\n",
)
ROASTING = chunk(
    "docs/coffee.md",
    "## Roasting\n"
    "Orbital Coffee roasts specialty coffee and sends it by post. All beans are roasted "
    "in Leipzig on a drum roaster.\n",
    1,
)


@pytest.mark.parametrize(
    ("question", "wanted", "others"),
    [
        ("What does the Office plan cost?", "€149", ["€14.", "€39"]),
        ("What's the price of the Explorer tier?", "€14", ["€39", "€149"]),
        ("How often does the Barista package ship?", "every two weeks", ["every month"]),
    ],
)
def test_a_kind_noun_the_passages_do_not_use_is_read_as_theirs(
    generator: ExtractiveGenerator, question: str, wanted: str, others: list[str]
) -> None:
    """The Office plan asked, the Office subscription written: the
    sentence about that one subscription, not a refusal, nor another's."""
    answer = generator.generate(question, hits_of(SUBSCRIPTIONS, ROASTING))
    assert answer.grounded and wanted in answer.text
    assert not any(other in answer.text for other in others)


def test_only_kind_nouns_are_swapped() -> None:
    from ragloom.builtin.generators._names import in_passage_words

    texts = [SUBSCRIPTIONS.text, "Ledgerly comes in two editions. Ledgerly Pro runs payroll."]
    swap = in_passage_words
    assert swap("What does the Office plan cost?", ["Office"], texts).endswith("subscription cost?")
    assert (
        swap("Is the Office subscription invoiced?", ["Office"], texts).count("subscription") == 1
    )
    # a verb after a name is never replaced by what follows it in the passages
    assert (
        swap("Does Ledgerly support Stripe?", ["Ledgerly"], texts)
        == "Does Ledgerly support Stripe?"
    )
    # nor a kind noun by a word that is not one
    assert swap("Is there a Ledgerly plan?", ["Ledgerly"], texts) == "Is there a Ledgerly plan?"


def test_a_name_the_passages_lack_is_still_refused_under_another_kind_noun(
    generator: ExtractiveGenerator,
) -> None:
    assert_not_found(generator.generate("How much is the Family plan?", hits_of(SUBSCRIPTIONS)))


def test_where_is_answered_by_a_sentence_that_holds_a_place(
    generator: ExtractiveGenerator,
) -> None:
    answer = generator.generate("Where is Orbital Coffee roasted?", hits_of(ROASTING))
    assert "Leipzig" in answer.text and "by post" not in answer.text
    # no sentence names a place the way the rule knows: the best one is still quoted
    plain = chunk("docs/faq.md", "Invoices can be downloaded from your account settings.")
    assert (
        "account settings"
        in generator.generate("Where can I get my invoices?", hits_of(plain)).text
    )


def test_a_table_row_answers_with_the_header_as_context(generator: ExtractiveGenerator) -> None:
    """A table from a CSV or an HTML page is a Markdown table: one row is
    quoted, the one that names the entity, with the column the header names."""
    table = chunk(
        "docs/models.csv",
        "| model | frame | gears |\n| --- | --- | --- |\n"
        "| Swift | carbon | 22 |\n| Trail | aluminium | 12 |\n| City | steel | 8 |\n",
    )
    answer = generator.generate("How many gears does the City have?", hits_of(table))
    assert answer.text == "model: City; gears: 8 [1]."


def test_a_table_without_outer_pipes_is_a_table(generator: ExtractiveGenerator) -> None:
    """A table in a plain-text runbook, written GitHub's other way (no pipe at
    either end): its rows were lines of a paragraph, and "Who is the primary
    on-call in week 28?" was answered with the header row alone."""
    rota = chunk(
        "docs/oncall.txt",
        "Rotation changes every Monday.\n\n"
        "Week  | Primary       | Secondary\n"
        "------|---------------|-------------\n"
        "27    | Ingrid Saether | Tomasz Wrobel\n"
        "28    | Tomasz Wrobel | Ama Mensah\n"
        "29    | Ama Mensah    | Lars Oberg\n\n"
        "Pages go to the primary | then the secondary.\n",
    )
    assert [kind for _, kind in split_sentences(rota.text, kinds=True)] == [
        "sentence",
        "header",
        "row",
        "row",
        "row",
        "sentence",  # a pipe in prose after the table: no row
    ]
    answer = generator.generate("Who is the primary on-call in week 28?", hits_of(rota))
    assert answer.text == "Week: 28; Primary: Tomasz Wrobel [1]."


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # an aside in brackets after the subject is not its head: priced
        # express delivery, not a day (it was refused)
        ("How much does express delivery cost?", "costs 14.90 EUR [1]."),
        ("How much is express delivery?", "costs 14.90 EUR [1]."),
        # and another kind of the same thing the sentence names is not priced by it
        ("How much does standard delivery cost?", None),
        # but a kind it names in the aside is no other kind
        ("How much does next-day delivery cost?", "costs 14.90 EUR [1]."),
        # and one no passage names, where they name two others, is neither of them
        ("How much does overnight delivery cost?", None),
    ],
)
def test_a_price_is_of_its_subject_not_its_aside_nor_another_kind(
    generator: ExtractiveGenerator, question: str, expected: str | None
) -> None:
    shipping = chunk(
        "docs/delivery.md",
        "Standard delivery takes 2–4 working days; express delivery (next day) costs 14.90 EUR.\n",
    )
    answer = generator.generate(question, hits_of(shipping))
    if expected is None:
        assert not answer.grounded, answer.text
    else:
        assert answer.grounded and answer.text.endswith(expected), answer.text


def test_a_size_the_passages_do_not_write_after_a_name_is_no_part_of_it(
    generator: ExtractiveGenerator,
) -> None:
    trial = chunk("docs/trial.md", "The Acme Cloud trial lasts 14 days and is free.\n")
    answer = generator.generate("Is the Acme Cloud 14-day trial free?", hits_of(trial))
    assert answer.text == "The Acme Cloud trial lasts 14 days and is free [1]."


def test_a_table_without_outer_pipes_reads_as_github_does() -> None:
    """A row short of a cell, a row of names that looks like a title, a
    blank line ending the table: what a review found broke the first cut."""
    text = (
        "On-call owners\n\n"
        "Name | Team\n"
        "-----|-----\n"
        "Alice | Ops\n"
        "Bob Brown | Support Desk Two\n"
        "Carol |\n"
        "Dan | Billing\n\n"
        "Pages go to the owner | then the team.\n"
    )
    assert split_sentences(text, kinds=True) == [
        ("On-call owners", "heading"),
        ("Name | Team", "header"),
        ("Alice | Ops", "row"),
        ("Bob Brown | Support Desk Two", "row"),
        ("Carol", "row"),
        ("Dan | Billing", "row"),
        ("Pages go to the owner | then the team.", "sentence"),
    ]


def test_a_models_size_is_part_of_its_name(generator: ExtractiveGenerator) -> None:
    """ "Does the Fjord Toaster 2-slot have a bun warmer?" was answered with
    the 4-slot's sentence, which a reader takes for "yes": the size that
    follows a name is part of it, and names a rival."""
    toasters = chunk(
        "docs/product-lines.md",
        "The Fjord Toaster 4-slot costs 69.00 EUR. It includes a crumb tray, a defrost "
        "setting and a bun warmer.\n\nThe Fjord Toaster 2-slot costs 44.50 EUR.\n",
    )
    two = generator.generate("Does the Fjord Toaster 2-slot have a bun warmer?", hits_of(toasters))
    assert not two.grounded, two.text
    four = generator.generate("Does the Fjord Toaster 4-slot have a bun warmer?", hits_of(toasters))
    assert four.grounded and "bun warmer [1]" in four.text
    price = generator.generate("How much is the Fjord Toaster 2-slot?", hits_of(toasters))
    assert price.text == "The Fjord Toaster 2-slot costs 44.50 EUR [1]."


def test_a_lifetime_answers_how_long(generator: ExtractiveGenerator) -> None:
    text = "Every Kestrel frame carries a lifetime warranty. Shipping takes 3 days."
    answer = generator.generate("How long is the frame warranty?", hits_of(chunk("w.md", text)))
    assert answer.text == "Every Kestrel frame carries a lifetime warranty [1]."


def test_an_escaped_pipe_stays_inside_its_cell() -> None:
    text = "| plan | limits |\n| --- | --- |\n| Pro | 5 GB \\| 10 users |\n"
    assert split_sentences(text, kinds=True) == [
        ("plan | limits", "header"),
        ("Pro | 5 GB | 10 users", "row"),
    ]


HANDBOOK = chunk(
    "docs/handbook.md",
    "## Leave\n"
    "Full-time employees receive 25 days of paid annual leave. "
    "Part-time employees receive leave in proportion to their contracted hours. "
    "There is no fixed cap on sick days. "
    "After three consecutive sick days a doctor's note is required.\n\n"
    "## Travel\n"
    "The daily meal allowance is 60 EUR in Europe. In North America it is 75 USD. "
    "There is no charge for a replacement charger.\n",
)


def test_no_bound_at_all_answers_how_many(generator: ExtractiveGenerator) -> None:
    """A sentence saying "no fixed cap" holds no number, yet it answers how many: a sentence
    with a number beside it must not win for lack of one."""
    answer = generator.generate("How many sick days are allowed?", hits_of(HANDBOOK))
    assert "no fixed cap" in answer.text
    assert "three consecutive" not in answer.text


def test_no_charge_answers_how_much_it_costs(generator: ExtractiveGenerator) -> None:
    answer = generator.generate("How much does a replacement charger cost?", hits_of(HANDBOOK))
    assert "no charge" in answer.text


def test_how_much_of_a_thing_is_not_a_price(generator: ExtractiveGenerator) -> None:
    """The question "how much annual leave" asks for an amount of leave, which the answer
    may give in words: not a sum of money in digits (before, the sentence
    that answers was never a candidate)."""
    answer = generator.generate(
        "How much annual leave do part-time employees get?", hits_of(HANDBOOK)
    )
    assert "Part-time employees receive leave in proportion" in answer.text
    price = generator.generate("How much is the daily meal allowance?", hits_of(HANDBOOK))
    assert "60 EUR" in price.text and "in proportion" not in price.text


def test_a_pronoun_subject_after_an_opening_phrase_is_quoted_with_its_antecedent(
    generator: ExtractiveGenerator,
) -> None:
    """In "In North America it is 75 USD", "it" is the meal allowance of the
    sentence before, so the two are quoted together, never the Europe
    figure alone."""
    answer = generator.generate(
        "What is the daily meal allowance in North America?", hits_of(HANDBOOK)
    )
    assert "The daily meal allowance is 60 EUR in Europe. In North America it is 75 USD" in (
        answer.text
    )
    europe = generator.generate("What is the meal allowance in Europe?", hits_of(HANDBOOK))
    assert "60 EUR" in europe.text and "75 USD" not in europe.text


CHANGELOG = chunk(
    "docs/changelog.md",
    "## 3.2.0 (2026-05-14)\n"
    "- Added SAML single sign-on.\n"
    "- Fixed a crash when importing CSV files.\n\n"
    "## 3.1.0 (2026-02-02)\n"
    "- Added dark mode.\n"
    "- Removed support for Internet Explorer 11.\n",
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When was dark mode added?", "3.1.0 (2026-02-02): Added dark mode [1]."),
        ("Which version added SAML?", "3.2.0 (2026-05-14): Added SAML single sign-on [1]."),
        # "11" is a number, not a date: the heading still gives the when
        (
            "When was support for Internet Explorer 11 removed?",
            "3.1.0 (2026-02-02): Removed support for Internet Explorer 11 [1].",
        ),
    ],
)
def test_a_heading_that_holds_the_date_or_version_leads_the_quote(
    generator: ExtractiveGenerator, question: str, expected: str
) -> None:
    answer = generator.generate(question, hits_of(CHANGELOG))
    assert answer.text == expected
    # each piece of the quote is verbatim in the chunk
    (citation,) = answer.citations
    assert citation.quote.split(" \u2026 ") == [
        expected.split(":")[0],
        expected.split(": ")[1][:-5] + ".",
    ]
    assert all(piece in CHANGELOG.text for piece in citation.quote.split(" \u2026 "))


def test_a_heading_leads_only_what_the_sentence_lacks(generator: ExtractiveGenerator) -> None:
    """A sentence that holds its own date, or a question that asks no date or
    version, is quoted without its heading."""
    dated = chunk(
        "docs/news.md", "## 3.1.0 (2026-02-02)\n- Dark mode shipped on 2 February 2026.\n"
    )
    answer = generator.generate("When did dark mode ship?", hits_of(dated))
    assert answer.text == "Dark mode shipped on 2 February 2026 [1]."
    plain = generator.generate("What did 3.1.0 remove?", hits_of(CHANGELOG))
    assert plain.text == "Removed support for Internet Explorer 11 [1]."


FAQ = replace(
    chunk(
        "docs/faq.md",
        "## Is there an on-premise version?\n"
        "No. Tessera is only offered as a hosted service in the EU and US regions.\n\n"
        "## Can I export my data?\n"
        "Yes. Every workspace can be exported as JSON or CSV from Settings.\n",
    ),
    metadata={"source": "docs/faq.md", "title": "Tessera FAQ"},
)


def test_a_bare_yes_or_no_leads_the_reply_to_a_yes_no_question(
    generator: ExtractiveGenerator,
) -> None:
    answer = generator.generate("Is there an on-premise version of Tessera?", hits_of(FAQ))
    assert answer.text == (
        "No. Tessera is only offered as a hosted service in the EU and US regions [1]."
    )
    assert answer.citations[0].quote == (
        "No. \u2026 Tessera is only offered as a hosted service in the EU and US regions."
    )
    # a question that is not yes/no gets the reason alone
    where = generator.generate("In which regions is Tessera hosted?", hits_of(FAQ))
    assert where.text.startswith("Tessera is only offered")
    # nor does a yes/no question that the FAQ's question does not ask
    hosted = generator.generate("Is Tessera offered as a hosted service?", hits_of(FAQ))
    assert hosted.text.startswith("Tessera is only offered")
    card = chunk(
        "docs/payments.md",
        "## Do you store card numbers?\n"
        "No. Card numbers are handled by Stripe, which stores them encrypted.\n",
    )
    stripe = generator.generate("Does Stripe store card numbers?", hits_of(card))
    assert stripe.text.startswith("Card numbers are handled by Stripe")
    # nor one about a version the FAQ's question does not name ("1.x" supported it)
    broker = chunk(
        "docs/faq.md",
        "## Does Ferrule support RabbitMQ?\n"
        "No. RabbitMQ support was removed in 2.0.0; use Redis or PostgreSQL.\n",
    )
    for question in ("Is RabbitMQ supported in Ferrule 1.x?", "Did Ferrule 1.4 support RabbitMQ?"):
        old = generator.generate(question, hits_of(broker))
        assert not old.text.startswith("No."), (question, old.text)
    now = generator.generate("Does Ferrule support RabbitMQ?", hits_of(broker))
    assert now.text.startswith("No. RabbitMQ support was removed")


def test_a_faq_reply_leads_only_the_answer_to_its_own_question(
    generator: ExtractiveGenerator,
) -> None:
    """A FAQ's "Yes." replies to its own question: under another that
    shares a word with the one asked, it is not quoted (a "cannot" answer
    followed by "Yes." reads as the opposite)."""
    meta = {"source": "docs/returns-faq.md", "title": "Returns FAQ"}
    used_pan = chunk(
        "docs/returns-faq.md",
        "# Returns FAQ\n\n## Can I return a used pan?\n\n"
        "Used cookware that is not defective cannot be returned, but it may be covered "
        "by the warranty.\n",
    )
    exchange = chunk(
        "docs/returns-faq.md",
        "## Can I exchange a pan for a different size?\n\n"
        "Yes. Exchanges for a different size of the same product are free, once per order.\n",
        1,
    )
    faq = [replace(used_pan, metadata=meta), replace(exchange, metadata=meta)]
    used = generator.generate("Can I return a used pan?", hits_of(*faq))
    assert "Yes." not in used.text and "cannot be returned" in used.text
    size = generator.generate("Can I exchange a pan for a different size?", hits_of(*faq[::-1]))
    assert size.text.startswith("Yes. Exchanges for a different size")


RETURNS = chunk(
    "docs/returns.md",
    "## Return shipping costs\n\n"
    "In the United States, return shipping is free with the prepaid label.\n"
    "In Canada, return shipping costs CA$12.00, deducted from your refund.\n"
    "In the European Union, return shipping costs €6.95, deducted from your refund.\n"
    "In the United Kingdom, return shipping costs £4.95, deducted from your refund.\n"
    "In Australia, you pay for return shipping yourself.\n\n"
    "## Return windows\n\n"
    "In the United States, you can return an unused item within 30 days.\n"
    "In the European Union, you can return an unused item within 14 days.\n\n"
    "EU customers pay no customs duties.\n",
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # the place as the passages write it, and only its own sentence
        ("How much does return shipping cost in the EU?", "€6.95"),
        ("How much does return shipping cost in the UK?", "£4.95"),
        ("How much does return shipping cost in the U.K.?", "£4.95"),
        ("How long do I have to return something in the US?", "30 days"),
        ("How long do I have to return something in the USA?", "30 days"),
        # what the passages say of the union holds in a member country
        ("What is the return window in Germany?", "14 days"),
        ("Do French customers pay customs duties?", "no customs duties"),
        # another country's figure is no answer
        ("How much does return shipping cost in Australia?", NOT_FOUND),
        ("How much does return shipping cost in Japan?", NOT_FOUND),
    ],
)
def test_a_place_is_read_in_any_of_its_names_and_another_places_sentence_is_none(
    generator: ExtractiveGenerator, question: str, expected: str
) -> None:
    """Sentences that differ only by their country ("In Canada, return
    shipping costs CA$12.00"): the EU's figure was answered with Canada's,
    and "the US", "Germany" were refused where the passages write "the
    United States" and "the European Union"."""
    answer = generator.generate(question, hits_of(RETURNS))
    if expected == NOT_FOUND:
        assert answer.text == NOT_FOUND, answer.text
    else:
        assert expected in answer.text, answer.text
        assert "CA$12" not in answer.text and "Canada" not in answer.text


@pytest.mark.parametrize(
    ("question", "text", "expected"),
    [
        # a country named in passing is not what the sentence is about
        (
            "How long does shipping to Canada take?",
            "# Shipping to Canada\n\nOrders ship from our US warehouse and arrive in 5-7 "
            "business days.\n",
            "5-7 business days",
        ),
        (
            "Who handles warranty claims in Germany?",
            "# Warranty (Germany)\n\nThe warranty lasts 2 years. Warranty claims are "
            "handled by our partner in Poland.\n",
            "partner in Poland",
        ),
        # the country's own sentence before its union's
        (
            "How much is shipping to France?",
            "Shipping to the EU costs €10. Shipping to France is free.\n",
            "France is free",
        ),
        (
            "How long does shipping to Ireland take?",
            "Shipping within the EU takes 3-5 business days.\nShipping to Ireland takes 7 "
            "business days.\n",
            "7 business days",
        ),
        # a page of two countries: each one's sentence
        (
            "How long do orders to Canada take?",
            "# Shipping to Canada and Mexico\n\nIn Mexico, orders take 10 days.\n\n"
            "In Canada, orders take 5 days.\n",
            "5 days",
        ),
        (
            "How long is the warranty in Mexico?",
            "In Canada and the US, the warranty lasts 2 years. In Mexico, it lasts 1 year.\n",
            "1 year",
        ),
        # a sentence about everywhere but the union says nothing of its members
        (
            "How long does shipping to France take?",
            "For customers outside the EU, shipping takes 10-14 business days.\n\n"
            "Within the EU, shipping takes 3-5 business days.\n",
            "3-5 business days",
        ),
        (
            "How long do returns take to process in Germany?",
            "For non-EU countries, returns take 30 days to process.\n\n"
            "For EU countries, returns take 14 days.\n",
            "14 days",
        ),
        # a country the question leaves out, or comes from, is not what it asks about
        (
            "Can customers outside the US pay with PayPal?",
            "Customers outside the United States can pay with PayPal.\n",
            "PayPal",
        ),
        (
            "How long does delivery from Germany to France take?",
            "Delivery from Germany to France takes 2 days.\n",
            "2 days",
        ),
        # Great Britain is not the UK, and New South Wales is no Wales
        (
            "How long does delivery to Northern Ireland take?",
            "Delivery to Great Britain takes 2 days. Delivery to Northern Ireland takes 4 days.\n",
            "4 days",
        ),
        (
            "When do stores close in Australia?",
            "# Store hours in Australia\n\nIn New South Wales, stores close at 9pm. In "
            "Victoria, stores close at 8pm.\n",
            "9pm",
        ),
    ],
)
def test_a_country_named_in_passing_or_by_its_union_does_not_replace_its_own_sentence(
    generator: ExtractiveGenerator, question: str, text: str, expected: str
) -> None:
    answer = generator.generate(question, hits_of(chunk("docs/shipping.md", text)))
    assert expected in answer.text, answer.text


def test_a_question_about_two_countries_gets_both_or_none(generator: ExtractiveGenerator) -> None:
    both = generator.generate(
        "How much does return shipping cost in Canada and the UK?", hits_of(RETURNS)
    )
    assert "CA$12" in both.text and "£4.95" in both.text, both.text
    one = generator.generate(
        "How much does return shipping cost in Canada and Japan?", hits_of(RETURNS)
    )
    assert one.text == NOT_FOUND, one.text


def test_a_place_name_is_not_read_in_other_words() -> None:
    """Only real places, as whole words and as written: "us", "in French"
    (a language), a question in capitals name no country."""
    from ragloom.builtin.generators._places import as_written, places_in

    assert places_in("Contact us in French or in German.") == set()
    assert places_in("German customers and the U.S. office") == {"Germany", "United States"}
    texts = ["In the United States, returns are free. The EU office is in Rotterdam."]
    assert as_written("Returns in the US?", texts) == "Returns in the United States?"
    assert as_written("Is live chat available in French?", texts) == (
        "Is live chat available in French?"
    )
    assert as_written("Duties in France?", texts) == "Duties in EU?"
    assert as_written("CAN US CUSTOMERS RETURN?", texts) == "CAN US CUSTOMERS RETURN?"


def test_a_snake_case_column_name_is_read_as_its_words(generator: ExtractiveGenerator) -> None:
    """A CSV's columns as a program writes them (``price_usd``): the price
    of a model was refused, its row at rank 1."""
    specs = chunk(
        "docs/specs.csv",
        "| model | name | induction_compatible | oven_safe_f |\n| --- | --- | --- | --- |\n"
        "| TT-28-CI | Cast Iron Skillet 28 cm | yes | 600 |\n"
        "| TT-24-NS | Ceramic Pro Fry Pan 24 cm | no | 400 |\n",
    )
    answer = generator.generate("Is the TT-24-NS induction compatible?", hits_of(specs))
    assert "TT-24-NS" in answer.text and "TT-28-CI" not in answer.text, answer.text


def test_a_size_before_a_name_tells_the_thing_from_its_siblings(
    generator: ExtractiveGenerator,
) -> None:
    """ "Does the 28 cm Ceramic Pro work on induction?" was answered with the
    24 cm one's "does not work": a figure in a yes/no question was taken for
    a condition, and the size is part of the name."""
    notes = chunk(
        "docs/notes.md",
        "IMPORTANT: the TT-24-NS (24 cm Ceramic Pro) does not work on induction hobs.\n",
    )
    question = "Does the 28 cm Ceramic Pro work on induction?"
    assert generator.generate(question, hits_of(notes)).text == NOT_FOUND
    both = chunk(
        "docs/pans.md",
        "The 28 cm Ceramic Pro works on gas, electric and induction hobs.\n",
        1,
    )
    answer = generator.generate(question, hits_of(notes, both))
    assert answer.text.startswith("The 28 cm Ceramic Pro works"), answer.text
    assert "24 cm" not in answer.text


def test_a_field_line_is_no_heading_that_resolves_a_pronoun(
    generator: ExtractiveGenerator,
) -> None:
    """ "Status: discontinued" under the product's title was read as a
    heading, so "It ... does not work on induction" was about the status,
    and the question about the product was refused."""
    page = chunk(
        "docs/tt-26-ns.md",
        "# Classic Non-Stick Fry Pan 26 cm (TT-26-NS)\n\nStatus: discontinued\n\n"
        "The Classic Non-Stick Fry Pan 26 cm (TT-26-NS) was discontinued on March 1, 2025. "
        "It is replaced by the Ceramic Pro Fry Pan 28 cm (TT-28-NS).\n\n"
        "Its coating is PTFE-based. It is oven-safe to 350 °F and does not work on induction.\n",
    )
    answer = generator.generate("Does the TT-26-NS work on induction?", hits_of(page))
    assert "does not work on induction" in answer.text, answer.text


def test_a_yes_no_question_about_a_product_is_not_answered_by_another_model(
    generator: ExtractiveGenerator,
) -> None:
    notes = chunk(
        "docs/notes.txt",
        "Induction notes for the Ceramic Pro line and others.\n\n"
        "The carbon steel wok TT\u201132\u2011CS has a flat 14 cm base and works on induction.\n",
    )
    answer = generator.generate("Does the Ceramic Pro pan work on induction?", hits_of(notes))
    assert answer.text == NOT_FOUND, answer.text


def _record(record_id: str, text: str, index: int) -> Chunk:
    """A record as the csv loader makes it (``title_field``, ``field_labels``)."""
    base = chunk(f"data/rates.csv#{record_id}", text, 0)
    title = text.partition("\n")[0]
    return replace(
        base, metadata={"source": "data/rates.csv", "record_id": record_id, "title": title}
    )


def test_a_records_field_is_said_with_its_record(generator: ExtractiveGenerator) -> None:
    """The csv loader's records (``field_labels``: "method: Express" lines
    under the record's title) were never quoted, even at rank 1: each field
    line alone covered too little of the question."""
    hits = hits_of(
        _record("CA-EXP", "Canada\nmethod: Express\n\ndelivery_time: 3-4 business days\n\n"
                "cost: CA$29.95", 0),
        _record("CA-STD", "Canada\nmethod: Standard\n\ndelivery_time: 7-10 business days\n\n"
                "cost: CA$14.95", 1),
        _record("US-EXP", "United States\nmethod: Express\n\ndelivery_time: 2 business days"
                "\n\ncost: $19.95", 2),
    )  # fmt: skip
    answer = generator.generate("How long does express delivery take to Canada?", hits)
    assert answer.text == (
        "Canada: method: Express; delivery_time: 3-4 business days; cost: CA$29.95 [1]."
    )
    quote = answer.citations[0].quote
    assert all(piece in hits[0].chunk.text for piece in quote.split(" \u2026 "))
    cost = generator.generate("How much is express delivery to the United States?", hits)
    assert "$19.95" in cost.text and "CA$" not in cost.text, cost.text


@pytest.mark.parametrize(
    "question",
    [
        "Wie viele Urlaubstage habe ich?",
        "Où est le bureau de Berlin ?",
        "Hur många semesterdagar får jag?",
    ],
)
def test_a_question_in_another_language_is_refused_saying_why(
    generator: ExtractiveGenerator, question: str
) -> None:
    """The answerer reads English only (as documented): a refusal of a
    question in German said nothing of it, as if the documents lacked it."""
    leave = chunk("docs/leave.md", "Employees in Berlin get 28 days of paid vacation a year.\n")
    answer = generator.generate(question, hits_of(leave))
    assert answer.text == f"{NOT_FOUND} {NOT_ENGLISH}" and not answer.grounded
    assert answer.metadata["not_english"] is True


def test_a_question_in_another_language_is_refused_when_a_page_in_it_shares_its_words(
    generator: ExtractiveGenerator,
) -> None:
    """A Portuguese question got a Portuguese page's sentence about another
    thing (the meal subsidy, for "how many days of leave"): its words were
    matched as if they were English ones."""
    page = chunk(
        "docs/pt/subsidio.md",
        "# Subsídio de refeição\n\n"
        "O subsídio não é pago nos dias de férias nem nos dias de baixa médica.\n",
    )
    answer = generator.generate("Quantos dias de férias tenho em Lisboa?", hits_of(page))
    assert answer.text == f"{NOT_FOUND} {NOT_ENGLISH}" and not answer.citations


@pytest.mark.parametrize(
    "question", ["Zürich office address?", "Le Mans office hours?", "How many sick days do I get?"]
)
def test_an_english_question_is_refused_as_before(
    generator: ExtractiveGenerator, question: str
) -> None:
    leave = chunk("docs/leave.md", "Employees in Berlin get 28 days of paid vacation a year.\n")
    assert generator.generate(question, hits_of(leave)).text == NOT_FOUND


def test_a_sentence_that_says_an_offer_ended_is_quoted_with_the_offer(
    generator: ExtractiveGenerator,
) -> None:
    promotions = chunk(
        "docs/promotions.md",
        "## Free engraving\n\nFree engraving on all Dutch ovens. "
        "This offer ended on December 31, 2025.\n",
    )
    answer = generator.generate("Can I get free engraving on a Dutch oven?", hits_of(promotions))
    assert answer.text == (
        "Free engraving on all Dutch ovens. This offer ended on December 31, 2025 [1]."
    )


@pytest.mark.parametrize(
    ("question", "text", "expected"),
    [
        # a dummy "it" after an opening phrase leans on nothing: quoted alone
        (
            "What is recommended before upgrading?",
            "Before upgrading, it is recommended to back up the database. "
            "Upgrades take about ten minutes.",
            "Before upgrading, it is recommended to back up the database [1].",
        ),
        (
            "How long does it take to activate a workspace?",
            "After signup it takes about 5 minutes to activate a workspace.",
            "After signup it takes about 5 minutes to activate a workspace [1].",
        ),
        # "no storage limit" is no price; "nothing else" is no time
        (
            "How much does the Pro plan cost?",
            "The Pro plan has no storage limit. Support is included.",
            NOT_FOUND,
        ),
        (
            "How long does agent setup take?",
            "Nothing else is needed to set up the agent.",
            NOT_FOUND,
        ),
        # "how much the ...": still a price
        (
            "How much the Pro plan?",
            "The Pro plan is popular with agencies. The Pro plan costs $29 per month.",
            "The Pro plan costs $29 per month [1].",
        ),
        # "how much VAT": an amount, never a sentence that only says VAT is
        # added (the rate covers too little of the question: refused)
        (
            "How much VAT is added to an invoice?",
            "VAT is added to every invoice. The VAT rate is 19% in Germany.",
            NOT_FOUND,
        ),
        # a heading with a number is not a release: it never leads
        (
            "Which version of the API should I use?",
            "## 2.4 Authentication\nUse the REST API with an OAuth token.\n",
            "Use the REST API with an OAuth token [1].",
        ),
        (
            "How long does the agent run?",
            "## Windows 11\nThe agent runs as a service.\n",
            NOT_FOUND,
        ),
        # the FAQ's "No." answers "without", not "with"
        (
            "Is SSO available with the Enterprise plan?",
            "## Is SSO available without the Enterprise plan?\n"
            "No. SSO requires the Enterprise plan.\n",
            "SSO requires the Enterprise plan [1].",
        ),
        # nor does it pass to a pronoun sentence about someone else
        (
            "Does Stripe store card numbers?",
            "## Do you store card numbers?\nNo. They are handled by Stripe, which stores them.\n",
            "They are handled by Stripe",
        ),
        # "no hidden costs" is not a price
        ("How much does the Pro plan cost?", "The Pro plan comes with no hidden costs.", NOT_FOUND),
        # a release note of what did not happen is not dated by its heading
        (
            "When will SSO be available on the Starter plan?",
            "## 3.2.0 (2026-05-14)\n- SSO remains unavailable on the Starter plan.\n",
            NOT_FOUND,
        ),
        # a bold release line is the release of what follows it
        (
            "When were webhooks added?",
            "## 3.2.0 (2026-05-14)\n- Added SSO.\n\n**3.3.0 (2026-06-01)**\n\n- Added webhooks.\n",
            "3.3.0 (2026-06-01): Added webhooks [1].",
        ),
        # "it takes" refers back unless "to" follows: each plan its own days
        (
            "How long does express shipping take in North America?",
            "Standard shipping is free. In North America it takes 10 days. "
            "Express shipping costs $20. In North America it takes 2 days.",
            "Express shipping costs $20. In North America it takes 2 days [1].",
        ),
        # "## Security" beside "## 0.9.0" is a section of its own, not the release's
        (
            "When was the TLS certificate rotated?",
            "## 0.9.0 (2026-01-10)\n- First beta.\n\n## Security\n"
            "The TLS certificate was rotated after the audit.\n",
            NOT_FOUND,
        ),
        # the release's date is the removal's, not an addition's
        (
            "When was the legacy XML exporter added?",
            "## [2.0.0] - 2026-05-01\n### Removed\n- The legacy XML exporter.\n",
            NOT_FOUND,
        ),
        (
            "When was the legacy XML exporter removed?",
            "## [2.0.0] - 2026-05-01\n### Removed\n- The legacy XML exporter.\n",
            "[2.0.0] - 2026-05-01, Removed: The legacy XML exporter [1].",
        ),
        # a release not out dates nothing
        (
            "When was dark mode added?",
            "## 2.0.0 (unreleased)\n### Added\n- Dark mode.\n",
            NOT_FOUND,
        ),
        ("When was offline mode added?", "## 2999\n### Features\n- Offline mode.\n", NOT_FOUND),
        # a bold line that is no change type ends the release's items
        (
            "When was the migration script added?",
            "## [1.2.0] - 2026-02-02\n### Added\n- Dark mode.\n\n**Upgrade notes**\n\n"
            "The migration script converts old themes.\n",
            NOT_FOUND,
        ),
    ],
)
def test_the_new_rules_leave_ordinary_sentences_alone(
    generator: ExtractiveGenerator, question: str, text: str, expected: str
) -> None:
    """Cases three reviews found: each new rule stays inside its case."""
    answer = generator.generate(question, hits_of(chunk("docs/x.md", text)))
    assert answer.text.startswith(expected)


KEEP_A_CHANGELOG = chunk(
    "CHANGELOG.md",
    "## [1.2.0] - 2026-02-02\n### Added\n- Dark mode.\n### Fixed\n- A crash on CSV import.\n\n"
    "## [1.1.0] - 2026-01-05\n### Added\n- Webhooks.\n\n"
    "## Contributors\n- Alice added the docs.\n",
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When was dark mode added?", "[1.2.0] - 2026-02-02, Added: Dark mode [1]."),
        ("When was the CSV import crash fixed?", "[1.2.0] - 2026-02-02, Fixed: A crash on CSV"),
        ("Which version added webhooks?", "[1.1.0] - 2026-01-05, Added: Webhooks [1]."),
        # a section after the releases is no release's
        ("When was Alice added?", NOT_FOUND),
    ],
)
def test_keep_a_changelog_items_are_dated_by_their_release(
    generator: ExtractiveGenerator, question: str, expected: str
) -> None:
    """Keep a Changelog puts change-type headings (### Added) between a
    release and its items: the release still dates them."""
    answer = generator.generate(question, hits_of(KEEP_A_CHANGELOG))
    assert answer.text.startswith(expected)


def test_the_answer_and_its_quote_say_no_terminal_control(
    generator: ExtractiveGenerator,
) -> None:
    """Applications print quotes (docs/serve.md's example does): one kept a
    document's window title and colours, while the answer was clean."""
    text = "The printer is on floor 3. \x1b]0;pwned\x07\x1b[31mThe printer PIN is 4321.\x1b[0m"
    answer = generator.generate("What is the printer PIN?", hits_of(chunk("p.txt", text)))
    assert answer.text == "The printer PIN is 4321 [1]."
    assert answer.citations[0].quote == "The printer PIN is 4321."  # as the document reads


def test_a_joined_quote_keeps_each_sentence_verbatim(generator: ExtractiveGenerator) -> None:
    """Two bullets joined because the second leans on the first: the quote
    holds each as written, not the two glued across the bullet marker."""
    text = "- The Pro plan has priority support.\n- It answers within 4 hours.\n"
    answer = generator.generate(
        "How fast does Pro priority support answer?", hits_of(chunk("s.md", text))
    )
    assert "It answers within 4 hours" in answer.text
    pieces = answer.citations[0].quote.split(" \u2026 ")
    assert pieces == ["The Pro plan has priority support.", "It answers within 4 hours."]
    assert all(piece in text for piece in pieces)


@pytest.mark.parametrize(
    "text",
    [
        "- Webhooks.\n- Audit log.\n",
        # "Added" in a bullet's words is not the change-type heading
        "- Webhooks.\n- Added an audit log for 1.1.0 users.\n",
    ],
)
def test_a_release_from_the_section_path_is_said_not_quoted(
    generator: ExtractiveGenerator, text: str
) -> None:
    """A later piece of a long release section: the release and its change
    type are only in the chunk's ``section``, so the answer says them and the
    quote holds the item alone (a label is quoted only where it is a line)."""
    piece = replace(
        chunk("CHANGELOG.md", text),
        metadata={"source": "CHANGELOG.md", "section": "Changelog > [1.1.0] - 2026-01-05 > Added"},
    )
    answer = generator.generate("When were webhooks added?", hits_of(piece))
    assert answer.text == "[1.1.0] - 2026-01-05, Added: Webhooks [1]."
    assert answer.citations[0].quote == "Webhooks."


def test_n_times_is_how_often_not_how_long(generator: ExtractiveGenerator) -> None:
    text = (
        "Webhooks are retried up to 5 times with exponential backoff. "
        "They time out after 10 seconds."
    )
    answer = generator.generate("How long until a webhook times out?", hits_of(chunk("w.md", text)))
    assert answer.text.endswith("They time out after 10 seconds [1].")
    often = generator.generate("How often are webhooks retried?", hits_of(chunk("w.md", text)))
    assert often.text.startswith("Webhooks are retried up to 5 times")


FLASK_STYLE = chunk(
    "CHANGES.md",
    "# Changes\n\n## Version 2.5.0\n\nUnreleased\n\n- Add a --quiet flag.\n\n"
    "## Version 2.4.0\n\nReleased 2026-05-11\n\n- Add a --watch option to the build command.\n"
    "- Drop support for Python 3.9.\n\n"
    "## Version 2.3.0\n\n- Added dark mode.\n",
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which version added the --watch option?",
            "Version 2.4.0, Released 2026-05-11: Add a --watch option to the build command [1].",
        ),
        (
            "When was support for Python 3.9 dropped?",
            "Version 2.4.0, Released 2026-05-11: Drop support for Python 3.9 [1].",
        ),
        # no date line: the version alone
        ("Which version added dark mode?", "Version 2.3.0: Added dark mode [1]."),
        # "Unreleased" under the heading: nothing is dated by it
        ("Which version added the --quiet flag?", "Add a --quiet flag [1]."),
    ],
)
def test_a_released_line_under_a_version_heading_dates_its_items(
    generator: ExtractiveGenerator, question: str, expected: str
) -> None:
    """Flask's and Click's changelogs: ``Version 2.4.0`` then a line
    ``Released 2026-05-11``; the two are one release, and the line itself is
    no answer. Each label piece is quoted verbatim."""
    answer = generator.generate(question, hits_of(FLASK_STYLE))
    assert answer.text == expected
    assert all(p in FLASK_STYLE.text for p in answer.citations[0].quote.split(" \u2026 "))


def test_added_and_add_are_one_word(generator: ExtractiveGenerator) -> None:
    """The question's "added" is covered by an item's "Add": no second item
    is quoted for the word (the stem of "added" was "ad")."""
    answer = generator.generate("When was the --watch option added?", hits_of(FLASK_STYLE))
    assert answer.text.count("[1]") == 1 and "dark mode" not in answer.text


PROJECTORS = chunk(
    "projectors.md",
    "# Projectors\n\nThe line has three models: the X200, the X300 and the X500 Pro.\n\n"
    "## Altitude\n\nThe X300 switches to high-altitude fan mode above 1,500 metres. "
    "The X500 Pro is rated up to 3,000 metres.\n\n"
    "## Battery\n\nThe X200 runs for two and a half hours. The X500 Pro has no internal "
    "battery; it must be plugged in at all times.\n",
)
COURSE = chunk(
    "course.md",
    "# CS 341\n\nCS 341 is taught by Dr. Okafor.\n\n## Grading\n\n| Part | Weight |\n"
    "|---|---|\n| Midterm exam | 20% |\n| Final project | 30% |\n\n"
    "## Midterm\n\nThe midterm is held in class on Thursday, March 13.\n\n"
    "## Labs\n\nLab 1 is due on February 7. Lab 2 is due on February 28.\n\n"
    "## Night buses\n\nNight buses run until 5:00 am on lines N1 and N2. "
    "Line N1 runs every 20 minutes. Line N2 runs every 30 minutes.\n\n"
    "## Prerequisites\n\nStudents must have passed CS 241.\n",
)


RELEASES = chunk(
    "CHANGES.md",
    "# Changes\n\n## Version 2.2.1\n\nReleased 2024-01-19\n\n- Fixed datum offsets.\n\n"
    "## Version 2.2.0\n\nReleased 2023-11-02\n\n- Deprecated read_noaa(); use read().\n\n"
    "## Version 2.0.0\n\nReleased 2023-05-15\n\n- Dropped support for Python 3.8.\n",
)
MANUALS = (PROJECTORS, COURSE)


@pytest.mark.parametrize(
    ("passages", "question", "expected"),
    [
        # "X200" has rivals of its own shape: their sentences answer nothing of it
        (MANUALS, "Can the X200 be used at 2,500 metres?", NOT_FOUND),
        # a lab the passages do not have is not another lab ("Lab 5" is no "Lab 1")
        (MANUALS, "When is Lab 5 due?", NOT_FOUND),
        (MANUALS, "When is Lab 2 due?", "Lab 2 is due on February 28 [1]."),
        # a code's digits are no frequency, a share no time, a date no share
        (MANUALS, "How often does line N2 run?", "Line N2 runs every 30 minutes [1]."),
        (
            MANUALS,
            "When is the midterm?",
            "The midterm is held in class on Thursday, March 13 [1].",
        ),
        (
            MANUALS,
            "What percentage of the grade is the final project?",
            "Part: Final project; Weight: 30% [1].",
        ),
        # what the question asks about, said not to be there, answers it
        (
            MANUALS,
            "How long does the X500 Pro battery last?",
            "The X500 Pro has no internal battery; it must be plugged in at all times [1].",
        ),
        # a sentence that only names the entity says nothing of what is asked
        (MANUALS, "What are the prerequisites for CS 341?", NOT_FOUND),
        # a version the question names is a name too
        (
            (RELEASES,),
            "When was version 2.0.0 released?",
            "Version 2.0.0: Released 2023-05-15 [1].",
        ),
        (
            (RELEASES,),
            "When was version 2.2.1 released?",
            "Version 2.2.1: Released 2024-01-19 [1].",
        ),
        # a version the passages do not have: no other release's line
        ((RELEASES,), "When was version 3.0.0 released?", NOT_FOUND),
        # "Deprecated X" is what happened, when the question asks when it was deprecated
        (
            (RELEASES,),
            "When was read_noaa deprecated?",
            "Version 2.2.0, Released 2023-11-02: Deprecated read_noaa(); use read() [1].",
        ),
        # "Python 3.8" is Python's version, not the release's
        (
            (RELEASES,),
            "Which version dropped support for Python 3.8?",
            "Version 2.0.0, Released 2023-05-15: Dropped support for Python 3.8 [1].",
        ),
    ],
)
def test_names_with_numbers_versions_and_what_each_kind_of_question_takes(
    generator: ExtractiveGenerator, passages: tuple[Chunk, ...], question: str, expected: str
) -> None:
    answer = generator.generate(question, hits_of(*passages))
    assert answer.text == expected


def test_a_rival_named_under_the_entitys_own_heading_is_another_thing(
    generator: ExtractiveGenerator,
) -> None:
    """CS 241 is a rival of CS 341 by shape, but under CS 341's own
    Prerequisites heading it is what CS 341 asks for, not another course."""
    prerequisites = replace(
        chunk("cs341.md", "Students must have passed CS 241 with a grade of C.\n"),
        metadata={"source": "cs341.md", "title": "CS 341", "section": "CS 341 > Prerequisites"},
    )
    other = chunk("courses.md", "CS 341 is taught by Dr. Okafor. CS 241 has no prerequisites.\n")
    answer = generator.generate(
        "What are the prerequisites for CS 341?", hits_of(prerequisites, other)
    )
    assert answer.text == "Students must have passed CS 241 with a grade of C [1]."


def test_a_sentence_about_every_thing_of_a_kind_answers_for_one_of_them(
    generator: ExtractiveGenerator,
) -> None:
    """ "Every phone has a two-year warranty" answers for the P8, which the
    passages name; "two-year" says a time ("two" and "year")."""
    support = chunk(
        "support.md",
        "Every phone has a two-year warranty. The P8 Max adds one year of damage cover.\n",
    )
    models = chunk("models.md", "The line has three phones: the P7, the P8 and the P8 Max.\n")
    answer = generator.generate("How long is the warranty on the P8?", hits_of(support, models))
    assert answer.text.startswith("Every phone has a two-year warranty [1].")
    # a name the passages do not hold is not vouched for by "every"
    assert generator.generate(
        "How long is the warranty on the P9?", hits_of(support, models)
    ).text.startswith(NOT_FOUND)


def test_a_number_alone_adds_no_second_sentence(generator: ExtractiveGenerator) -> None:
    """ "35" of "a 35 kg bag" in "€35" is no part of the question the first
    sentence left unanswered."""
    rules = chunk(
        "bags.md",
        "Bags heavier than 32 kg are not accepted as checked baggage. "
        "A larger cabin bag can be added at the airport for €35.\n",
    )
    other = chunk(
        "cabin.md",
        "A cabin bag may weigh up to 8 kg. Every bag is checked at the gate. "
        "A checked bag may weigh up to 23 kg.\n",
    )
    answer = generator.generate("Can I check a 35 kg bag?", hits_of(rules, other))
    assert answer.text == "Bags heavier than 32 kg are not accepted as checked baggage [1]."


@pytest.mark.parametrize(
    ("text", "question", "expected"),
    [
        # a figure in a yes/no question is a condition the answer need not repeat
        # ("at 2,500 metres?" is answered by a limit of 2,000)
        (
            "The X300 switches to high-altitude fan mode above 1,500 metres. The X200 has no "
            "high-altitude mode and is not rated for use above 2,000 metres.\n",
            "Can I use the X200 at 2,500 metres altitude?",
            "The X200 has no high-altitude mode and is not rated for use above 2,000 metres [1].",
        ),
        # "Version 3.2" in an item is the release's own version: no lead is added
        # (the version of a named thing, "Python 3.8", is not: see above)
        (
            "# Changes\n\n## 3.2.0 (2026-05-14)\n\n- Version 3.2 adds SAML single sign-on.\n",
            "Which version added SAML single sign-on?",
            "Version 3.2 adds SAML single sign-on [1].",
        ),
        # a hyphenated word is told apart from its last part
        (
            "Books and DVDs can be renewed up to two times, online or at the desk. "
            "E-books cannot be renewed; you have to borrow them again.\n",
            "Can I renew an e-book?",
            "E-books cannot be renewed; you have to borrow them again [1].",
        ),
        # a sentence ending in a colon is quoted with the rows that follow it
        (
            "# Grading\n\nYour final grade is made up as follows:\n\n| Part | Weight |\n"
            "|---|---|\n| Labs | 40% |\n| Midterm exam | 20% |\n\nThere is no final exam.\n",
            "How is the final grade calculated?",
            "Your final grade is made up as follows [1]. Part: Labs; Weight: 40% [1]. "
            "Part: Midterm exam; Weight: 20% [1].",
        ),
        # ... and with the command after it: the answer to "how do I"
        (
            "# Workers\n\nStart a worker that consumes the `default` queue:\n\n```console\n"
            "$ ferrule worker --queue default --concurrency 8\nworker ready: 8 processes\n```\n\n"
            "- Workers restart on failure.\n",
            "How do I start a worker for the default queue?",
            "Start a worker that consumes the `default` queue [1]. "
            "`$ ferrule worker --queue default --concurrency 8` [1].",
        ),
        # "which days" is answered by weekdays or dates, not by a count of days
        (
            "Each student has five late days for the whole semester. "
            "Lectures are on Tuesdays and Thursdays in room 204.\n",
            "Which days are lectures?",
            "Lectures are on Tuesdays and Thursdays in room 204 [1].",
        ),
        # "Add 2 cups" is a quantity; a capitalised word and a number is a name
        # only when the question uses it ("Lab 2" in "When is Lab 2 due?")
        (
            "Add 2 cups of flour to the bowl. Stir well.\n",
            "How many cups of flour do I add?",
            "Add 2 cups of flour to the bowl [1].",
        ),
        # what a sentence prices is the subject of its "costs": an extra bed
        # named beside the Harbour Suite is not the suite's price, nor a
        # replacement card under "Membership" the membership's
        (
            "# Rooms\n\nAn extra bed costs €35 per night and is only available in the Harbour "
            "Suite.\n\nThe Harbour Suite costs €295 per night.\n",
            "How much does the Harbour Suite cost per night?",
            "The Harbour Suite costs €295 per night [1].",
        ),
        (
            "# Membership\n\nMembership is free for anyone who lives in the city.\n\n"
            "A replacement card costs €3.\n",
            "How much does membership cost?",
            "Membership is free for anyone who lives in the city [1].",
        ),
        # a pronoun's sentence is quoted with the one it leans on
        (
            "The Lamb Shank is slow-braised for seven hours. It costs €28.\n",
            "How much is the Lamb Shank?",
            "The Lamb Shank is slow-braised for seven hours. It costs €28 [1].",
        ),
        # "If you find it ..." leans on the lost item's sentence, which prices another thing
        (
            "# Late returns\n\nOverdue books are charged 20 cents per day. A lost item is "
            "charged at its replacement cost plus an administration fee of €5. If you find it "
            "within 60 days, the replacement cost is refunded, but the administration fee is "
            "not.\n",
            "How much is the late fee for books?",
            "Overdue books are charged 20 cents per day [1].",
        ),
        # a rule says a yes/no question's verb in its own words; a sentence
        # without a rule's words does not, nor one without the thing asked about
        (
            "# Pets\n\nDogs are welcome in the Classic Double rooms. Cats and other animals "
            "are not accepted.\n",
            "Can I bring my cat?",
            "Cats and other animals are not accepted [1].",
        ),
        (
            "# Pets\n\nDogs are welcome in the Classic Double rooms. Cats and other animals "
            "are not accepted.\n",
            "Can I bring my parrot?",
            NOT_FOUND,
        ),
        ("Cats sleep most of the day.\n", "Can I bring my cat?", NOT_FOUND),
        # "how far" wants a distance, "how old" an age, "how much do you charge"
        # a sum: a price, a fleet's size and "24/7" are none of them
        (
            "E-bikes cost an extra 15p per minute. Their top speed is 15.5 mph.\n",
            "How far can an e-bike go on one charge?",
            NOT_FOUND,
        ),
        (
            "Kestrel has 1,200 bikes (300 of them electric). Riders of e-bikes must be at least "
            "18 years old.\n",
            "How old do you need to be to ride an e-bike?",
            "Riders of e-bikes must be at least 18 years old [1].",
        ),
        (
            "Members with 24/7 access use their key fob outside those hours.\n",
            "How much do you charge if I lose my key fob?",
            NOT_FOUND,
        ),
        # a limiting sentence joined to a FAQ reply keeps its "No."
        (
            "### Can I bring my dog?\n\nNo. Dogs are not allowed in the hotel. This does not "
            "apply to guide dogs.\n",
            "Can I bring my dog?",
            "No. Dogs are not allowed in the hotel. This does not apply to guide dogs [1].",
        ),
        # "how much is" asks a price: "12 months" and "paid", far apart, are
        # none; "free on all tiers" frees a medical freeze, not the Plus tier
        (
            "| Tier | Monthly fee |\n|---|---|\n| Basic | £24.99 |\n| Plus | £39.99 |\n\n"
            "Every membership has a minimum term of 12 months, except the Plus tier paid "
            "annually. A medical freeze is free on all tiers for up to 6 months.\n",
            "How much is the Plus membership per month?",
            "Tier: Plus; Monthly fee: £39.99 [1].",
        ),
        # alone, the first sentence says a lost day pass is replaced; the next
        # one, which limits it, is quoted with it
        (
            "If you lose a 6-day or season pass, a replacement is issued for €10. This does "
            "not apply to day passes, which cannot be replaced. Lockers cost €5.\n",
            "I lost my day pass, can I get a replacement?",
            "If you lose a 6-day or season pass, a replacement is issued for €10. This does not "
            "apply to day passes, which cannot be replaced [1].",
        ),
        # the "35" of "a 35 kg bag" is a condition: "€35" does not answer it
        (
            "Bags heavier than 32 kg are not accepted as checked baggage.\n\n"
            "A larger cabin bag is not included; it can be added at the airport for €35.\n",
            "Can I check a 35 kg bag?",
            "Bags heavier than 32 kg are not accepted as checked baggage [1].",
        ),
        # the "Day" row under "Pass | Adult | Child", not the sentence that
        # prices the season pass for adults, nor the "Half day" row
        (
            "| Pass | Adult | Child |\n|---|---|---|\n| Half day | €42 | €30 |\n"
            "| Day | €58 | €41 |\n| Season | €780 | €450 |\n\n"
            "The season pass is valid every day of the season. It is sold at the early-bird "
            "price of €690 (adult) until 30 November.\n",
            "How much is an adult day pass?",
            "Pass: Day; Adult: €58 [1].",
        ),
        # a price is a sum: a date ("1 June") is none, so the season's dates
        # do not answer what the suite costs in it
        (
            "| Room | Rate (high season) |\n|---|---|\n| Harbour Suite | €295 |\n\n"
            "High season runs from 1 June to 15 September.\n",
            "How much does the Harbour Suite cost in high season?",
            "Room: Harbour Suite; Rate (high season): €295 [1].",
        ),
        # a sum may be a share of another ("one third of the daily rate"),
        # after the sentence "After that" points back to
        (
            "There is a grace period of 29 minutes. After that, each late hour is charged "
            "at one third of the daily rate. Cars are cleaned after every rental.\n",
            "What am I charged for a late hour?",
            "There is a grace period of 29 minutes. After that, each late hour is charged "
            "at one third of the daily rate [1].",
        ),
        # "how much does it weigh" wants a figure, not a sum
        (
            "The X300 weighs 1.5 kg. It comes in grey.\n",
            "How much does the X300 weigh?",
            "The X300 weighs 1.5 kg [1].",
        ),
        # "charge" the verb asks no price; of two sentences that cover the
        # question alike, the one that says what charging takes
        (
            "The X200 runs for two and a half hours on a full charge. "
            "Charging from empty takes 90 minutes on the X200.\n",
            "How long does it take to charge the X200?",
            "Charging from empty takes 90 minutes on the X200 [1].",
        ),
        (
            "The X200 runs for two and a half hours on a full charge. "
            "Charging from empty takes 90 minutes on the X200 and two hours on the X300.\n",
            "Can I charge the X200 in under two hours?",
            "Charging from empty takes 90 minutes on the X200 and two hours on the X300 [1].",
        ),
        # "how heavy" wants a weight: "4G" is none, "twenty-three kilograms" is one
        (
            "The X200 operates between 5 °C and 35 °C. The X200 weighs 1.2 kg.\n",
            "How heavy is the X200?",
            "The X200 weighs 1.2 kg [1].",
        ),
        (
            "The P7 is 4G only. It comes in black and white.\n",
            "How heavy is the P7?",
            NOT_FOUND,
        ),
        (
            "Light fares include a cabin bag. Standard fares include one checked bag of up "
            "to twenty-three kilograms.\n",
            "How heavy can a Standard checked bag be?",
            "Standard fares include one checked bag of up to twenty-three kilograms [1].",
        ),
        # "what time" says what kind of answer, as "how long" does: no word to match
        (
            "Put your bins out by 6:30 am on collection day. Bins with open lids are not "
            "emptied.\n",
            "By what time do bins need to be out?",
            "Put your bins out by 6:30 am on collection day [1].",
        ),
        (
            "Breakfast is served from 07:00 to 10:30 on weekdays and from 07:30 to 11:00 at "
            "weekends. Room service runs from 18:00 to 22:30.\n",
            "When is breakfast on Saturday?",
            "Breakfast is served from 07:00 to 10:30 on weekdays and from 07:30 to 11:00 at "
            "weekends [1].",
        ),
        (
            "| Day | Hours |\n|---|---|\n| Monday–Friday | 05:30–23:00 |\n"
            "| Saturday | 07:00–21:00 |\n",
            "What are the opening hours on Wednesday?",
            "Day: Monday–Friday; Hours: 05:30–23:00 [1].",
        ),
        # a range may wrap the week's end
        (
            "The market is open Friday to Monday from 9:00 to 14:00.\n",
            "Is the market open on Saturday?",
            "The market is open Friday to Monday from 9:00 to 14:00 [1].",
        ),
        # a rule answers a yes/no question without its verb only when it rules
        # on what the question asks to do: not "Pets" for swimming in a room
        (
            "Pets are not allowed in the rooms. Breakfast is served from 7:00.\n",
            "Can I swim in my room?",
            NOT_FOUND,
        ),
        (
            "We accept debit and credit cards; we do not accept cheques.\n",
            "Can I pay with a cheque?",
            "We accept debit and credit cards; we do not accept cheques [1].",
        ),
        (
            "Collections are weekly. We will not return if the bin was put out late.\n",
            "Will you come back if my bin was missed because I put it out late?",
            "We will not return if the bin was put out late [1].",
        ),
        # whom a price is for is what it prices ("for adults"), and of a list of
        # prices by group, the clause of the group asked; a long subject keeps its name
        (
            "Children under 5 enter free. Entry costs €5 for adults and €2 for children.\n",
            "How much is an adult ticket?",
            "Entry costs €5 for adults [1].",
        ),
        (
            "A single ticket on the Harbour Line between the north and south islands of the "
            "bay costs €12. Bikes travel free.\n",
            "How much is a ticket on the Harbour Line?",
            "A single ticket on the Harbour Line between the north and south islands of the bay "
            "costs €12 [1].",
        ),
        # an empty cell keeps the other cells under their own column names, and
        # an escaped pipe is a cell's character
        (
            "| Pass | Adult | Child |\n|---|---|---|\n| Day |  | €41 |\n| Week | €200 | €150 |\n",
            "How much is a child day pass?",
            "Pass: Day; Child: €41 [1].",
        ),
        (
            "| Operator | Meaning | Since |\n|---|---|---|\n"
            "| `a \\| b` | pipes output into the next command | 2.0 |\n"
            "| `a > b` | writes output to a file | 1.0 |\n",
            "Which version added the operator that pipes output into the next command?",
            "Operator: `a | b`; Meaning: pipes output into the next command; Since: 2.0 [1].",
        ),
        # "how far in advance" asks a time; "how much is the allowance" an
        # amount; "how old is the castle" a date it was built will do
        (
            "Bookings must be made at least 48 hours in advance. Cancellations are free.\n",
            "How far in advance must I book?",
            "Bookings must be made at least 48 hours in advance [1].",
        ),
        (
            "The checked baggage allowance is 23 kg per passenger. Extra bags cost €40.\n",
            "How much is the checked baggage allowance?",
            "The checked baggage allowance is 23 kg per passenger [1].",
        ),
        (
            "The castle was built in 1280. It is open daily.\n",
            "How old is the castle?",
            "The castle was built in 1280 [1].",
        ),
        # no age: opening hours, a weight; no distance: downloads; a date is no sum
        (
            "The pool is open from 9 to 18. Lessons are on Mondays.\n",
            "How old do you have to be to swim alone?",
            NOT_FOUND,
        ),
        (
            "Children under 20 kg ride free. Adults pay €3.\n",
            "How old must a child be to ride free?",
            NOT_FOUND,
        ),
        ("The app has 5M downloads. It is free.\n", "How far can it go?", NOT_FOUND),
        ("Fees are due on 1 June.\n", "How much is the fee?", NOT_FOUND),
        (
            "The parcel weighs Twenty kilograms. Shipping is free.\n",
            "How heavy is the parcel?",
            "The parcel weighs Twenty kilograms [1].",
        ),
        # a noun made from the question's verb is its word ("attach": "attachment")
        (
            "Receipts can be JPG or PNG images. A single attachment can be up to 25 MB on the "
            "Starter plan. Files count towards storage.\n",
            "How big a file can I attach on Starter?",
            "A single attachment can be up to 25 MB on the Starter plan [1].",
        ),
        # what a price is for is the head of its subject ("A lost *item*"), or
        # whom it is for ("costs members half")
        (
            "A lost item is charged at its replacement cost plus a fee of €5. A replacement "
            "card costs €3.\n",
            "How much does it cost to replace a lost library card?",
            "A replacement card costs €3 [1].",
        ),
        (
            "The Type Room costs £35 an hour. Extra time costs members half the hourly rate.\n",
            "As a member, what would an extra hour in the Type Room cost me?",
            "The Type Room costs £35 an hour [1]. Extra time costs members half the hourly "
            "rate [1].",
        ),
        # a kind of a thing the passages never name, where they name others:
        # what they say of the others answers another question
        (
            "Family membership costs £88 a year. Joint membership costs £70 a year. Members "
            "get in free.\n",
            "How much does a corporate membership cost?",
            NOT_FOUND,
        ),
        (
            "Family membership costs £88 a year. Joint membership costs £70 a year.\n",
            "How much does a joint membership cost?",
            "Joint membership costs £70 a year [1].",
        ),
        # "contact us for details" is what the documents say of a price, with
        # the sentence it leans on
        (
            "Family membership costs £88 a year. We also offer corporate memberships for local "
            "businesses. Please contact our development team for details.\n",
            "How much does a corporate membership cost?",
            "We also offer corporate memberships for local businesses. Please contact our "
            "development team for details [1].",
        ),
        # a generic word ("work") is never one a yes/no answer must hold
        (
            "The 10% discount is given on production of a valid membership card. It does not "
            "apply to sale items or event tickets.\n",
            "Does the 10% membership discount work on event tickets?",
            "The 10% discount is given on production of a valid membership card. It does not "
            "apply to sale items or event tickets [1].",
        ),
        # "how long" wants a time, and a price is none
        (
            "| Service | Price |\n|---|---|\n| Rabies vaccination (for travel) | £68.00 |\n\n"
            "The rabies vaccination must be given at least 21 days before you travel.\n",
            "how long before we travel does the rabies jab have to be done?",
            "The rabies vaccination must be given at least 21 days before you travel [1].",
        ),
        # of two alternatives ("monthly" or "annually"), a sentence about
        # only the other is about someone else's case
        (
            "If you pay annually, you get two months free. The Team plan costs $16 per user "
            "a month, billed monthly.\n",
            "How much is the Team plan if I pay monthly?",
            "The Team plan costs $16 per user a month, billed monthly [1].",
        ),
        (
            "If you pay annually, you get two months free.\n",
            "What discount do I get if I pay monthly?",
            NOT_FOUND,
        ),
        # a sentence that says the same under two headings that name what the
        # question names: both, each after its heading
        (
            "## Portwen – Hollin Island\n\nCrossing time: 55 minutes. Cars are carried.\n\n"
            "## Hollin Island – Tarrow\n\nCrossing time: 40 minutes. No cars.\n\n"
            "## Portwen – Tarrow\n\nCrossing time: 25 minutes.\n",
            "How long does the crossing to Hollin Island take?",
            "Portwen – Hollin Island: Crossing time: 55 minutes [1]. Hollin Island – Tarrow: "
            "Crossing time: 40 minutes [1].",
        ),
        # a row's label is what it prices: an add-on is no price of a plan
        (
            "| Add-on | Price | Available on |\n|---|---|---|\n"
            "| Payroll export | $3 per user per month | Team, Business |\n",
            "How much is the Team plan per user per month?",
            NOT_FOUND,
        ),
        # a yes/no question after a sentence of context, or an opening "if"
        # clause, is one: its key words must be said (not "owe" here)
        (
            "Our Pet Health Plans spread the cost of routine care into monthly Direct Debit "
            "payments. Plans renew every year.\n",
            "If I cancel my pet health plan after 5 months, do I owe anything?",
            NOT_FOUND,
        ),
        (
            "Puppies have their first injection from 8 weeks old and a second one 4 weeks "
            "later. After that, a yearly booster keeps protection up.\n",
            "My dog's booster is 4 months late. Can he just have the one injection?",
            NOT_FOUND,
        ),
        # "before then" leans on the sentence that says when
        (
            "The minimum term is 12 months. If you cancel a pet health plan before then, you "
            "owe the difference between the full price of the services used and the payments "
            "made.\n",
            "If I cancel my pet health plan after 5 months, do I owe anything?",
            "The minimum term is 12 months. If you cancel a pet health plan before then, you "
            "owe the difference between the full price of the services used and the payments "
            "made [1].",
        ),
        # "later than that" leans on the sentence that says when
        (
            "# Bulky waste\n\nBookings can be cancelled free of charge up to 48 hours before the "
            "collection. Cancellations made later than that are not refunded.\n",
            "Can I get a refund if I cancel a bulky waste booking the day before?",
            "Bookings can be cancelled free of charge up to 48 hours before the collection. "
            "Cancellations made later than that are not refunded [1].",
        ),
        # a clock time in a yes/no question names a departure: another's row
        # is no answer
        (
            "| Departs Portwen | Runs |\n|---|---|\n| 07:00 | Monday – Saturday |\n",
            "Does the 18:30 from Portwen run on Mondays?",
            NOT_FOUND,
        ),
        (
            "| Departs Portwen | Runs |\n|---|---|\n| 07:00 | Monday – Saturday |\n"
            "| 18:30 | Friday and Sunday |\n",
            "Does the 18:30 from Portwen run on Sundays?",
            "Departs Portwen: 18:30; Runs: Friday and Sunday [1].",
        ),
        # "do I have to pay": a price says it
        (
            "Late check-out until 14:00 costs €30; Harbour Suite guests get late check-out "
            "free of charge. Breakfast is served until 10:30.\n",
            "If I'm staying in the Harbour Suite, do I have to pay for a late check-out?",
            "Late check-out until 14:00 costs €30; Harbour Suite guests get late check-out "
            "free of charge [1].",
        ),
        # an age the question gives is said by the band that holds it
        (
            "| Ticket | Adult (16+) | Child (5–15) | Senior (65+) |\n|---|---|---|---|\n"
            "| Single | £9.50 | £4.75 | £7.00 |\n| Day return | £14.00 | £7.00 | £10.50 |\n",
            "I'm 70 — what does a single cost me?",
            "Ticket: Single; Adult (16+): £9.50; Child (5–15): £4.75; Senior (65+): £7.00 [1].",
        ),
        (
            "| Ticket | Price |\n|---|---|\n| Adult | £14.00 |\n| Young person (12–17) | £7.00 |\n"
            "| Child (4–11) | £5.00 |\n",
            "How much for a 15-year-old?",
            "Ticket: Young person (12–17); Price: £7.00 [1].",
        ),
        (
            "The museum opens 10:00 – 16:30. Entry for adults costs £14.\n",
            "How much for a 15-year-old?",
            NOT_FOUND,
        ),
        # from review: what the price's subject is of and the names in it; a
        # monthly price is no billing condition; a kind the passages speak of
        # with no kind at all; a time that is a condition; a decimal price;
        # words that only look derived; a kind's own heading; "Under 16s";
        # a heading said as words
        (
            "Admission to the castle costs £12 for adults.\n",
            "How much does it cost to visit the castle?",
            "Admission to the castle costs £12 for adults [1].",
        ),
        (
            "The Pro plan costs $29 per user per month.\n",
            "How much is Pro?",
            "The Pro plan costs $29 per user per month [1].",
        ),
        (
            "The Pro plan costs $20 per month, or $200 billed annually.\n",
            "What's the monthly price of the Pro plan?",
            "The Pro plan costs $20 per month, or $200 billed annually [1].",
        ),
        (
            "You can cancel membership at any time from the Account page.\n",
            "How do I cancel my gym membership?",
            "You can cancel membership at any time from the Account page [1].",
        ),
        ("Check-in is from 15:00.\n", "Can I check in at 10:00?", "Check-in is from 15:00 [1]."),
        (
            "Parking costs 4.50 per hour.\n",
            "How much is parking?",
            "Parking costs 4.50 per hour [1].",
        ),
        (
            "Parking is based on availability and costs €12 a day.\n",
            "Is there parking in the basement?",
            NOT_FOUND,
        ),
        (
            "## Corporate membership\n\nThe annual fee is £500, which covers 10 individual "
            "membership cards.\n",
            "How much is a corporate membership?",
            "The annual fee is £500, which covers 10 individual membership cards [1].",
        ),
        (
            "| Ticket | Price |\n|---|---|\n| Adult | €10 |\n| Under 16s | €5 |\n"
            "| Group (10+ people) | €6 per person |\n",
            "I'm 15, how much is a ticket?",
            "Ticket: Under 16s; Price: €5 [1].",
        ),
        (
            "## **Pro plan** ([details](#pro))\n\nSSO is included.\n",
            "Does the Pro plan include SSO?",
            "Pro plan (details): SSO is included [1].",
        ),
        # the "it" of the weather points at nothing: the sentence stands alone
        (
            "If it rains, tours move to the indoor gallery.\n",
            "What happens to tours if it rains?",
            "If it rains, tours move to the indoor gallery [1].",
        ),
        # who asks is who qualifies: another group's discount is no answer ...
        (
            DISCOUNTS,
            "I'm a student, can I get a discount?",
            NOT_FOUND,
        ),
        (
            DISCOUNTS,
            "I'm a senior citizen, can I get a discount?",
            "Seniors (65 and over) get a 10% discount on all passes [1].",
        ),
        # ... and the asker's own group's is, said as "20% off"; "Can" opens
        # the question's second sentence and is no name
        (
            DISCOUNTS + "Registered charities get 20% off meeting rooms.\n",
            "We are a registered charity. Can we get a discount?",
            "Registered charities get 20% off meeting rooms [1].",
        ),
        # a sentence for no group still answers ("the discount is not available ...")
        (
            "Registered non-profits get 30% off the Starter plan. The discount is not "
            "available on the Business plan.\n",
            "We're a registered charity. Can we get a discount on the Business plan?",
            "The discount is not available on the Business plan [1].",
        ),
        # figures that count zones are no ages
        (
            "| Zones | Fare |\n|---|---|\n| Zones 1-3 | £4 |\n| Zones 20-30 | £6 |\n",
            "How much is it for a 25-year-old?",
            NOT_FOUND,
        ),
        (
            "| Age | Fare |\n|---|---|\n| Under 30 | £4 |\n| 30 and over | £6 |\n",
            "How much is it for a 25-year-old?",
            "Age: Under 30; Fare: £4 [1].",
        ),
    ],
)
def test_one_passage_answers(
    generator: ExtractiveGenerator, text: str, question: str, expected: str
) -> None:
    answer = generator.generate(question, hits_of(chunk("doc.md", text)))
    assert answer.text == expected


def test_a_denial_answers_a_yes_no_question_without_its_verb(
    generator: ExtractiveGenerator,
) -> None:
    """ "It has no DVD collection", under the Hillcrest Branch, answers "Can I
    borrow DVDs at Hillcrest?" though it lacks "borrow": the general loan rule
    alone would say yes."""
    loans = chunk(
        "loans.md", "Books can be borrowed for three weeks. DVDs can be borrowed for 7 days.\n"
    )
    hours = chunk(
        "hours.md",
        "## Hillcrest Branch\n\nThe Hillcrest Branch opens on Monday and Friday from 13:00 "
        "to 19:00. It has no DVD collection.\n",
    )
    answer = generator.generate("Can I borrow DVDs at Hillcrest?", hits_of(loans, hours))
    assert "It has no DVD collection [2]." in answer.text
    # where no branch says so, the loan rule answers alone
    answer = generator.generate("Can I borrow DVDs?", hits_of(loans, hours))
    assert answer.text == "DVDs can be borrowed for 7 days [1]."


@pytest.mark.parametrize(
    "text",
    [
        "There is no senior day pass; seniors buy the monthly senior card instead.\n",
        "There is no fee for a monthly pass bought online.\n",
    ],
)
def test_a_denial_of_another_thing_of_the_kind_is_no_answer(
    generator: ExtractiveGenerator, text: str
) -> None:
    """ "No senior day pass" says nothing of giving a monthly pass away."""
    answer = generator.generate(
        "Can I give my monthly pass to a friend?", hits_of(chunk("p.md", text))
    )
    assert answer.text.startswith(NOT_FOUND)


def test_a_sentence_about_the_opposite_condition_is_no_answer(
    generator: ExtractiveGenerator,
) -> None:
    """ "Free for anyone who lives in the city" does not answer for someone
    who lives outside it."""
    text = "Membership is free for anyone who lives in the city. Others pay €25 a year.\n"
    hits = hits_of(chunk("membership.md", text))
    outside = generator.generate("How much does membership cost if I live outside the city?", hits)
    assert "free for anyone" not in outside.text
    inside = generator.generate("How much does membership cost if I live in the city?", hits)
    assert inside.text.startswith("Membership is free for anyone who lives in the city [1].")


def test_a_rule_limited_to_another_named_thing_answers_no(
    generator: ExtractiveGenerator,
) -> None:
    """ "... only available in the Harbour Suite" answers whether the Classic
    Double gets an extra bed; "Dogs are welcome in the Classic Double rooms
    only" whether a dog may come to the Harbour Suite (its verb in the rule's
    own words). A rule without "only" says nothing of another room."""
    rooms = chunk(
        "rooms.md",
        "# Rooms\n\nThe Classic Double faces the courtyard. The Harbour Suite faces the sea.\n",
    )
    beds = chunk(
        "beds.md",
        "An extra bed costs €35 per night and is only available in the Harbour Suite.\n",
    )
    pets = chunk("pets.md", "Dogs are welcome in the Classic Double rooms only.\n")
    hits = hits_of(rooms, beds, pets)
    answer = generator.generate("Can I get an extra bed in the Classic Double?", hits)
    assert answer.text == (
        "An extra bed costs €35 per night and is only available in the Harbour Suite [1]."
    )
    answer = generator.generate("Can I bring my dog if I book the Harbour Suite?", hits)
    assert answer.text == "Dogs are welcome in the Classic Double rooms only [1]."
    open_rule = chunk("open.md", "Dogs are welcome in the Classic Double rooms.\n")
    answer = generator.generate(
        "Can I bring my dog if I book the Harbour Suite?", hits_of(rooms, open_rule)
    )
    assert answer.text.startswith(NOT_FOUND)


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("How much does the deposit cost?", "The deposit costs " + "-" * 3000 + " see below.\n"),
        ("How far can it go?", "1" * 30000 + " " + "range " * 8000 + "\n"),
        ("How long pool " * 3000 + "?", "The pool is open daily.\n"),
        ("How much is the day pass?", "The day pass " + "x " * 20000 + "costs €5 per day.\n"),
        # capitalised words, with or without commas: the list of names (38 s before)
        ("How much does the Pro plan cost?", "If " * 33000 + "\n"),
        ("How much does the Pro plan cost?", "A, " * 33000 + "\n"),
        ("How much does the Pro plan cost?", "ment" * 1000 + " " + "ation" * 1000 + "\n"),
    ],
)
def test_long_runs_in_a_passage_or_question_are_read_in_one_pass(
    generator: ExtractiveGenerator, question: str, text: str
) -> None:
    """Runs that made the price, distance, clause and "how long ... take"
    patterns backtrack (seconds for a few kilobytes, minutes for more): the
    answer comes back, whatever it is."""
    answer = generator.generate(question, hits_of(chunk("doc.md", text)))
    assert answer.question == question


@pytest.mark.parametrize(
    ("text", "age", "held"),
    [
        ("Young person (12–17): £7", 15, True),
        ("Under 16s travel free", 9, True),
        ("Age | Under 30", 25, True),
        ("Orders under 30 ship free", 22, False),
        ("Zones 1-3 cost £4; children pay half", 2, False),
        ("Years 7-11 visit on Tuesdays with their teachers and children", 9, False),
        ("under 4", 3, True),
        ("Open every day. Under 16s go free.", 10, True),
    ],
)
def test_an_age_band_is_one_of_people(text: str, age: int, held: bool) -> None:
    assert holds_age(text, age * 12) is held


def test_a_band_in_a_row_label_reads_its_columns_for_ages() -> None:
    assert holds_age("Under 30", 25 * 12, context="Age | Fare")
    assert not holds_age("Under 30", 25 * 12, context="Order value | Shipping")


@pytest.mark.parametrize(
    ("text", "months", "held"),
    [
        ("Baby Room (3–23 months)", 18, True),
        ("Baby Room (3–23 months)", 30, False),  # (a room's label is no count of rooms)
        ("Babies (6 months – 2 years)", 18, True),
        ("Babies (6 months – 2 years)", 24, False),  # (to the birthday, from months)
        ("Toddlers (2 to 3 years)", 47, True),
        ("Toddlers (2 to 3 years)", 48, False),
        ("Cats can be neutered from 4 months old", 3, False),
        ("Cats can be neutered from 4 months old", 5, True),
        ("Under 2s go free", 18, True),
        ("Pre-school (aged 2–3)", 40, True),  # "aged 2" opens the band, no age over 2
        ("Pre-school (aged 2–3)", 50, False),
        ("Contracts run from 3 months", 5, False),  # (a time, no one's age)
        ("Open from 8am for children", 100, False),
        ("Oak Room (pre-school) | 3 years to school age", 50, True),
        ("Oak Room (pre-school) | 3 years to school age", 30, False),
        ("Puppies under 12 weeks stay free", 10 * 12 / 52, True),
        ("Puppies under 12 weeks stay free", 12 * 12 / 52, False),
    ],
)
def test_an_age_band_in_months_holds_an_age_in_months(text: str, months: float, held: bool) -> None:
    assert holds_age(text, months) is held


@pytest.mark.parametrize(
    ("question", "months"),
    [
        ("How much is a full day for my 18-month-old?", 18),
        ("Can my 3-month-old kitten be neutered?", 3),
        ("How much is a day for my two-year-old?", 24),
        ("How much is a full day? She is 2 and a half.", 30),
        ("My baby is 9 months. Which room is she in?", 9),
        ("They're 4. Do they get funded hours?", 48),
        ("How much is a ticket for my 10-year-old?", 120),
        ("My partner is 20 minutes late, can we still check in?", None),
        ("My son is 10.5 metres tall?", None),
    ],
)
def test_the_age_a_question_gives_is_read_in_months(question: str, months: int | None) -> None:
    said = asked_age(question)
    assert (said.months if said else None) == months


NURSERY_FEES = (
    "# Fees\n\n## Daily fees\n\n| Room | Age | Full day | Half day |\n|---|---|---|---|\n"
    "| Baby Room | 3–23 months | £72 | £45 |\n| Toddler Room | 2–3 years | £68 | £42 |\n"
    "| Pre-school Room | 3–5 years | £64 | £40 |\n"
)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How much is a full day for my 18-month-old?", "Room: Baby Room; Full day: £72"),
        ("How much is a full day for my 2-year-old daughter?", "Room: Toddler Room; Full day: £68"),
        ("What does a half day cost for a 4 year old?", "Room: Pre-school Room; Half day: £40"),
        ("How much is a full day? She is 2 and a half.", "Room: Toddler Room;"),
        ("What does a full day cost for our 14 month old son?", "Room: Baby Room; Full day: £72"),
    ],
)
def test_a_row_of_an_age_band_in_months_or_years_prices_the_age_asked(
    generator: ExtractiveGenerator, question: str, said: str
) -> None:
    """The band is in a column of its own beside the room that is its name;
    an age in months is held by a band in years, and the other way round."""
    answer = generator.generate(question, hits_of(*_markdown_chunks("fees", NURSERY_FEES)))
    assert answer.grounded and answer.text.startswith(said), answer.text
    assert "£64" not in answer.text or "4 year" in question


def test_an_age_is_no_measure_of_another_band(generator: ExtractiveGenerator) -> None:
    """ "my 4-year-old" is an age, held by "3 years to school age", not a
    measure of 4 years that the row's "3 years" would be another of."""
    page = NURSERY_FEES.replace(
        "| Pre-school Room | 3–5 years |", "| Oak Room | 3 years to school age |"
    )
    answer = generator.generate(
        "How much is a full day for my 4-year-old?", hits_of(*_markdown_chunks("fees", page))
    )
    assert answer.text.startswith("Room: Oak Room; Full day: £64"), answer.text


@pytest.mark.parametrize(
    ("text", "months", "held"),
    [
        ("Children aged 12–15 pay £18", 72, False),  # (not "aged 1" and over)
        ("Juniors aged 14–17 pay £20", 120, False),
        ("Puppy classes are for puppies aged 10 to 20 weeks", 18, False),
        ("Children's sessions run from 10 on Saturdays", 150, False),
        ("Ages 1–4: £5.95", 30, True),
        ("Age | 12 weeks | Second vaccination", 12 * 12 / 52, True),  # one age in a schedule
        ("Age | 12 weeks | Second vaccination", 8 * 12 / 52, False),
    ],
)
def test_an_age_band_is_read_whole(text: str, months: float, held: bool) -> None:
    assert holds_age(text, months) is held


@pytest.mark.parametrize(
    ("question", "months", "kept"),
    [
        ("How much is entry? Lily is 2.", 24, "lili"),
        ("My dog is 2, can he join?", 24, "dog"),
        ("How much is a course for my 10-week-old kitten?", 10 * 12 / 52, "kitten"),
        ("How much is a day for my 2 and a half year old?", 30, None),
        ("Tom is 12 and wants to swim. How much is it?", 144, None),
        ("Room 4 is 3 minutes away, is that right?", None, None),
    ],
)
def test_an_age_is_read_of_a_name_or_a_pet(
    question: str, months: float | None, kept: str | None
) -> None:
    """A pet's word stays a word of the question (the kitten's course is not the
    puppy's); a child's ("daughter") is said by the band."""
    said = asked_age(question)
    assert (said.months if said else None) == pytest.approx(months)
    if said and kept:
        assert kept not in said.terms


ERRORS_PAGE = (
    "# Error codes\n\nEvery error response has a JSON body with a machine-readable `code`. Use "
    "the code, not the message, in your error handling.\n\n| HTTP status | Code | Meaning | "
    "Retry? |\n| --- | --- | --- | --- |\n| 404 | not_found | The resource does not exist. | "
    "No. |\n| 500 | internal_error | Something went wrong on our side. | Yes, with exponential "
    "backoff, up to 3 times. |\n| 503 | service_unavailable | The service is overloaded. | Yes, "
    "after 30 seconds. |\n"
)
WEBHOOKS_PAGE = (
    "# Webhooks\n\n## Delivery and retries\n\nYour endpoint must answer with a 2xx status "
    "within 10 seconds. Any other status, a timeout, or a connection error counts as a failed "
    "delivery.\n"
)


def test_a_status_codes_class_says_it_and_a_figure_before_status_is_no_code(
    generator: ExtractiveGenerator,
) -> None:
    """ "Retry all 5xx errors" says 503; "100 status pages" and "error code
    150" are no HTTP statuses."""
    page = (
        "# Errors\n\nRetry all 5xx errors with exponential backoff.\n\n## Plans\n\nThe Growth "
        "plan includes 100 status pages.\n"
    )
    hits = hits_of(*_markdown_chunks("errors", page))
    assert "5xx" in generator.generate("Should I retry a 503 error?", hits).text
    growth = generator.generate("Does the Growth plan include 100 status pages?", hits)
    assert "100 status pages" in growth.text, growth.text


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Should I retry a 503 error?", "HTTP status: 503; Retry?: Yes, after 30 seconds"),
        ("Can I retry a 500 error?", "HTTP status: 500; Retry?: Yes, with exponential backoff"),
        ("Is a 404 error retried?", "HTTP status: 404; Retry?: No"),
        ("Should I retry a 502 error?", None),
    ],
)
def test_a_status_code_in_a_yes_no_question_is_a_name_not_a_figure(
    generator: ExtractiveGenerator, question: str, said: str | None
) -> None:
    """ "Should I retry a 503 error?": the 503 row, not a sentence on retries
    that names no status; a status no page names is refused."""
    hits = hits_of(
        *_markdown_chunks("webhooks", WEBHOOKS_PAGE), *_markdown_chunks("errors", ERRORS_PAGE)
    )
    answer = generator.generate(question, hits)
    _opens_with_or_refuses(answer, said)


BACKOFF_PAGE = (
    "# Webhooks\n\n## Delivery and retries\n\nA failed delivery is retried up to 8 times over "
    "about 24 hours, with this backoff schedule after the first attempt:\n\n1. 1 minute\n2. 5 "
    "minutes\n3. 15 minutes\n4. 1 hour\n5. 2 hours\n6. 4 hours\n7. 8 hours\n8. 8 hours\n\n"
    "After the last retry fails, the event is dropped. Dropped events stay visible under "
    "Webhooks > Failed events in the dashboard for 3 days.\n"
)


def test_a_list_announced_by_a_colon_is_said_whole(generator: ExtractiveGenerator) -> None:
    """ "15 minutes" holds the words of "5 minutes", "4 hours" those of "24
    hours", and the schedule waits "8 hours" twice: each item is said."""
    answer = generator.generate(
        "What is the backoff schedule for webhook retries?",
        hits_of(*_markdown_chunks("webhooks", BACKOFF_PAGE)),
    )
    items = re.findall(r"(\d+ (?:minutes?|hours?)) \[1\]", answer.text)
    assert items == [
        "1 minute",
        "5 minutes",
        "15 minutes",
        "1 hour",
        "2 hours",
        "4 hours",
        "8 hours",
        "8 hours",
    ], answer.text


@pytest.mark.parametrize(
    ("question", "pages", "said", "not_said"),
    [
        ("How many times do you retry a failed webhook?", BACKOFF_PAGE, "up to 8 times", "3 days"),
        (
            "How many times can I reschedule my appointment?",
            "# Appointments\n\nYou can reschedule an appointment twice. Appointments must be "
            "booked 2 days ahead.\n",
            "twice",
            "2 days",
        ),
        # ("once" opening a clause is no count, nor "1.5 times" a multiple)
        (
            "How many times can I change my delivery date?",
            "# Delivery\n\nOnce your order has shipped, the courier sets the date. You can "
            "change your delivery date twice.\n",
            "twice",
            "Once your order",
        ),
        (
            "How many times can I use the sauna?",
            "# Spa\n\nSauna sessions cost 1.5 times the swim price. Members can use the sauna "
            "twice a week.\n",
            "twice a week",
            "1.5 times",
        ),
    ],
)
def test_how_many_times_is_said_by_a_count_of_times(
    generator: ExtractiveGenerator, question: str, pages: str, said: str, not_said: str
) -> None:
    answer = generator.generate(question, hits_of(*_markdown_chunks("page", pages)))
    assert said in answer.text and not_said not in answer.text, answer.text


EXCLUSIONS_PAGE = (
    "# Illness policy\n\n## Exclusion periods\n\n- Vomiting and/or diarrhoea: your child must "
    "stay away until 48 hours after the last episode.\n- High temperature (38C or above): "
    "your child must stay away until they have had no temperature for 24 hours.\n"
    "- Chickenpox: your child must stay away "
    "until all the spots have crusted over, usually about 5 days after they appear.\n"
    "- Head lice: no exclusion. Please treat your child "
    "before they return.\n"
)


def test_a_step_or_a_note_is_no_item_of_another_thing(generator: ExtractiveGenerator) -> None:
    page = (
        "# Lasagne\n\n## Method\n\n1. Make the meat sauce.\n2. Preheat the oven to 200C.\n"
        "3. Layer the sauce and pasta.\n\nStep 4: Bake the lasagne for 40 minutes.\n"
    )
    answer = generator.generate(
        "How long do I bake the lasagne for my in-laws?", hits_of(*_markdown_chunks("l", page))
    )
    assert "40 minutes" in answer.text, answer.text


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How long must my child stay off with flu?", None),
        ("How long must my child stay off with measles?", None),  # (a label's figure: "38C")
        ("How long does my son need to stay off with chickenpox?", "Chickenpox: your child"),
        ("How long after vomiting can my child return?", "Vomiting and/or diarrhoea:"),
    ],
)
def test_an_item_labelled_with_another_thing_is_no_answer_for_one_no_page_names(
    generator: ExtractiveGenerator, question: str, said: str | None
) -> None:
    """ "Vomiting and/or diarrhoea: ... 48 hours" is the item of what its label
    names, as a table row is: no answer about flu, which no page names."""
    answer = generator.generate(question, hits_of(*_markdown_chunks("illness", EXCLUSIONS_PAGE)))
    _opens_with_or_refuses(answer, said)


REGIONS_PAGE = (
    "# Regions\n\n## Availability by plan\n\nThe US East region is available on every plan. "
    "The EU Central region is available on the Growth, Scale and Enterprise plans. The AP "
    "Southeast region is available on the Scale and Enterprise plans only.\n"
)


def test_an_only_of_a_feature_answers_a_question_about_two_names(
    generator: ExtractiveGenerator,
) -> None:
    """The "only" whose subject is the feature asked still says no: "Audit
    logs are available on the Scale and Enterprise plans only"."""
    page = (
        "# Plans\n\n## Security\n\nAudit logs are available on the Scale and Enterprise plans "
        "only.\n\n## Regions\n\nThe EU Central region is available on the Growth, Scale and "
        "Enterprise plans.\n"
    )
    answer = generator.generate(
        "Are audit logs available on the Growth plan in the EU Central region?",
        hits_of(*_markdown_chunks("plans", page)),
    )
    assert "Audit logs are available on the Scale and Enterprise plans only" in answer.text


def test_an_only_of_another_thing_is_no_answer_to_a_question_about_two(
    generator: ExtractiveGenerator,
) -> None:
    """ "The AP Southeast region is available on the Scale and Enterprise
    plans only" says nothing of the EU Central region on the Starter plan."""
    answer = generator.generate(
        "Is the EU Central region available on the Starter plan?",
        hits_of(*_markdown_chunks("regions", REGIONS_PAGE)),
    )
    assert "AP Southeast" not in answer.text, answer.text


PROSE_NURSERY = (
    "# Sunflower Day Nursery\n\n## Our rooms\n\nOur Baby Room cares for babies from 6 months "
    "to 2 years. A full day in the Baby Room costs £80.\n\nThe Toddler Room is for children "
    "aged 2–3. A full day in the Toddler Room costs £74.\n\nPre-school is for children from 3 "
    "years until they start school. A full day in Pre-school costs £69.\n"
)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How much is a full day for my 9-month-old?", "£80"),
        ("How much is a full day for my 2-year-old?", "£74"),
        ("How much is a full day for my 4-year-old?", "£69"),
        ("How much is a full day for my 5-month-old baby?", None),
    ],
)
def test_a_price_sentence_is_of_the_band_the_sentence_before_gives(
    generator: ExtractiveGenerator, question: str, said: str | None
) -> None:
    """ "Our Baby Room cares for babies from 6 months to 2 years. A full day
    in the Baby Room costs £80.": the price is the band's, for a 9-month-old
    and not a 4-year-old or a 5-month-old."""
    answer = generator.generate(question, hits_of(*_markdown_chunks("rooms", PROSE_NURSERY)))
    if said is None:
        assert not answer.grounded, answer.text
    else:
        assert said in answer.text, answer.text
        assert not {"£80", "£74", "£69"} - {said} & set(re.findall(r"£\d+", answer.text))


def test_a_row_or_sentence_of_another_age_band_is_no_price(generator: ExtractiveGenerator) -> None:
    page = (
        "# Activities\n\n| Activity | Ages | Price |\n|---|---|---|\n"
        "| Climbing | 11–14 years | £12 |\n| Gymnastics | 4–10 years | £7 |\n\n"
        "Puppy classes are for puppies aged 10 to 20 weeks and cost £90 for a 6-week course.\n"
    )
    hits = hits_of(*_markdown_chunks("activities", page))
    assert not generator.generate("How much is climbing for my 6-year-old?", hits).grounded
    assert "£7" in generator.generate("How much is gymnastics for my 6-year-old?", hits).text
    assert not generator.generate("How much is a class for my 8-week-old puppy?", hits).grounded


def test_an_age_no_band_holds_is_not_priced_by_a_neighbouring_band(
    generator: ExtractiveGenerator,
) -> None:
    answer = generator.generate(
        "How much is a full day for my 7-year-old?",
        hits_of(*_markdown_chunks("fees", NURSERY_FEES)),
    )
    assert not answer.grounded, answer.text


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("We are a charity. Can we get a discount?", []),
        ("My dog is old. Does he need a booster at Eastgate?", ["Eastgate"]),
        ("Hi. Does Mr. Smith work at Acme?", ["Mr Smith", "Acme"]),
    ],
)
def test_a_later_sentences_first_word_is_no_name(question: str, names: list[str]) -> None:
    assert entities(question, ["a text"]) == names


@pytest.mark.parametrize(
    ("question", "who"),
    [
        ("I'm a student, can I get a discount?", ("student", set())),
        ("I’m a student, can I get a discount?", ("student", set())),
        ("We're a registered charity. Can we ...?", ("charity", {"register"})),
        ("I'm a student living in Leeds, can I ...?", ("student", set())),
        ("I'm a customer, can I get a refund?", None),
        ("As a reminder, is parking free for students?", None),
        ("I'm a little late, can I still come in?", None),
        ("Can I get a refund?", None),
    ],
)
def test_who_asks(question: str, who: tuple[str, set[str]] | None) -> None:
    assert asker(question) == who


@pytest.mark.parametrize(
    ("texts", "question", "expected"),
    [
        # who asks matters only for what one qualifies for
        (
            ["Students must show ID at the entrance.", "You can pay by card or cash at the desk."],
            "I'm a student, can I pay by card?",
            "You can pay by card or cash at the desk [1].",
        ),
        # a group the question names is no other group
        (
            ["Children under 5 travel free."],
            "I'm an adult, do children travel free?",
            "Children under 5 travel free [1].",
        ),
        # a sentence that limits it to another group answers no
        (
            ["Discounts are only available to seniors over 65."],
            "I'm a student, can I get a discount?",
            "Discounts are only available to seniors over 65 [1].",
        ),
        # "senior" says what kind of student: the seniors' discount is not theirs
        (
            [DISCOUNTS],
            "I'm a senior student, can I get a discount?",
            NOT_FOUND,
        ),
        (
            ["Parking is free for students."],
            "As a reminder, is parking free for students?",
            "Parking is free for students [1].",
        ),
        # "off-peak" is no discount
        (
            ["Students pay £5 off-peak and £8 at peak times."],
            "Do students get a discount?",
            NOT_FOUND,
        ),
        # to deposit cash is no sum; excess funds are no insurance excess
        (
            ["You can deposit cash at any branch counter."],
            "Where can I deposit cash?",
            "You can deposit cash at any branch counter [1].",
        ),
        (
            ["Any excess funds are refunded to your card within 5 days."],
            "What happens to the excess funds?",
            "Any excess funds are refunded to your card within 5 days [1].",
        ),
        # a price, a time or how it is sold after the name is no other thing
        (
            ["| Plan | Price |\n|---|---|\n| Hot desk monthly | £240 |\n"],
            "How much does a hot desk cost?",
            "Plan: Hot desk monthly; Price: £240 [1].",
        ),
        (
            ["| Ticket | Price |\n|---|---|\n| Adult ticket (online) | £12 |\n"],
            "What is the price of an adult ticket today?",
            "Ticket: Adult ticket (online); Price: £12 [1].",
        ),
        # a number word counts
        (
            ["The coastal route has thirteen stops and buses run every 10 minutes."],
            "How many stops does the coastal route have?",
            "The coastal route has thirteen stops and buses run every 10 minutes [1].",
        ),
        # "after 8" is no label
        (
            ["After 6 pm, parking is free.", "Parking costs £2 an hour during the day."],
            "Is parking free after 8?",
            "After 6 pm, parking is free [1].",
        ),
        # "under 16" of passengers is an age band
        (
            ["The standard fare is £4. Passengers under 16 pay £2."],
            "How much is the fare for a 10-year-old?",
            "Passengers under 16 pay £2 [1].",
        ),
    ],
)
def test_review_cases(
    generator: ExtractiveGenerator, texts: list[str], question: str, expected: str
) -> None:
    hits = hits_of(*[chunk(f"doc{i}.md", text) for i, text in enumerate(texts)])
    assert generator.generate(question, hits).text == expected


def test_sentence_openers_are_read_in_linear_time() -> None:
    assert entities("Ok. Fine. " * 10_000, ["word " * 20_000]) == []


@pytest.mark.parametrize(
    ("text", "question", "expected"),
    [
        # what "how many ..." counts is said by the answer: dates count no days
        (
            "## Annual leave\n\nThe annual leave year runs from 1 April to 31 March. Unused "
            "leave can be carried over.\n",
            "How many days annual leave do I get?",
            NOT_FOUND,
        ),
        (
            "Full-time staff get 25 days of annual leave. The leave year runs from 1 April.\n",
            "How many days annual leave do I get?",
            "Full-time staff get 25 days of annual leave [1].",
        ),
        # a figure beside the word ("180 litres ... bagged") counts no bags
        (
            "## Recycling centres\n\nWe have two recycling centres. They take rubble from "
            "residents only.\n\n## Bins\n\nGrey bin: 180 litres, emptied every 2 weeks; it "
            "takes bagged pet waste.\n",
            "How many bags of rubble can I take to the recycling centre?",
            NOT_FOUND,
        ),
        (
            "You can bring up to 4 bags of rubble per visit.\n",
            "How many bags of rubble can I take to the tip?",
            "You can bring up to 4 bags of rubble per visit [1].",
        ),
        # "how much holiday": a notice period of weeks is none; leave says it
        (
            "Notice is one week per complete year of service, up to 12 weeks.\n",
            "How much holiday does a G6 with 12 years' service get?",
            NOT_FOUND,
        ),
        # the label before a colon says what its figures count
        (
            "Free guest Day Passes: Fixed Desk – 1 per month; Private Office – 5 per month.\n",
            "How many free guest day passes come with a Private Office?",
            "Free guest Day Passes: Fixed Desk – 1 per month; Private Office – 5 per month [1].",
        ),
    ],
)
def test_how_many_is_answered_by_a_count_of_the_thing(
    generator: ExtractiveGenerator, text: str, question: str, expected: str
) -> None:
    assert generator.generate(question, hits_of(chunk("doc.md", text))).text == expected


@pytest.mark.parametrize(
    ("question", "counted"),
    [
        ("How many days annual leave do I get?", "day"),
        ("How much annual leave do part-time staff get?", "leav"),
        ("How many meeting room hours come with a desk?", "hour"),
        ("how many free guest day passes come with it?", "pass"),
        ("how many bags of rubble can I take?", "bag"),
        ("How many kids does it cover?", "child"),
    ],
)
def test_what_how_many_counts(question: str, counted: str) -> None:
    assert counted in counted_thing(question)


def test_how_much_of_nothing_named_counts_nothing() -> None:
    assert counted_thing("How much is the Pro plan?") == set()
    assert counted_thing("How much does it cost?") == set()


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What deposit do you hold on a debit card?", "money"),
        ("What's the excess on the Corolla?", "money"),
        ("Is there a young driver surcharge?", "money"),
        ("What is the excess baggage allowance?", "amount"),  # an allowance, no sum
        # (a fine asked for: "We cannot return if it contained the wrong items"
        # is no fine for the wrong items)
        ("What is the fine for putting the wrong items in the blue bin?", "money"),
        ("What is the fixed penalty for fly-tipping?", "money"),
        ("How do I appeal a parking fine?", None),
        ("Is it fine to leave bags out?", None),
    ],
)
def test_a_deposit_a_surcharge_and_an_excess_are_sums(question: str, kind: str | None) -> None:
    assert answer_kind(question) == kind


def test_a_rule_without_the_sum_does_not_answer_what_deposit(
    generator: ExtractiveGenerator,
) -> None:
    text = (
        "## Deposits\n\nWe hold a deposit on your card when you pick up the car. Debit cards "
        "are accepted only for Groups A–E.\n\n| Card type | Groups A–E | Groups F and G |\n"
        "|---|---|---|\n| Debit card | £600 | Not accepted |\n| Credit card | £400 | £500 |\n"
    )
    answer = generator.generate(
        "What deposit do you hold on a debit card?",
        hits_of(chunk("doc.md", text)),
    )
    assert answer.text.startswith("Card type: Debit card; Groups A–E: £600")


def test_a_label_in_lower_case_is_a_name_as_the_passages_write_it(
    generator: ExtractiveGenerator,
) -> None:
    """ "zone 1" is Zone 1, one of the zones, where the passages write "Zone 3":
    what they say of Zone 3 is no answer; a row under a "Zone" column names its zone."""
    trial = (
        "## What goes in each bin\n\n**Soft plastics** (carrier bags, film): coming soon — a "
        "collection trial will start in Zone 3 later this year.\n"
    )
    days = (
        "## Collection days\n\n| Zone | Areas | Collection day |\n|---|---|---|\n"
        "| 1 | Northgate | Monday |\n| 2 | Eastfield | Tuesday |\n\n"
        "Zone 3 is collected on Wednesdays.\n"
    )
    assert entities("when will soft plastics be collected in zone 1?", [trial]) == ["Zone 1"]
    assert entities("can i plan a trip?", ["Week A bins"]) == []
    assert (
        generator.generate(
            "when will soft plastics be collected in zone 1?", hits_of(chunk("bins.md", trial))
        ).text
        == NOT_FOUND
    )
    answer = generator.generate("what day are bins collected in zone 2?", hits_of(chunk("d", days)))
    assert answer.text == "Zone: 2; Areas: Eastfield; Collection day: Tuesday [1]."


def test_a_row_of_the_same_words_and_another_noun_prices_another_thing(
    generator: ExtractiveGenerator,
) -> None:
    sacks = (
        "## Garden waste subscription prices\n\n| Item | Standard price | Early bird (sign up "
        "by 31 January) |\n|---|---|---|\n| Pack of 10 garden waste sacks | £22 | — |\n"
    )
    question = "how much is the garden waste bin if I sign up on 20 January?"
    assert generator.generate(question, hits_of(chunk("d.md", sacks))).text == NOT_FOUND
    both = sacks + "| Garden waste bin (first) | £52 | £47 |\n"
    assert generator.generate(question, hits_of(chunk("d.md", both))).text.startswith(
        "Item: Garden waste bin (first); Standard price: £52; Early bird"
    )


def test_the_row_labelled_with_what_is_asked_comes_before_a_mention_in_passing(
    generator: ExtractiveGenerator,
) -> None:
    pausing = chunk(
        "pause.md",
        "## Pausing your membership\n\nA paused Hot Desk costs nothing; a paused Fixed Desk "
        "costs £60 per month to keep your desk.\n",
    )
    plans = chunk(
        "plans.md",
        "## Plans\n\n| Plan | Price | Access |\n|---|---|---|\n"
        "| Hot Desk | £240 per month | Staffed hours |\n| Fixed Desk | £290 per month | 24/7 |\n",
    )
    answer = generator.generate("how much is a hot desk per month?", hits_of(pausing, plans))
    assert answer.text == "Plan: Hot Desk; Price: £240 per month; Access: Staffed hours [1]."


@pytest.mark.parametrize(
    ("text", "fits"),
    [
        ("Deposits are returned within 30 days of leaving.", False),
        ("Studio | one month's fee", True),
        ("The deposit is 2 months' rent.", True),
        ("Refunds of £20 are paid within 5 days.", True),
    ],
)
def test_a_time_after_a_price_word_is_no_sum_and_a_months_fee_is_one(text: str, fits: bool) -> None:
    assert fits_kind("money", text) is fits


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("what's the nightly hotel limit in Edinburgh for a G5?", "amount"),
        ("what's the wifi speed like?", "amount"),
        ("What is the maximum group size?", "amount"),
        ("what is the minimum IELTS score for the MSc?", "amount"),
        ("What's the capacity of Room A?", "amount"),
        ("What are the limits?", "amount"),
        # the measure word inside another thing asked for
        ("What is the dispute resolution process?", None),
        ("What's the speed camera policy?", None),
        ("what is the rate card", None),
    ],
)
def test_what_is_the_limit_asks_a_measure(question: str, kind: str | None) -> None:
    assert answer_kind(question) == kind


def test_a_sentence_about_the_limits_without_one_does_not_answer_what_the_limit_is(
    generator: ExtractiveGenerator,
) -> None:
    """ "What's the nightly hotel limit ...?" asks a figure: "Nightly limits
    include VAT" names the limits and gives none; the row gives it."""
    text = (
        "## Hotels\n\nBook through the travel portal. Nightly limits include VAT and exclude "
        "breakfast.\n\n| City | Grades G1–G4 | Grades G5–G6 |\n|---|---|---|\n"
        "| London | £160 | £190 |\n| Manchester, Edinburgh, Bristol | £120 | £150 |\n"
    )
    answer = generator.generate(
        "what's the nightly hotel limit in Edinburgh for a G5?", hits_of(chunk("doc.md", text))
    )
    assert "include VAT" not in answer.text
    assert answer.text == NOT_FOUND or "£150" in answer.text  # the row is not read yet
    said = text + "\nFor grades G5–G6 the nightly limit in Edinburgh is £150.\n"
    answer = generator.generate(
        "what's the nightly hotel limit in Edinburgh for a G5?", hits_of(chunk("doc.md", said))
    )
    assert answer.text.startswith("For grades G5–G6 the nightly limit in Edinburgh is £150")


def test_what_is_the_speed_is_refused_when_no_passage_gives_one(
    generator: ExtractiveGenerator,
) -> None:
    text = "## Plans\n\nAll plans include Wi-Fi, tea and coffee, and use of the kitchen.\n"
    answer = generator.generate("what's the wifi speed like?", hits_of(chunk("doc.md", text)))
    assert answer.text == NOT_FOUND
    fast = generator.generate(
        "what's the wifi speed like?",
        hits_of(chunk("doc.md", text + "\nWi-Fi speed is up to 900 Mbps on both floors.\n")),
    )
    assert "900 Mbps" in fast.text


@pytest.mark.parametrize(
    ("kind", "text", "fits"),
    [
        ("amount", "The leave year runs from 1 April to 31 March.", False),
        ("amount", "You get 25 days, counted from 1 April.", True),
        ("count", "Doors open at 09:30 on March 13.", False),
        ("count", "Two desks are free from 1 May.", True),
        ("amount", "Storage resets on 2026-01-01.", False),
        ("amount", "Leave is in proportion to your hours from 1 April.", True),
    ],
)
def test_a_date_or_a_clock_time_is_no_count_or_amount(kind: str, text: str, fits: bool) -> None:
    assert fits_kind(kind, text) is fits


def test_how_much_leave_is_not_answered_by_when_the_leave_year_runs(
    generator: ExtractiveGenerator,
) -> None:
    text = (
        "## Annual leave\n\nThe leave year runs from 1 April to 31 March. Leave must be "
        "booked through the HR portal.\n"
    )
    question = "How much annual leave do I get?"
    assert generator.generate(question, hits_of(chunk("doc.md", text))).text == NOT_FOUND
    said = text + "\nFull-time staff get 25 days of annual leave a year.\n"
    answer = generator.generate(question, hits_of(chunk("doc.md", said)))
    assert answer.text.startswith("Full-time staff get 25 days of annual leave a year")


def test_a_figure_the_question_gives_is_no_answer_to_it(generator: ExtractiveGenerator) -> None:
    """ "When is 4.0 coming out?" is not answered by "removed in 4.0", nor
    "a 90 minute massage" by the 30-minute one's price... unless a figure is left."""
    assert given_figures("When is 4.0 out, and is a 90 minute slot £80?") == ["4.0", "80", "90"]
    changelog = "## 3.2.0\n\n**Deprecated:** Intel macOS builds. They will be removed in 4.0.\n"
    answer = generator.generate("when is 4.0 coming out?", hits_of(chunk("changes.md", changelog)))
    assert answer.text == NOT_FOUND
    dated = changelog + "\n## Roadmap\n\nVersion 4.0 is planned for March 2027.\n"
    answer = generator.generate("when is 4.0 coming out?", hits_of(chunk("changes.md", dated)))
    assert "March 2027" in answer.text
    assert fits_kind("time", "They will be removed in 4.0.", ["4.0"]) is False
    assert fits_kind("time", "They will be removed in 4.0.") is True


@pytest.mark.parametrize(
    ("question", "acronym"),
    [
        ("what's the uptime SLA on the Scale plan?", "SLA"),
        ("I've got a US driving licence, what documents do I need?", "US"),  # not "us"
        ("what GMAT score do you need for the MBA?", "GMAT"),
        ("Do you accept PDF files?", None),  # "PDFs"
        ("Is there a pdf version?", None),
        ("what IELTS score do I need?", None),
        ("Can I get a refund ASAP?", None),
        ("WHAT IS THE PRICE OF THE PRO PLAN?", None),
        ("Who is based in Berlin and what is the CEO's name?", None),  # one part may be answered
    ],
)
def test_an_acronym_no_passage_writes_is_about_something_else(
    question: str, acronym: str | None
) -> None:
    texts = [
        "We accept PDFs and Word files. Upload a pdf from the portal. Contact us with your "
        "licence. IELTS overall: 7.0. Plan: Scale; Price per month: $399. Refunds take 5 days."
    ]
    assert unknown_acronym(question, texts) == acronym


def test_a_question_about_an_acronym_no_passage_holds_is_refused(
    generator: ExtractiveGenerator,
) -> None:
    text = (
        "## English requirements\n\nIf English is not your first language, you need one of "
        "the following scores.\n\n| Programme | IELTS score | TOEFL iBT score |\n|---|---|---|\n"
        "| MBA | 6.5 | 90 |\n"
    )
    hits = hits_of(chunk("apply.md", text))
    assert generator.generate("what GMAT score do you need for the MBA?", hits).text == NOT_FOUND
    assert "6.5" in generator.generate("what IELTS score do you need for the MBA?", hits).text
    # "one of the following scores" gives none
    assert fits_kind("amount", "You need one of the following scores.") is False


def test_a_setting_or_call_no_passage_names_is_refused(generator: ExtractiveGenerator) -> None:
    """An identifier the question names (snake_case, dotted) is a name: a
    passage about another setting answers another question."""
    text = (
        "## Workers\n\nThe default value of `max_workers` is 8. Set `worker.pool` to "
        "`threads` on Windows. See `ferrule.yaml` for the rest.\n"
    )
    hits = hits_of(chunk("configuration.md", text))
    for question in (
        "What is the default value of max_queue_length?",
        "What is the default value of max_worker?",  # not a part of max_workers either
        "What should worker.timeout be set to on Windows?",
        "What is in ferrule.toml?",
    ):
        assert generator.generate(question, hits).text == NOT_FOUND, question
    assert "is 8" in generator.generate("What is the default value of max_workers?", hits).text
    assert "`threads`" in generator.generate("What should worker.pool be on Windows?", hits).text
    assert generator.generate("What does ferrule.yaml hold, e.g. the pool?", hits).grounded
    # written with Markdown's escape, as the tail of a longer dotted name, or
    # as a nested YAML key: the same identifier
    escaped = hits_of(chunk("export.md", "The default value of max\\_workers is 8.\n"))
    assert "is 8" in generator.generate("What is the default value of max_workers?", escaped).text
    longer = hits_of(chunk("win.md", "On Windows, set `ferrule.worker.pool` to `threads`.\n"))
    assert generator.generate("What should worker.pool be on Windows?", longer).grounded
    nested = hits_of(
        chunk(
            "win.md",
            "On Windows, set this:\n\n```yaml\nworker:\n  pool: "
            "threads\n```\n\nThe pool must be threads on Windows.\n",
        )
    )
    assert generator.generate("What should worker.pool be on Windows?", nested).grounded


def test_the_row_of_the_setting_asked_beats_a_row_that_names_it(
    generator: ExtractiveGenerator,
) -> None:
    cli = chunk(
        "cli.md",
        "## ferrule worker\n\n| Option | Default | Meaning |\n|---|---|---|\n"
        "| `--concurrency` | value of `max_workers` | Number of child processes. |\n",
    )
    settings = chunk(
        "configuration.md",
        "## Main settings\n\n| Setting | Default | Description |\n|---|---|---|\n"
        "| `broker_url` | `redis://localhost` | Where the broker lives. |\n"
        "| `max_workers` | `8` | Worker processes per node. |\n",
    )
    answer = generator.generate("What is the default value of max_workers?", hits_of(cli, settings))
    assert answer.text == "Setting: `max_workers`; Default: `8` [1]."
    # a sentence about another setting is no answer beside it
    mail = chunk("mail/c.eml", "Correction: the recommended value is max_tasks_per_child = 500.\n")
    both = generator.generate("What is the default value of max_workers?", hits_of(mail, settings))
    assert both.text.startswith("Setting: `max_workers`; Default: `8`"), both.text
    # a row whose label is of the kind asked for stays an answer
    env = chunk(
        "env.md",
        "## Environment\n\n| Variable | Setting it overrides |\n|---|---|\n"
        "| `FERRULE_MAX_WORKERS` | `max_workers` |\n",
    )
    which = generator.generate(
        "Which environment variable sets max_workers?", hits_of(settings, env)
    )
    assert "FERRULE_MAX_WORKERS" in which.text and "Default: `8`" not in which.text, which.text
    # no row labelled with it: the row that names it is still an answer
    alone = generator.generate("What is the default value of max_workers?", hits_of(cli))
    assert "value of `max_workers`" in alone.text


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("what PTE score do I need for the LLM?", "amount"),
        ("what size is the meeting room?", "amount"),
        ("what's the cooling off period?", "time"),
        ("what is the minimum term for a Studio?", "time"),
        ("what's the deadline for the January intake?", "time"),
        ("what's the term structure like?", None),
        ("What will my no-claims discount be at renewal?", "amount"),
        ("What will the cooling-off period be?", "time"),
        ("what discounts are there?", None),  # a list of them
    ],
)
def test_what_period_asks_a_time_and_what_score_a_measure(question: str, kind: str) -> None:
    assert answer_kind(question) == kind


def test_what_is_the_period_is_not_answered_by_a_sentence_without_one(
    generator: ExtractiveGenerator,
) -> None:
    text = (
        "## Cancelling\n\nIf you cancel within the cooling-off period and have not made a "
        "claim, we refund your premium in full.\n"
    )
    question = "what's the cooling off period?"
    assert generator.generate(question, hits_of(chunk("policy.md", text))).text == NOT_FOUND
    said = text + "\nThe cooling-off period is 14 days from the day your documents arrive.\n"
    answer = generator.generate(question, hits_of(chunk("policy.md", said)))
    assert "14 days" in answer.text


@pytest.mark.parametrize(
    ("text", "question", "another"),
    [
        ("Duration: 30 minutes; Price: £40", "how much is a 90 minute sports massage?", True),
        ("Duration: 30 minutes; Price: £40", "how much is a 90-min massage?", True),
        ("Duration: 90 minutes; Price: £95", "how much is a 90 minute sports massage?", False),
        ("A 30-minute slot is £40 and a 90-minute one £95", "how much is a 90 minute one?", False),
        # a bound is no other figure
        ("If you cancel with less than 24 hours' notice, we charge 50%", "12 hours before?", False),
        ("First 10,000 miles: 45p", "I've driven 12,000 miles, what is the rate?", False),
        ("Duration: 30 minutes", "how much is a sports massage?", False),
    ],
)
def test_another_figure_of_the_unit_the_question_gives_is_another_thing(
    text: str, question: str, another: bool
) -> None:
    assert measures_another(text, question) is another


def test_a_share_off_is_no_price_unless_a_share_or_who_asks_is_asked(
    generator: ExtractiveGenerator,
) -> None:
    """ "How much is a 90 minute sports massage?" is not answered by the 30
    minute one's row, nor by "15% off ... sports massage"; "how much is the
    student discount?" is, and so is "I'm a student, what would it cost me?"."""
    text = (
        "## Prices\n\n| Treatment | Duration | Price |\n|---|---|---|\n"
        "| Sports massage | 30 minutes | £40 |\n| Sports massage | 60 minutes | £65 |\n\n"
        "## Concessions\n\nStudents with a valid student card get 15% off sports massage only.\n"
    )
    hits = hits_of(chunk("prices.md", text))
    assert generator.generate("how much is a 90 minute sports massage?", hits).text == NOT_FOUND
    assert "£65" in generator.generate("how much is a 60 min sports massage?", hits).text
    discount = generator.generate("how much is the student discount on sports massage?", hits)
    assert "15% off" in discount.text
    mine = generator.generate("I'm a student, what would a sports massage cost me?", hits)
    assert mine.text != NOT_FOUND


def test_an_excess_or_a_deposit_is_answered_only_where_it_is_named(
    generator: ExtractiveGenerator,
) -> None:
    """ "What's my excess?" is not answered by an add-on's price; a row under
    the "Excesses" heading (or with an "Excess" column) names it."""
    assert answer_kind("i've got essentials and a pipe burst. what's my excess?") == "money"
    cover = (
        "## Add-ons\n\n**Home Emergency Cover** costs £4.20 a month and pays up to £500 per "
        "call-out for burst pipes and blocked drains.\n"
    )
    question = "I've got Essentials and a pipe burst. What's my excess?"
    assert generator.generate(question, hits_of(chunk("cover.md", cover))).text == NOT_FOUND
    excesses = (
        "## Excesses\n\n| Claim type | Essentials | Standard |\n|---|---|---|\n"
        "| Escape of water (burst pipe) | £450 | £350 |\n"
    )
    answer = generator.generate(
        question, hits_of(chunk("cover.md", cover), chunk("excess.md", excesses))
    )
    assert "£450" in answer.text and "£4.20" not in answer.text


def test_how_many_is_not_answered_by_a_sum(generator: ExtractiveGenerator) -> None:
    assert fits_kind("count", "The Vale Scholarship is worth £5,000 a year.") is False
    assert fits_kind("count", "Up to 3 guests get 20% off.") is True
    text = (
        "## Scholarships\n\n**Vale Excellence Scholarship** is worth £5,000 and is for "
        "international students with a first-class degree.\n"
    )
    question = "how many Vale Excellence Scholarships are there?"
    assert generator.generate(question, hits_of(chunk("fees.md", text))).text == NOT_FOUND
    said = text + "\nWe award 20 Vale Excellence Scholarships each year.\n"
    assert "20 Vale" in generator.generate(question, hits_of(chunk("fees.md", said))).text


def test_a_paragraph_that_opens_with_a_bold_name_is_about_that_name(
    generator: ExtractiveGenerator,
) -> None:
    text = (
        "## About each branch\n\n**Kelsworth Central** is at 14 Tannery Row. It has six "
        "treatment rooms. There is no on-site parking; the public car park is a two-minute "
        "walk away.\n\n**Ashby Quay** is at 2 Wharf Street. Patients may use the free car park "
        "behind the building.\n\n**Marlow Heath** is at 9 Mill Lane.\n"
    )
    hits = hits_of(chunk("branches.md", text))
    answer = generator.generate("is there parking at Marlow Heath?", hits)
    assert answer.text == NOT_FOUND
    answer = generator.generate("is there parking at Ashby Quay?", hits)
    assert "free car park" in answer.text and "no on-site" not in answer.text
    answer = generator.generate("is there parking at Kelsworth Central?", hits)
    assert "no on-site parking" in answer.text


def test_what_will_my_discount_be_is_not_answered_without_one(
    generator: ExtractiveGenerator,
) -> None:
    text = (
        "## No-claims discount\n\nEach consecutive year without a claim earns a discount on "
        "your premium at renewal.\n"
    )
    question = "What will my no-claims discount be at renewal?"
    assert generator.generate(question, hits_of(chunk("ncd.md", text))).text == NOT_FOUND
    said = text + "\nAfter 3 claim-free years the no-claims discount is 25%.\n"
    assert "25%" in generator.generate(question, hits_of(chunk("ncd.md", said))).text


def test_a_rate_asked_may_be_answered_by_where_to_ask_for_it(
    generator: ExtractiveGenerator,
) -> None:
    """ "What's your cash ISA rate?" asks a measure; "Please ask in a branch for
    the current Cash ISA rates" says there is none to quote, and where to get it."""
    text = (
        "## Cash ISA\n\nWe also offer a Cash ISA, which lets you save up to the annual ISA "
        "allowance without paying tax on the interest. Please ask in a branch for the current "
        "Cash ISA rates.\n"
    )
    answer = generator.generate("what's your cash ISA rate?", hits_of(chunk("savings.md", text)))
    assert "ask in a branch for the current Cash ISA rates" in answer.text
    assert fits_kind("amount", "Please ask in a branch for the current Cash ISA rates.")
    assert not fits_kind("amount", "Please ask in a branch for directions.")


CLUB = chunk(
    "docs/membership.md",
    "# Membership\n\n## Adult plan\n\nThe Adult plan costs £32 per month. Adult members can "
    "book a lane up to 3 days in advance.\n\n## Concessions\n\nStudents get 40% off the Adult "
    "plan.\n\n## Contact\n\nWrite to swim@lakeside.example or call 0161 496 0733 on weekdays.\n",
    0,
    "membership",
)
REPORT = chunk(
    "reports/review-2025.pdf",
    "Lakeside Swimming Club Review 2025\n\nIn 2025 the club had 640 members, up from 590 in "
    "2024.\nTotal income was 212,000 pounds.\n",
    0,
    "page=1",
)
SWIM = chunk(
    "docs/events.md",
    "# Open-water swim\n\nThe open-water swim starts from the boathouse at 07:15 on the first "
    "Sunday of June. The course is 3 km and entry costs £12.\n",
    0,
    "open-water-swim",
)
CLUB_DOCS = hits_of(CLUB, REPORT, SWIM)


@pytest.mark.parametrize(
    ("question", "said", "not_said"),
    [
        # "how much do <people> pay": a sum, not the booking rule of the same people
        ("how much do adult members pay", "£32 per month", "in advance"),
        # ... and the share of the group that is asked about
        ("How much do students pay for the Adult plan?", "40% off", "£32"),
        # "how long is the swim": a length of time or of the course, not its start time
        ("How long is the open-water swim?", "3 km", "07:15"),
        # a year asked: the sentence of that year, nothing of another
        ("What was the club's income in 2025?", "212,000 pounds", "590"),
        # a phone number or an email address, which the sentence gives without the words
        ("What's the phone number?", "0161 496 0733", "£32"),
        ("What is the email address?", "swim@lakeside.example", "£32"),
    ],
)
def test_the_answer_is_of_the_kind_asked(
    generator: ExtractiveGenerator, question: str, said: str, not_said: str
) -> None:
    answer = generator.generate(question, CLUB_DOCS)
    assert said in answer.text and not_said not in answer.text, answer.text


@pytest.mark.parametrize(
    "question",
    [
        "What was the club's income in 2024?",  # the report is 2025's: its income is no answer
        "How many members did the club have in 2023?",
        "What's the fax number?",  # the number to call is no fax number
    ],
)
def test_what_another_year_or_channel_says_is_refused(
    generator: ExtractiveGenerator, question: str
) -> None:
    assert_not_found(generator.generate(question, CLUB_DOCS))


def test_a_clock_time_or_a_date_says_when_not_how_long() -> None:
    from ragloom.builtin.generators._figures import fits_kind
    from ragloom.builtin.generators._kinds import answer_kind

    assert answer_kind("How long does the swim take?") == "duration"
    assert answer_kind("How long is the course?") == "length"
    starts = "The swim starts at 07:15 on the second Sunday of June."
    assert not fits_kind("duration", starts) and not fits_kind("length", starts)
    for lasts in (
        "It takes 3-5 working days.",
        "The battery lasts two and a half hours.",
        "It comes with a two-year warranty.",
        "The pool is open from 06:30 to 21:00.",
        "Passes never expire.",
    ):
        assert fits_kind("duration", lasts), lasts
    assert fits_kind("length", "The course is 3 km.") and not fits_kind("duration", "It is 3 km.")


def test_a_pdf_title_line_does_not_run_into_the_first_sentence(
    generator: ExtractiveGenerator,
) -> None:
    from ragloom.builtin.generators._text import split_sentences

    text = "Lakeside Swimming Club Review 2025\nIn 2025 the club had 640 members.\nIt grew."
    assert split_sentences(text, kinds=True)[:2] == [
        ("Lakeside Swimming Club Review 2025", "heading"),
        ("In 2025 the club had 640 members.", "sentence"),
    ]
    # a line wrapped in a sentence still joins the next one
    wrapped = "The swim starts from the boathouse at 07:15 on the\nfirst Sunday of June."
    assert split_sentences(wrapped) == [
        "The swim starts from the boathouse at 07:15 on the first Sunday of June."
    ]
    answer = generator.generate("How many members did the club have in 2025?", CLUB_DOCS)
    assert answer.text.startswith("In 2025 the club had 640 members"), answer.text


def test_a_year_no_passage_names_is_refused(generator: ExtractiveGenerator) -> None:
    """The passages give this year's fares, in no year's name: "What were the
    fares in 2019?" was answered with them."""
    fares = chunk(
        "docs/fares.md",
        "# Fares\n\nAn adult single costs £14.50. Residents pay 50% of the adult fare.\n",
        0,
        "fares",
    )
    docs = hits_of(fares, REPORT)
    assert "£14.50" in generator.generate("How much is an adult single?", docs).text
    assert_not_found(generator.generate("How much was an adult single in 2019?", docs))
    assert_not_found(generator.generate("What did residents pay in 2019?", docs))


@pytest.mark.parametrize(
    ("text", "question", "said", "not_said"),
    [
        # "how far": the time it takes to get there
        (
            "# Finding us\n\nThe clinic is a 6-minute walk from Kelsby station. "
            "Appointments last 30 minutes.\n",
            "How far is the clinic from the station?",
            "6-minute walk",
            "30 minutes",
        ),
        # "respond": a "response" target
        (
            "# Support\n\n| Plan | Channels | First response target |\n|---|---|---|\n"
            "| Team | Email and live chat | 8 business hours |\n"
            "| Business | Phone, email and chat | 2 business hours |\n",
            "how fast does support respond on the Team plan",
            "8 business hours",
            "2 business hours",
        ),
    ],
)
def test_what_is_asked_is_said_in_other_words(
    generator: ExtractiveGenerator, text: str, question: str, said: str, not_said: str
) -> None:
    answer = generator.generate(question, hits_of(chunk("docs/page.md", text, 0, "page")))
    assert said in answer.text and not_said not in answer.text, answer.text


def test_what_discount_a_group_gets_is_its_own(generator: ExtractiveGenerator) -> None:
    """ "I'm a student, what discount do I get?" was answered "The two
    discounts cannot be combined": "40% off" did not say "discount"."""
    offers = chunk(
        "docs/memberships.md",
        "## Students and charities\n\nStudents in full-time education get 40% off Hot Desk "
        "memberships. Registered charities get 20% off any membership. The two discounts "
        "cannot be combined.\n",
        0,
        "students-and-charities",
    )
    answer = generator.generate("I'm a student, what discount do I get?", hits_of(offers))
    assert "40% off" in answer.text and "20% off" not in answer.text, answer.text
    answer = generator.generate(
        "We're a registered charity, what discount do we get?", hits_of(offers)
    )
    assert "20% off" in answer.text and "40% off" not in answer.text, answer.text


FERRY_FLEET = chunk(
    "docs/routes.md",
    "## Our fleet\n\nThe Harnmouth crossing is served by MV *Kittiwake* and MV *Solan*. "
    "MV *Solan* has 8 pet-friendly cabins and free Wi-Fi. MV *Kittiwake* has Wi-Fi in the "
    "lounge only.\n",
    0,
    "our-fleet",
)
FERRY_FARES = chunk(
    "docs/fares.md",
    "# Fares\n\nAll fares are single journeys and apply for 2025.\n\n## Harnmouth – Orsay\n\n"
    "| Ticket | Single fare |\n|---|---|\n| Adult | £18.40 |\n| Senior (65+) | £14.70 |\n\n"
    "## Island residents\n\nResidents of Orsay pay 50% of the adult fare with a Resident "
    "Card.\n\n## Multi-journey tickets\n\nA book of 10 adult single tickets on the "
    "Harnmouth – Orsay route costs £62.00.\n",
    0,
    "fares",
)


def test_a_name_in_markdown_emphasis_is_that_name(generator: ExtractiveGenerator) -> None:
    """ "MV *Solan* has 8 pet-friendly cabins" answered what a cabin costs on
    MV Kittiwake: the emphasis hid that the sentence names a rival."""
    hits = hits_of(FERRY_FLEET)
    answer = generator.generate("Does MV Kittiwake have pet-friendly cabins?", hits)
    assert "Solan" not in answer.text, answer.text
    answer = generator.generate("Which ship has pet-friendly cabins?", hits)
    assert "Solan" in answer.text, answer.text


@pytest.mark.parametrize(
    "question",
    [
        # a place no passage names: a ticket on another route is no answer
        "How much is a single ticket from Harnmouth to Stroma Island?",
        # a kind of fare the passages never name, though a heading above
        # "Fares" names Orsay (a line ends a phrase)
        "What is the student fare to Orsay?",
    ],
)
def test_what_no_passage_names_is_not_answered(
    generator: ExtractiveGenerator, question: str
) -> None:
    assert_not_found(generator.generate(question, hits_of(FERRY_FARES, FERRY_FLEET)))


def test_names_outside_what_is_asked_need_not_be_known(generator: ExtractiveGenerator) -> None:
    hits = hits_of(FERRY_FARES)
    # "I'll" is no name
    answer = generator.generate("What'll I pay, as I'll be 70, for a senior ticket to Orsay?", hits)
    assert "£14.70" in answer.text, answer.text
    assert "I'll" not in entities("What'll I pay, as I'll be 70?")
    # one of two questions may be answered
    answer = generator.generate(
        "What do seniors pay to Orsay, and is there a Stroma Island route?", hits
    )
    assert "£14.70" in answer.text, answer.text


LIBRARY = chunk(
    "docs/library.md",
    "## Opening hours\n\nMillbrook Library is open Tuesday to Saturday, 10:00–17:00. "
    "Millbrook Library is closed on Mondays.\n\n## Returns\n\nCentral has a 24-hour returns "
    "box. It does not accept DVDs or laptops.\n\n## Fines\n\nSince 1 April 2023, books are "
    "fine-free. DVDs still cost £0.50 per day overdue.\n",
    0,
    "library",
)


def test_a_denial_of_another_thing_is_no_answer(generator: ExtractiveGenerator) -> None:
    """ "books are fine-free" says nothing of fines on DVDs."""
    answer = generator.generate("Do you charge fines on late DVDs?", hits_of(LIBRARY))
    assert "fine-free" not in answer.text, answer.text


HUT_PRICES = chunk(
    "docs/rooms-and-prices.md",
    "## Prices\n\n| Room type | Beds | Members | Non-members |\n|---|---|---|---|\n"
    "| Dormitory (Lager) | 36 | €28 | €38 |\n| Four-bed room | 16 | €39 | €52 |\n\n"
    "## Meals\n\nHalf board costs €36 for members and €41 for non-members.\n",
    0,
    "prices",
)


def test_a_participle_after_the_subject_is_not_its_head(generator: ExtractiveGenerator) -> None:
    """ "Hygiene appointments cancelled late are charged £15 instead" prices
    hygiene appointments, not "late"."""
    fees = chunk(
        "docs/hours.md",
        "## Cancellations\n\nAppointments cancelled with less than 24 hours' notice, or missed "
        "without notice, are charged a fee of £25. Hygiene appointments cancelled late are "
        "charged £15 instead. The fee is never charged for children under 16.\n",
        0,
        "cancellations",
    )
    answer = generator.generate(
        "How much is the fee if I miss my hygiene appointment?", hits_of(fees)
    )
    assert "£15 instead" in answer.text, answer.text


@pytest.mark.parametrize(
    ("question", "age"),
    [
        ("My son is 10, is the fee charged for him?", 10),
        ("My daughter is 16. Can she visit on her own?", 16),
        ("our grandson's 7, can he come?", 7),
        ("My son is 10.5 metres tall", None),
        ("my partner is 20 minutes late, can we still go in?", None),
        ("My daughter is 3 weeks old", 3 / 52),
    ],
)
def test_an_age_said_of_ones_family(question: str, age: float | None) -> None:
    said = asked_age(question)
    assert (said.months / 12 if said else None) == pytest.approx(age)


def test_an_age_in_a_yes_no_question_is_said_by_its_band(
    generator: ExtractiveGenerator,
) -> None:
    pool = chunk(
        "docs/pool.md",
        "## Children\n\nChildren aged 8 and over can swim without an adult in the water, as "
        "long as an adult stays in the building.\n\n## Fares\n\n| Ticket | Price |\n|---|---|\n"
        "| Bicycle | £4.00 |\n",
        0,
        "pool",
    )
    answer = generator.generate("Can my 9 year old swim without me in the water?", hits_of(pool))
    assert "aged 8 and over" in answer.text, answer.text
    # an age is no figure: "£4.00" does not say a 4-year-old
    answer = generator.generate("My kid is 4, does she need a ticket?", hits_of(pool))
    assert "£4.00" not in answer.text, answer.text


MARINA = chunk(
    "docs/berths.md",
    "## Pontoons\n\n| Pontoon | Boat length | Price per metre (annual) |\n|---|---|---|\n"
    "| A | up to 9 m | £395 |\n| B | 9 m to 12 m | £430 |\n| C | 12 m to 15 m | £465 |\n\n"
    "## Contacts\n\n| Role | Name | Contact |\n|---|---|---|\n"
    "| Site Secretary | Tomasz Wrobel | 07700 914 338 |\n"
    "| Treasurer | Ellen Fitch | treasurer@example.org |\n\n"
    "## The venue\n\nThe bar closes at 11:30 pm. The produce show is held on the first "
    "Saturday of September. The registrar's fee for a Saturday ceremony is £620.\n\n"
    "### Zone C\n\nIt was introduced in April 2023 to stop commuter parking.\n\n"
    "### Zone D\n\nZone D covers the harbour.\n",
    0,
    "marina",
)


@pytest.mark.parametrize(
    "question",
    [
        # another row of the table the question names a row of: the Site
        # Secretary's number is not the Treasurer's
        "What's the Treasurer's phone number?",
        # "closes" says not when it opens
        "What time does the bar open?",
        # a date says not what time
        "What time does the produce show start?",
        # a Saturday ceremony's fee is not a Friday one's
        "What's the registrar's fee for a Friday ceremony?",
        # "### Zone C" / "It was introduced ...": Zone C's, not Zone D's
        "When was Zone D introduced?",
    ],
)
def test_a_siblings_fact_is_no_answer(generator: ExtractiveGenerator, question: str) -> None:
    assert_not_found(generator.generate(question, hits_of(MARINA)))


def test_the_subject_of_two_verbs(generator: ExtractiveGenerator) -> None:
    """ "Rotavators must be booked ... and cost £5": rotavators cost £5."""
    tools = chunk(
        "docs/tools.md",
        "## Tools\n\nRotavators must be booked through the Site Secretary and cost £5 per half "
        "day to hire. Wheelbarrows are free to use.\n",
        0,
        "tools",
    )
    answer = generator.generate("How much does it cost to hire a rotavator?", hits_of(tools))
    assert "£5 per half day" in answer.text, answer.text


def test_a_capacity_says_how_many_it_seats(generator: ExtractiveGenerator) -> None:
    spaces = chunk(
        "docs/spaces.md",
        "## Spaces\n\n| Space | Ceremony capacity | Dinner capacity |\n|---|---|---|\n"
        "| The Granary | 140 | 120 |\n| The Wheelhouse | 60 | 50 |\n",
        0,
        "spaces",
    )
    answer = generator.generate(
        "how many people can the Wheelhouse seat for dinner", hits_of(spaces)
    )
    assert "Dinner capacity: 50" in answer.text and "120" not in answer.text, answer.text


def test_pontoon_b_is_not_pontoon_a(generator: ExtractiveGenerator) -> None:
    services = chunk(
        "docs/berths.md",
        "## Services\n\nPontoon A is closest to the office. It has water and 16 amp electricity "
        "on every finger. Pontoon D has 32 amp and 63 amp three-phase supplies.\n",
        0,
        "services",
    )
    answer = generator.generate("What electricity supply is there on pontoon B?", hits_of(services))
    assert "Pontoon A" not in answer.text and "Pontoon D" not in answer.text, answer.text
    assert entities("can I bring my dog to work", ["Can I bring a dog?"]) == []


def test_a_rule_on_another_doing_and_a_subject_set_off_by_commas(
    generator: ExtractiveGenerator,
) -> None:
    shop = chunk(
        "docs/shop.md",
        "## Repairs\n\nWe do not repair department-store bikes that cost under £150 new.\n\n"
        "## Membership\n\nAssociate membership, for people who do not hold a plot but want to "
        "use the trading hut, costs £4 per year.\n",
        0,
        "shop",
    )
    # a rule on repairing says nothing of selling
    assert_not_found(generator.generate("Do you sell new bikes?", hits_of(shop)))
    answer = generator.generate("Do you repair department-store bikes?", hits_of(shop))
    assert "do not repair" in answer.text, answer.text
    # what costs £4 is associate membership, not compost at the trading hut
    assert_not_found(
        generator.generate("How much does a bag of compost cost at the trading hut?", hits_of(shop))
    )
    answer = generator.generate("How much is associate membership?", hits_of(shop))
    assert "£4 per year" in answer.text, answer.text


def test_a_list_items_bold_name_is_what_its_sentences_are_about(
    generator: ExtractiveGenerator,
) -> None:
    """ "- **Marta Lindqvist** – dental hygienist. Works Tuesdays, Thursdays
    and Saturdays." says nothing of Dr. Holt; "**Dr." is no sentence."""
    team = chunk(
        "docs/about.md",
        "## Our team\n\n- **Dr. Sunniva Holt** – children's dentist. Sees patients aged 2 to "
        "16.\n- **Marta Lindqvist** – dental hygienist. Works Tuesdays, Thursdays and "
        "Saturdays.\n",
        0,
        "our-team",
    )
    assert_not_found(generator.generate("Does Dr. Holt work on Saturdays?", hits_of(team)))
    answer = generator.generate("Does Marta Lindqvist work on Saturdays?", hits_of(team))
    assert "Saturdays" in answer.text, answer.text
    answer = generator.generate("Who is the children's dentist?", hits_of(team))
    assert "**Dr. Sunniva Holt**" in answer.text, answer.text
    assert split_sentences("- **Dr. Holt** – dentist.")[0] == "**Dr. Holt** – dentist."


def test_a_siblings_section_is_no_answer(generator: ExtractiveGenerator) -> None:
    """Under "Harnmouth – Little Venn", a sentence is of that route, not of
    Harnmouth – Orsay, though it names Harnmouth."""
    timetable = chunk(
        "docs/timetable.md",
        "## Harnmouth – Little Venn\n\nWinter: four sailings a day from Harnmouth at 07:30, "
        "10:30, 13:30 and 16:30. The last sailing back from Little Venn leaves at 17:30.\n",
        0,
        "harnmouth--little-venn",
    )
    hits = hits_of(timetable)
    assert_not_found(
        generator.generate("What time are the winter sailings from Harnmouth to Orsay?", hits)
    )
    answer = generator.generate(
        "What time are the winter sailings from Harnmouth to Little Venn?", hits
    )
    assert "07:30" in answer.text, answer.text


def test_a_compound_is_no_clipped_word() -> None:
    from ragloom.builtin.generators._names import in_passage_words

    texts = ["Home emergency covers boiler breakdown. The dormitory has 36 beds."]
    assert "breaks down" in in_passage_words("if my boiler breaks down", [], texts)
    assert "dormitory bed" in in_passage_words("a dorm bed", [], texts)


def test_a_particle_is_no_key_and_a_list_of_prices_prices_each(
    generator: ExtractiveGenerator,
) -> None:
    policy = chunk(
        "docs/policy.md",
        "## Selling leave\n\nSelling annual leave is not permitted, except for Directors, who "
        "may sell up to 3 days.\n\n## Hire\n\nThe Main Hall costs £4,500 per evening, "
        "The Loft £1,200, and the Cellar Bar £450.\n",
        0,
        "policy",
    )
    answer = generator.generate("Can I sell some of my annual leave back?", hits_of(policy))
    assert "not permitted" in answer.text, answer.text
    answer = generator.generate("How much does it cost to hire The Loft?", hits_of(policy))
    assert "The Loft £1,200" in answer.text, answer.text
    assert_not_found(
        generator.generate("How much does it cost to hire the Garden Room?", hits_of(policy))
    )


ZONES = chunk(
    "docs/zones.md",
    "## Zones\n\n| Zone | Area | Controlled hours |\n|---|---|---|\n"
    "| Zone A | Town Centre | Monday to Saturday, 8 am – 8 pm |\n"
    "| Zone B | Harbour | Every day, 9 am – 9 pm |\n",
    0,
    "zones",
)


@pytest.mark.parametrize(
    ("passages", "question", "said", "not_said"),
    [
        # "what does X pay" asks a sum, the group's own; "50% of the adult
        # fare" is the residents' price
        (FERRY_FARES, "What does an adult pay to Orsay?", "£18.40", "Residents"),
        (FERRY_FARES, "What will a senior pay for a ticket to Orsay?", "£14.70", "Residents"),
        (FERRY_FARES, "What do residents pay?", "50% of the adult fare", "£18.40"),
        # a row is read under its table's heading ("Harnmouth – Orsay") and its
        # columns: the route is said, and a book of 10 tickets adds nothing
        (FERRY_FARES, "How much is an adult single to Orsay?", "£18.40", "£62.00"),
        # "What does ..." asks no list
        (FERRY_FARES, "What does an adult pay to Orsay?", "£18.40", "£62.00"),
        # "closed" answers "open?"; the afternoon is within the day
        (LIBRARY, "Is Millbrook library open on Monday afternoons?", "closed on Mondays", "£"),
        # "DVDs" names DVD
        (LIBRARY, "can i drop a DVD in the returns box?", "does not accept DVDs", "£"),
        # "fine-free": no fines
        (LIBRARY, "Do you charge fines on books?", "fine-free", "£0.50"),
        (LIBRARY, "Are there fines for books?", "fine-free", "£0.50"),
        # "dorm" clips "Dormitory", which a note in brackets does not make
        # another thing; half board for non-members is no dorm bed's price
        (HUT_PRICES, "how much is a dorm bed for a non-member?", "€38", "€41"),
        (HUT_PRICES, "how much is half board for non-members?", "€41", "€38"),
        # the row or the section the question names, not a sibling's
        (MARINA, "What's the annual price per metre on Pontoon C?", "£465", "£395"),
        (MARINA, "What's the Treasurer's email?", "treasurer@example.org", "07700"),
        (MARINA, "When was Zone C introduced?", "April 2023", "harbour"),
        # "zone B" is Zone B, whose row answers, not Zone A's
        (ZONES, "what hours is zone B controlled?", "9 am – 9 pm", "8 am – 8 pm"),
        (ZONES, "what are the controlled hours in zone b?", "9 am – 9 pm", "8 am – 8 pm"),
    ],
)
def test_the_answer_of_several_alike(
    generator: ExtractiveGenerator, passages: Chunk, question: str, said: str, not_said: str
) -> None:
    answer = generator.generate(question, hits_of(passages))
    assert said in answer.text and not_said not in answer.text, answer.text
    assert entities("what hours is zone B controlled?", [ZONES.text]) == ["Zone B"]


@pytest.mark.parametrize(
    ("text", "question", "said"),
    [
        # "X-free" denies X only where it says what else is asked, and not
        # when the question asks for an X-free thing
        (
            "Booking online is fee-free. Cancellations within 24 hours are charged in full.",
            "Is there a fee for cancelling?",
            None,
        ),
        (
            "Our brownies are gluten-free. We bake sourdough bread daily.",
            "Do you sell gluten-free bread?",
            None,
        ),
        # "pets" clips no "petrol"
        ("Petrol cans are not allowed in the rooms.", "Are pets allowed?", None),
        # a price is no time of day
        (
            "The café is open every day. A flat white costs £3.20 at the café.",
            "What time does the café open?",
            None,
        ),
        # "holiday pay" is a noun, not what someone pays
        (
            "Holiday pay includes regular overtime and commission as well as basic salary.",
            "What does holiday pay include?",
            "overtime",
        ),
        (
            "Sick pay covers up to 28 weeks of absence in any year.",
            "What does sick pay cover?",
            "28 weeks",
        ),
        # "Speed", "Unlimited", "Guided" and "guided walks" are no participles after a subject
        ("High Speed broadband costs £30 a month.", "How much is the broadband?", "£30"),
        (
            "The Mobile Unlimited plan costs £20 a month.",
            "What does the unlimited plan cost?",
            "£20",
        ),
        ("Weekend Guided tours cost £15 per person.", "How much are guided tours?", "£15"),
        ("Evening guided walks cost £8 per person.", "How much is a guided walk?", "£8"),
        # "Saturday and" is no Saturday thing
        (
            "Parking costs £5 on Saturday and Sunday.",
            "How much is parking on Sunday and Monday?",
            "£5",
        ),
    ],
)
def test_what_the_review_found(
    generator: ExtractiveGenerator, text: str, question: str, said: str | None
) -> None:
    answer = generator.generate(question, hits_of(chunk("docs/page.md", f"# Page\n\n{text}\n")))
    if said is None:
        assert_not_found(answer)
    else:
        assert said in answer.text, answer.text


def test_a_heading_with_a_season_is_no_siblings_section(generator: ExtractiveGenerator) -> None:
    """ "Harbour Line – Summer timetable" is the Harbour Line's, though the
    question names a Family ticket and the text "Summer"."""
    text = (
        "## Harbour Line – Summer timetable\n\nA Family ticket costs £12 on the Harbour "
        "Line. Boats run more often during Summer.\n"
    )
    section = "Ferries > Harbour Line – Summer timetable"
    page = chunk("docs/lines.md", text, 0, "harbour-line")
    page = replace(page, metadata={**page.metadata, "section": section})
    answer = generator.generate("How much is a Family ticket on the Harbour Line?", hits_of(page))
    assert "£12" in answer.text, answer.text


DATED_RELEASES = chunk(
    "docs/CHANGELOG.md",
    "# Changelog\n\n## 3.0.0 - 2031-01-15\n\n- Planned: a new storage engine.\n\n"
    "## 2.4.0 - 2026-09-14\n\n- Added the PagerDuty notifier.\n\n"
    "## 2.3.1 - 2026-06-02\n\n- Fixed a crash when a feed returned an empty reading.\n"
    "- Fixed the Slack notifier sending each alert twice.\n",
)


@pytest.mark.parametrize(
    ("passage", "question", "expected"),
    [
        (DATED_RELEASES, "When was version 2.3.1 released?", "2.3.1 - 2026-06-02 [1]."),
        (DATED_RELEASES, "When was 2.4.0 released?", "2.4.0 - 2026-09-14 [1]."),
        (KEEP_A_CHANGELOG, "When was version 1.2.0 released?", "[1.2.0] - 2026-02-02 [1]."),
        (CHANGELOG, "When was version 3.1.0 released?", "3.1.0 (2026-02-02) [1]."),
        # a release not out yet (a date to come: the check of "a year to
        # come" missed a year in an ISO date) was not released then
        (DATED_RELEASES, "When was version 3.0.0 released?", NOT_FOUND),
        (DATED_RELEASES, "When was version 2.2.0 released?", NOT_FOUND),
        # the heading says when, not what changed
        (
            DATED_RELEASES,
            "What was fixed in 2.3.1?",
            "Fixed a crash when a feed returned an empty reading [1].",
        ),
    ],
)
def test_a_release_heading_with_its_date_says_when_it_came_out(
    generator: ExtractiveGenerator, passage: Chunk, question: str, expected: str
) -> None:
    """ "## 2.3.1 - 2026-06-02" (and Keep a Changelog's "## [1.2.0] - ...")
    is the most common changelog heading: "when was 2.3.1 released?" was
    refused, though a "Released 2026-06-02" line under the heading answered."""
    answer = generator.generate(question, hits_of(passage))
    assert answer.text.startswith(expected), answer.text
    if expected != NOT_FOUND:
        assert answer.citations[0].quote in passage.text


OFFICES = chunk(
    "docs/offices.md",
    "# Offices\n\n## Denver\n\nThe Denver office opened in 2019 and has 85 employees.\n\n"
    "## Osaka\n\nThe Osaka office opened in 2022 and has 40 employees.\n",
)
CHAT = [
    {"role": "user", "content": "How many employees are in the Denver office?"},
    {"role": "assistant", "content": "The Denver office opened in 2019 and has 85 employees [1]."},
]


@pytest.mark.parametrize(
    "question",
    [
        "When did it open?",
        "And the Osaka office?",
        "How much do they pay them?",
        # a verb alone before the pronoun names nothing: the pronoun is its object
        "Who opened it?",
        "Where can I visit them?",
    ],
)
def test_a_follow_up_in_a_chat_is_not_answered_about_anything_alike(
    generator: ExtractiveGenerator, question: str
) -> None:
    """After a question about Denver, "When did it open?" was answered with
    Osaka's opening, cited: the answerer reads each question alone, so one
    that leans on the turns before it says so instead."""
    answer = generator.generate(question, hits_of(OFFICES), CHAT)
    assert answer.grounded is False and answer.citations == ()
    assert answer.text == FOLLOW_UP and answer.metadata["follow_up"] is True


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When did the Osaka office open?", "2022"),
        ("Is it possible to visit the Osaka office?", None),  # no "it" of the chat's
        ("And when did the Denver office open?", "2019"),  # a question of its own
        # the pronoun's noun comes before it, in the question itself
        ("How many employees does the Denver office have in its building?", "85"),
        ("How many employees does the Denver office have, and when was it opened?", "2019"),
    ],
)
def test_a_question_that_stands_alone_is_answered_in_a_chat(
    generator: ExtractiveGenerator, question: str, expected: str | None
) -> None:
    answer = generator.generate(question, hits_of(OFFICES), CHAT)
    assert answer.text != FOLLOW_UP
    if expected is not None:
        assert expected in answer.text and answer.grounded
    alone = generator.generate("When did it open?", hits_of(OFFICES))  # no chat: as before
    assert alone.text != FOLLOW_UP


RANKED = chunk(
    "docs/offices.md",
    "# Offices\n\nThe Osaka office opened in 2022 and has 40 employees.\n\n"
    "The Lisbon office has 120 employees and is our largest office.\n\n"
    "The Denver office has 85 employees.\n",
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # no sums are made: quoting one office's count misled
        ("Which office has the most employees?", NOT_FOUND),
        ("What office has the fewest employees?", NOT_FOUND),
        # a sentence that says the rank answers it
        ("Which office is the largest?", "The Lisbon office has 120 employees and is our"),
        # not a pick among several ("at least" is no rank)
        ("How many employees does the Osaka office have?", "The Osaka office opened in 2022"),
        ("Which office has at least 40 employees?", "The Osaka office"),
    ],
)
def test_a_question_that_picks_by_rank_takes_a_sentence_that_says_the_rank(
    generator: ExtractiveGenerator, question: str, expected: str
) -> None:
    assert generator.generate(question, hits_of(RANKED)).text.startswith(expected)


def test_a_source_file_is_quoted_line_by_line(generator: ExtractiveGenerator) -> None:
    """A source file's lines are code, not a paragraph: no function is quoted
    whole as one sentence, and a ``def ...:`` does not pull in its body."""
    code = (
        '#!/usr/bin/env python3\n"""Command-line entry point of Ferrule."""\nimport argparse\n\n\n'
        'def main(argv=None):\n    """Parse the arguments and dispatch to a sub-command."""\n'
        '    parser = argparse.ArgumentParser(prog="ferrule")\n'
        "    return parser.parse_args(argv)\n"
    )
    hits = hits_of(chunk("src/ferrule/cli.py", code))
    entry = generator.generate("What is the entry point of Ferrule?", hits)
    assert entry.text == "Command-line entry point of Ferrule [1]."  # a docstring is prose
    main = generator.generate("What does main do?", hits)
    assert main.text == "`def main(argv=None):` [1]."


def test_an_item_is_read_under_its_release_when_its_chunk_starts_below_it(
    generator: ExtractiveGenerator,
) -> None:
    """A Keep a Changelog section chunked on its own ("### Fixed" under "##
    [2.1.0] - 2025-01-30", which only the chunk's section path holds)."""

    def section(text: str, path: str, index: int) -> Chunk:
        base = chunk("CHANGELOG.md", text, index)
        return replace(base, metadata={**base.metadata, "section": path})

    fixed = section(
        "### Fixed\n\n- Fixed a crash when the broker connection drops during startup.\n",
        "Changelog > [2.1.0] - 2025-01-30 > Fixed",
        3,
    )
    changed = section(
        "### Changed\n\n- Changed the default `heartbeat_interval` from 30 to 15 seconds.\n",
        "Changelog > [2.4.0] - 2025-06-20 > Changed",
        1,
    )
    hits = hits_of(changed, fixed)
    when = generator.generate("When was 2.1.0 released?", hits)
    assert when.text.startswith("[2.1.0] - 2025-01-30"), when.text
    what = generator.generate("What changed in version 2.4.0?", hits)
    assert what.text == "Changed the default `heartbeat_interval` from 30 to 15 seconds [1]."
    assert_not_found(generator.generate("When was 2.2.0 released?", hits))


def test_a_faq_reply_that_opens_with_its_verdict_answers_its_question(
    generator: ExtractiveGenerator,
) -> None:
    faq = chunk(
        "docs/faq.md",
        "# Frequently asked questions\n\n### Does Ferrule support RabbitMQ?\n\nNo. RabbitMQ "
        "support was removed in 2.0.0; use Redis or PostgreSQL.\n\n"
        "### Does Ferrule run on Windows?\n\nYes, but workers must use the thread pool: start "
        "them with\n`ferrule worker --pool threads`.\n\n### How often are new versions "
        "released?\n\nA minor release comes out every six weeks.\n",
    )
    notes = chunk(
        "notes/windows.txt",
        "Running on Windows\n\nOn Windows, fork is not available, so the worker must be "
        "started with --pool threads. The Windows service is named FerruleWorker and is "
        "installed with ferrule service install.\n",
    )
    answer = generator.generate("Does Ferrule run on Windows?", hits_of(notes, faq))
    assert answer.text == (
        "Yes, but workers must use the thread pool: start them with "
        "`ferrule worker --pool threads` [1]."
    )
    assert answer.citations[0].source == "docs/faq.md"


def test_what_follows_a_colon_is_a_whole_command_or_nothing(
    generator: ExtractiveGenerator,
) -> None:
    docker = chunk(
        "deploy.md",
        "# Deploy\n\nStart the server in Docker with the config mounted:\n\n```console\n"
        "$ docker run -d \\\n    -v ./ferrule.yaml:/etc/ferrule.yaml \\\n    ferrule/server:2.5\n"
        "3f2a9c\n```\n",
    )
    answer = generator.generate("How do I start the server in Docker?", hits_of(docker))
    assert answer.text == (
        "Start the server in Docker with the config mounted [1]. `$ docker run -d \\` [1]. "
        "`-v ./ferrule.yaml:/etc/ferrule.yaml \\` [1]. `ferrule/server:2.5` [1]."
    )
    # a YAML block, whose nesting a line-by-line quote loses, and prices: no commands
    yaml_block = chunk(
        "windows.md",
        "# Windows\n\nOn Windows, run the workers with this in ferrule.yaml:\n\n```yaml\n"
        "worker:\n  pool: threads\nqueues:\n  default:\n    pool: prefork\n```\n",
    )
    said = generator.generate("How do I run the workers on Windows?", hits_of(yaml_block)).text
    assert said == "On Windows, run the workers with this in ferrule.yaml [1]."
    prices = chunk(
        "prices.md",
        "# Prices\n\nEach queue is billed per million tasks:\n\n```text\n$ 0.10  default\n"
        "$ 0.25  priority\n```\n",
    )
    said = generator.generate("How are queues billed?", hits_of(prices)).text
    assert said == "Each queue is billed per million tasks [1]."


def test_a_docstring_wrapped_over_lines_is_quoted_whole(generator: ExtractiveGenerator) -> None:
    code = (
        "def retry(job):\n"
        '    """Retry a failed job up to three times, waiting ten\n'
        '    seconds between tries."""\n'
        "    return job.run()\n"
    )
    answer = generator.generate(
        "How many times is a failed job retried?", hits_of(chunk("src/retry.py", code))
    )
    assert "waiting ten seconds between tries" in answer.text, answer.text


def test_a_mails_attribution_line_answers_nothing(generator: ExtractiveGenerator) -> None:
    """ "On Mon, ..., Priya Raman wrote:" says who wrote what follows: it is no
    answer to "Who wrote the migration tool?"."""
    notes = chunk(
        "notes/migration.txt", "The migration tool ferrule-migrate was written by José Müller.\n"
    )
    mail = chunk(
        "mail/re-leak.eml",
        "On Mon, 21 Jul 2025, Priya Raman wrote:\n> After upgrading to 2.4.1 our workers grow to "
        "4 GB of RAM within a day.\n\nSet max_tasks_per_child to 500.\n",
    )
    answer = generator.generate("Who wrote the migration tool?", hits_of(notes, mail))
    assert answer.text == "The migration tool ferrule-migrate was written by José Müller [1]."


PER_DIEM = chunk(
    "docs/per-diem.md",
    "# Per-diem allowances\n\n"
    "Per-diem covers meals and incidental costs on business trips of more than 6 hours.\n\n"
    "| City | 2025 | 2026 |\n|---|---|---|\n"
    "| Stockholm | SEK 290 | SEK 310 |\n| Austin | USD 64 | USD 71 |\n",
)


def test_a_row_of_a_table_of_years_answers_with_the_year_asked(
    generator: ExtractiveGenerator,
) -> None:
    """ "the per-diem in Austin in 2025": the row, with 2025's cell alone (not
    the table's opening sentence, which says the per-diem but no amount)."""
    answer = generator.generate("What is the per-diem in Austin in 2025?", hits_of(PER_DIEM))
    assert answer.text == "City: Austin; 2025: USD 64 [1]."
    answer = generator.generate("What is the per-diem in Stockholm?", hits_of(PER_DIEM))
    assert answer.text == "City: Stockholm; 2025: SEK 290; 2026: SEK 310 [1]."


SPACES = chunk(
    "docs/spaces.md",
    "# Spaces\n\n"
    "| Space | Ceremony capacity | Dinner capacity | Evening capacity |\n|---|---|---|---|\n"
    "| The Wheelhouse | 60 | 50 | 70 |\n| The Granary | 120 | 100 | 150 |\n",
)
ROOMS = chunk(
    "docs/rooms.md",
    "# Meeting rooms\n\n"
    "| Room | Seats | Hourly rate | Charge to cancel | Loan period |\n|---|---|---|---|---|\n"
    "| Spindle | 12 | £48 | £10 | 1 week |\n| Jacquard | 20 | £70 | £15 | 2 weeks |\n",
)
HOURS = chunk(
    "docs/hours.md",
    "# The library\n\n"
    "| Day | Opens | Closes | Late desk |\n|---|---|---|---|\n"
    "| Monday | 9am | 5pm | no |\n| Saturday | 10am | 1pm | yes |\n",
)


@pytest.mark.parametrize(
    ("question", "hit", "said"),
    [
        # the column the question names, not the evening's 70 beside it
        (
            "How many people can the Wheelhouse seat for dinner?",
            SPACES,
            "Space: The Wheelhouse; Dinner capacity: 50 [1].",
        ),
        (
            "What's the hourly rate for the Jacquard room?",
            ROOMS,
            "Room: Jacquard; Hourly rate: £70",
        ),
        # no column named: the whole row
        (
            "How many people fit in the Spindle room?",
            ROOMS,
            "Room: Spindle; Seats: 12; Hourly rate: £48; Charge to cancel: £10; Loan period: 1 wee",
        ),
        # "cancel" names a column, but "how long" asks a time only another one holds
        (
            "How long can I keep the Spindle room if I cancel?",
            ROOMS,
            "Room: Spindle; Seats: 12; Hourly rate: £48; Charge to cancel: £10; Loan period: 1 wee",
        ),
        # a range's two ends: the hours it is open are when it opens and closes
        (
            "What hours is it open on Saturday?",
            HOURS,
            "Day: Saturday; Opens: 10am; Closes: 1pm [1].",
        ),
        ("Is there a late desk on Saturday?", HOURS, "Day: Saturday; Late desk: yes [1]."),
    ],
)
def test_a_row_is_said_with_the_columns_the_question_names(
    generator: ExtractiveGenerator, question: str, hit: Chunk, said: str
) -> None:
    """A row said whole answers with its other columns beside the one asked
    ("Dinner capacity: 50; Evening capacity: 70" to "how many for dinner"):
    a reader takes the wrong figure. The columns the question names are said,
    with the row's label; all of them where it names none, or where the figure
    it asks is only in a column it does not name."""
    answer = generator.generate(question, hits_of(hit))
    assert answer.text.startswith(said), answer.text


MODULES = chunk(
    "docs/modules.md",
    "# Modules\n\n| Credits | Module | Semester | Places |\n|---|---|---|---|\n"
    "| 20 | Distributed Systems | Spring | 60 |\n| 15 | Computer Vision | Autumn | 40 |\n",
)
LIMITS = chunk(
    "docs/limits.md",
    "# Rate limits by endpoint\n\n"
    "| endpoint | requests_per_minute | burst_limit | daily_quota |\n|---|---|---|---|\n"
    "| /v1/webhooks | 30 | 5 | 10,000 |\n| /v1/reports | 10 | 2 | 1,000 |\n",
)
DELIVERY_ZONES = chunk(
    "docs/zones.md",
    "# Delivery zones\n\n| Zone | Express delivery | Express price |\n|---|---|---|\n"
    "| Zone 3 | 3 working days | £29.00 |\n| Zone 4 | 5 working days | £39.00 |\n",
)


@pytest.mark.parametrize(
    ("question", "hit", "said"),
    [
        # the cell that names the row, where the label column does not
        (
            "Which semester is Distributed Systems in?",
            MODULES,
            "Credits: 20; Module: Distributed Systems; Semester: Spring [1].",
        ),
        # "limit" is what the whole table is of (its heading): no one column
        (
            "What is the rate limit for /v1/reports?",
            LIMITS,
            "endpoint: /v1/reports; requests_per_minute: 10; burst_limit: 2; daily_quota: 1,000",
        ),
        # a sum the question gives asks the price, though no "how much" does
        (
            "Is express delivery to Zone 3 under £30?",
            DELIVERY_ZONES,
            "Zone: Zone 3; Express delivery: 3 working days; Express price: £29.00",
        ),
        # a question about the row whole
        (
            "Tell me about the Computer Vision module, how many places?",
            MODULES,
            "Credits: 15; Module: Computer Vision; Semester: Autumn; Places: 40",
        ),
    ],
)
def test_a_row_keeps_what_names_it_and_what_a_question_of_it_asks(
    generator: ExtractiveGenerator, question: str, hit: Chunk, said: str
) -> None:
    """Where a row is said with the columns the question names, the row is
    still told by what names it, a word of the table's headings names no one
    column, and a question about the whole row, or giving a sum, keeps the rest."""
    answer = generator.generate(question, hits_of(hit))
    assert answer.text.startswith(said), answer.text


def test_a_row_prices_what_it_is_asked_the_cost_of(generator: ExtractiveGenerator) -> None:
    """A row of rates is what a thing costs, though no word of it says "cost";
    of its columns of seasons, the one of the month asked; and a row that
    prices days prices no hour."""
    rooms = chunk(
        "docs/rooms.md",
        "# Seaview Hotel\n\n| Room type | Weekday rate | Weekend rate |\n|---|---|---|\n"
        "| Single | £79 | £95 |\n| Double | £119 | £145 |\n",
    )
    answer = generator.generate("How much does the Double cost?", hits_of(rooms))
    assert answer.text == "Room type: Double; Weekday rate: £119; Weekend rate: £145 [1]."
    weddings = chunk(
        "docs/weddings.md",
        "# Wedding packages\n\n"
        "| Day | Peak season (May – September) | Off-peak (October – April) |\n|---|---|---|\n"
        "| Saturday | £9,800 | £6,200 |\n| Friday or Sunday | £7,600 | £4,900 |\n",
    )
    answer = generator.generate("What would a Friday wedding in November cost?", hits_of(weddings))
    assert answer.text == "Day: Friday or Sunday; Off-peak (October – April): £4,900 [1]."
    boats = chunk(
        "docs/boats.md",
        "# Boat hire\n\n| Boat | Half day | Full day |\n|---|---|---|\n"
        "| Single kayak | £20 | £35 |\n| Canoe | £30 | £50 |\n",
    )
    assert_not_found(
        generator.generate("How much does it cost to hire a kayak for an hour?", hits_of(boats))
    )
    answer = generator.generate("How much is a single kayak for a full day?", hits_of(boats))
    assert answer.text == "Boat: Single kayak; Full day: £35 [1].", answer.text
    # a row of another thing ("Comb binding" to "spiral binding") prices none
    binding = chunk(
        "docs/print.md",
        "# Print shop\n\n| Service | Charge |\n|---|---|\n| Comb binding | £3.50 |\n",
    )
    assert_not_found(generator.generate("How much does spiral binding cost?", hits_of(binding)))
    # an age, a time, or a column of hours that prices none, is no period asked
    for question in ("How much is a lesson for my 12-year-old?", "Lesson prices this year?"):
        assert not prices_another_period(("Lesson", "Per hour"), "| Private | £22 |", question)
    assert prices_another_period(("Lesson", "Per hour"), "| Private | £22 |", "for a week?")
    assert not prices_another_period(  # "Opening hours" prices no hour
        ("Exhibition", "Opening hours", "Adult"),
        "| Dinosaurs Alive | 10:00–17:00 | £12 |",
        "for the day?",
    )
    # a month said by a column's span of months
    hire = chunk("docs/hire.md", weddings.text.replace("# Wedding packages", "# Venue hire"))
    answer = generator.generate("How much is a Saturday wedding in June?", hits_of(hire))
    assert answer.text == "Day: Saturday; Peak season (May – September): £9,800 [1].", answer.text
    # a span of months asked is each month of it
    answer = generator.generate(
        "What does a Saturday wedding cost from October to April?", hits_of(weddings)
    )
    assert answer.text == "Day: Saturday; Off-peak (October – April): £6,200 [1].", answer.text


def test_a_sum_said_instead_for_the_case_asked_replaces_the_rule(
    generator: ExtractiveGenerator,
) -> None:
    """ "How much is the fee if I miss my hygiene appointment?" was answered
    with the general £25 and the hygiene £15 "instead" beside it: the case
    the question names has its own sum, and the rule it replaces is no answer.
    A question of no such case gets the rule."""
    fees = chunk(
        "docs/fees.md",
        "# Missed appointments\n\n"
        "Appointments cancelled with less than 24 hours' notice, or missed without notice, "
        "are charged a fee of £25. Hygiene appointments cancelled late are charged £15 "
        "instead.\n",
    )
    answer = generator.generate(
        "How much is the fee if I miss my hygiene appointment?", hits_of(fees)
    )
    assert answer.text == "Hygiene appointments cancelled late are charged £15 instead [1]."
    answer = generator.generate("How much is the fee if I miss my appointment?", hits_of(fees))
    assert "£25" in answer.text, answer.text
    # a sum said instead for a case the question does not name: with its rule
    fares = chunk(
        "docs/fares.md",
        "# Penalty fares\n\nPassengers travelling without a valid ticket are charged a penalty "
        "fare of £20. If you pay within 14 days, you are charged £10 instead.\n",
    )
    answer = generator.generate("How much is the penalty fare?", hits_of(fares))
    assert answer.text.startswith(
        "Passengers travelling without a valid ticket are charged a penalty fare of £20 [1]."
    ), answer.text
    # a thing used instead is no sum in place of another
    assert _INSTEAD.search("they use Comfort+ instead, which lasts 3 hours") is None
    assert _INSTEAD.search("a fixed £46 per metre instead") is not None


def test_a_tenth_reviews_rows_of_seasons_periods_and_supplements(
    generator: ExtractiveGenerator,
) -> None:
    """A span of months across seasons keeps both ("from May to October" is
    not the one whose column names October); a "4 weeks" ticket is a month's;
    a row of hourly prices prices no month; and a sum added to a price ("+£60
    per day") answers no "how much is", only "how much extra"."""
    pitches = chunk(
        "docs/pitches.md",
        "# Pitch hire\n\n| Pitch | Summer (April – September) | Winter (October – March) |\n"
        "|---|---|---|\n| Tennis court | £9 per hour | £7 per hour |\n",
    )
    for question in (
        "How much is a tennis court from May to October?",
        "How much is a tennis court between May and October?",
    ):
        answer = generator.generate(question, hits_of(pitches))
        assert "£9 per hour" in answer.text and "£7 per hour" in answer.text, answer.text
    answer = generator.generate("How much is a tennis court in November?", hits_of(pitches))
    assert "£7 per hour" in answer.text and "£9" not in answer.text, answer.text
    assert_not_found(generator.generate("How much is a tennis court per month?", hits_of(pitches)))
    passes = chunk(
        "docs/passes.md",
        "# Bus passes\n\n| Ticket | Week | 4 weeks |\n|---|---|---|\n| Adult | £16.00 | £55.00 |\n",
    )
    answer = generator.generate("How much is a monthly adult bus pass?", hits_of(passes))
    assert "£55.00" in answer.text, answer.text
    extras = chunk(
        "docs/coaches.md",
        "# Seasonal supplements\n\n| Vehicle | Peak (May – September) |\n|---|---|\n"
        "| Standard coach | +£60 per day |\n",
    )
    hire = chunk(
        "docs/hire.md",
        "# Coach hire\n\n| Vehicle | Full day |\n|---|---|\n| Standard coach | £590 |\n",
    )
    answer = generator.generate("How much is a standard coach?", hits_of(extras, hire))
    assert "£590" in answer.text and "+£60" not in answer.text, answer.text
    answer = generator.generate(
        "How much extra is a standard coach in the peak season?", hits_of(extras, hire)
    )
    assert "+£60 per day" in answer.text, answer.text
    # a role "of" the page's own name: its title says it, the row need not
    team = replace(
        chunk(
            "docs/tarnside-buses/team.md",
            "| Role | Name |\n|---|---|\n| Managing Director | Fiona Kerr |\n",
        ),
        metadata={"source": "docs/tarnside-buses/team.md", "title": "Tarnside Buses: our team"},
    )
    about = chunk("docs/tarnside-buses/about.md", "Tarnside Buses runs 40 routes.\n")
    answer = generator.generate(
        "Who is the managing director of Tarnside Buses?", hits_of(team, about)
    )
    assert "Fiona Kerr" in answer.text, answer.text


def test_a_sentence_is_said_with_what_its_pronoun_leans_on_not_what_is_between(
    generator: ExtractiveGenerator,
) -> None:
    """ "On Fridays it closes at 1pm" leans on "The HR office is ...", through
    "It is open 8:30am to 4:30pm, Monday to Thursday", whose hours answer no
    question of Fridays: it is left out, unless it says what is asked."""
    office = chunk(
        "docs/hr.md",
        "# HR\n\nThe HR office is on the 2nd floor of the Kelvin Building. It is open 8:30am "
        "to 4:30pm, Monday to Thursday. On Fridays it closes at 1pm.\n",
    )
    answer = generator.generate("What time does the HR office close on a Friday?", hits_of(office))
    assert answer.text == (
        "The HR office is on the 2nd floor of the Kelvin Building. On Fridays it closes at 1pm [1]."
    ), answer.text
    library = chunk(
        "docs/library.md",
        "# Library\n\nThe library is open 9am to 5pm Monday to Friday. On Saturdays it opens "
        "10am to 4pm. It is closed on Sundays and bank holidays.\n",
    )
    answer = generator.generate("What time does the library open on Saturday?", hits_of(library))
    assert "On Saturdays it opens 10am to 4pm" in answer.text, answer.text


def test_an_eleventh_reviews_conditions_added_sums_and_acronyms(
    generator: ExtractiveGenerator,
) -> None:
    """A sentence between that the answer leans on ("otherwise") or that
    bounds it stays; a row that prices with a sum added beside its price, or
    by the added sum alone, still answers; an acronym the passages know only
    written out in a heading ("User Settings" for "US") answers nothing; and
    a role of another named body is no role of the page's own."""
    hygiene = chunk(
        "docs/hygiene.md",
        "# Hygienist\n\nThe hygienist sees patients on Tuesdays. It is free for children under "
        "18. It costs £65 otherwise.\n",
    )
    answer = generator.generate("How much does the hygienist cost?", hits_of(hygiene))
    assert "It is free for children under 18" in answer.text, answer.text
    fees = chunk(
        "docs/fees.md",
        "# Fees\n\n| Treatment | Price | Extras |\n|---|---|---|\n"
        "| White filling | £120 | +£30 per extra surface |\n| Crown | £650 | |\n",
    )
    answer = generator.generate("How much is a white filling?", hits_of(fees))
    assert "£120" in answer.text, answer.text
    extras = chunk(
        "docs/extras.md",
        "# Extras\n\n| Extra | Price |\n|---|---|\n| Roof box | +£10 |\n| Bike rack | +£8 |\n",
    )
    answer = generator.generate("How much is a roof box?", hits_of(extras))
    assert "+£10" in answer.text, answer.text
    settings = chunk(
        "docs/settings.md",
        "# Quire\n\n### User Settings\n\nRefunds are available within 30 days of purchase.\n",
    )
    assert_not_found(generator.generate("Is Quire available in the US?", hits_of(settings)))
    ferries = replace(
        chunk(
            "docs/isle-link/people.md",
            "# People\n\nThe managing director of Harbour Group is Ken Ross.\n",
        ),
        metadata={"source": "docs/isle-link/people.md", "title": "Isle Link Ferries: people"},
    )
    about = chunk("docs/isle-link/about.md", "Isle Link Ferries sails to four islands.\n")
    assert_not_found(
        generator.generate(
            "Who is the managing director of Isle Link Ferries?", hits_of(ferries, about)
        )
    )


def test_who_holds_a_role_is_said_by_what_names_the_role(
    generator: ExtractiveGenerator,
) -> None:
    """ "Who is the boatyard manager?" was answered with the marina manager's
    name beside a sentence about the boatyard: the holder of a role is said by
    a sentence (or a row, or what its heading says) that names the role whole."""
    marina = chunk(
        "docs/marina.md",
        "# Pellow Quay Marina\n\n"
        "The boatyard operates a 50-tonne travel hoist. It works Monday to Friday.\n\n"
        "Complaints should go to the Marina Manager, Ruth Pascoe, at manager@pellowquay.co.uk.\n",
    )
    assert_not_found(generator.generate("Who is the boatyard manager?", hits_of(marina)))
    assert generator.generate("Who is the marina manager?", hits_of(marina)).text.startswith(
        "Complaints should go to the Marina Manager, Ruth Pascoe"
    )
    staff = chunk(
        "docs/staff.md",
        "# Staff\n\n## Boatyard\n\n- Manager: Tom Hale\n- Deputy: Ann Pike\n",
    )
    answer = generator.generate("Who is the boatyard manager?", hits_of(marina, staff))
    assert "Tom Hale" in answer.text and "Ruth Pascoe" not in answer.text, answer.text
    assert_not_found(generator.generate("Who is the manager of the boatyard?", hits_of(marina)))
    # the role said by what its holder does, or with its heading
    crew = chunk(
        "docs/crew.md",
        "# Macbeth\n\nLighting design is by Ruth Obi. The project is led by Dana Whitcombe.\n\n"
        "### Head of music\n\nTariq Aziz teaches piano and leads the school choir.\n",
    )
    for question, name in [
        ("Who is the lighting designer?", "Ruth Obi"),
        ("Who is the project lead?", "Dana Whitcombe"),
        ("Who is the head of music?", "Tariq Aziz"),
    ]:
        assert name in generator.generate(question, hits_of(crew)).text, question
    # not a role pieced together from a heading and a sentence
    assert_not_found(generator.generate("Who is the head of the school?", hits_of(crew)))
    # an acronym written out ("CEO": "Chief Executive Officer")
    leaders = chunk(
        "docs/about.md",
        "# About Quillpad\n\n## Leadership\n\n- **Ruth Okonjo** — Chief Executive Officer\n"
        "- **Daniel Voss** — Chief Technology Officer\n",
    )
    for question, name in [("Who is the CEO?", "Ruth Okonjo"), ("Who's the CTO?", "Daniel Voss")]:
        answer = generator.generate(question, hits_of(leaders))
        assert answer.text.startswith(f"**{name}**"), answer.text
    assert_not_found(generator.generate("Who is the CFO?", hits_of(leaders)))
    venue = chunk(
        "docs/contact.md",
        "# Contact\n\nGeneral enquiries: info@lanternhall.co.uk or 0117 496 0300.\n",
    )
    assert_not_found(
        generator.generate("Who is the general manager of The Lantern Hall?", hits_of(venue))
    )


def test_a_row_asked_in_two_parts_is_said_once(generator: ExtractiveGenerator) -> None:
    """A part that asks one column of a row the other part got whole ("how
    many does it sleep?") does not say the row again."""
    pitches = chunk(
        "docs/pitches.md",
        "# Pitches\n\n| Pitch | Per night | Sleeps |\n|---|---|---|\n"
        "| Tent pitch | £22 | 2 adults |\n| Lodge | £95 | 6 adults |\n",
    )
    answer = generator.generate(
        "How much is a tent pitch and how many does it sleep?", hits_of(pitches)
    )
    assert answer.text == "Pitch: Tent pitch; Per night: £22; Sleeps: 2 adults [1].", answer.text
    answer = generator.generate(
        "How many places are on Computer Vision and when is it taught?", hits_of(MODULES)
    )
    assert answer.text.startswith(
        "Credits: 15; Module: Computer Vision; Semester: Autumn; Places: 40 [1]."
    ), answer.text


def test_a_line_under_a_year_heading_is_read_under_the_page_title_too(
    generator: ExtractiveGenerator,
) -> None:
    """ "## 2025 rates" under "# Per-diem": "Austin: USD 64 per day." is the
    per-diem of 2025, said with its heading; 2026's is no answer for 2025."""
    rates = chunk(
        "docs/rates.md",
        "# Per-diem\n\n## 2025 rates\nAustin: USD 64 per day. Berlin: EUR 28 per day.\n\n"
        "## 2026 rates\nAustin: USD 71 per day. Berlin: EUR 32 per day.\n",
    )
    answer = generator.generate("What is the per-diem in Austin in 2025?", hits_of(rates))
    assert answer.text == "2025 rates: Austin: USD 64 per day [1]."
    answer = generator.generate("What is the 2026 per-diem for Berlin?", hits_of(rates))
    assert answer.text == "2026 rates: Berlin: EUR 32 per day [1]."
    assert_not_found(generator.generate("What is the per-diem in Austin in 2027?", hits_of(rates)))


OFFICE = chunk(
    "docs/berlin.md",
    "# Berlin office\n\nThe Berlin office is located at Torstrasse 10. It provides 28 days "
    "of paid vacation per calendar year to full-time employees.\n",
)


def test_days_of_another_kind_are_no_answer_to_how_many(generator: ExtractiveGenerator) -> None:
    """ "how many sick days": 28 days of paid vacation are not sick days; the
    vacation days are an answer to "how many vacation (holiday) days"."""
    assert_not_found(generator.generate("How many sick days do employees get?", hits_of(OFFICE)))
    sick = chunk("docs/leave.md", "# Leave\n\nEmployees get 10 days of paid sick leave per year.\n")
    for question in (
        "How many vacation days do I get?",
        "How many days of annual leave do I get?",
        "How many parental leave days do I get?",
    ):
        assert_not_found(generator.generate(question, hits_of(sick)))
    answer = generator.generate("How many holiday days do Berlin employees get?", hits_of(OFFICE))
    assert "28 days of paid vacation" in answer.text


def test_another_kind_of_a_thing_no_passage_names_the_kind_of(
    generator: ExtractiveGenerator,
) -> None:
    """ "the wellness allowance", of which no passage speaks: "The home office
    equipment allowance is EUR 600" is another allowance, no answer."""
    remote = chunk(
        "docs/remote.md",
        "# Remote work\n\nThe home office equipment allowance is EUR 600, paid once.\n",
    )
    assert_not_found(generator.generate("How much is the wellness allowance?", hits_of(remote)))
    answer = generator.generate("How much is the home office allowance?", hits_of(remote))
    assert "EUR 600" in answer.text


def _policy(year: int, text: str, *, deprecated: bool) -> Chunk:
    c = chunk(f"docs/travel-{year}.md", f"# Travel Policy {year}\n\n{text}\n")
    metadata = {**c.metadata, "title": f"Travel Policy {year}"}
    if deprecated:
        metadata["deprecated"] = True
    return replace(c, metadata=metadata)


def test_a_current_page_answers_before_a_deprecated_one(generator: ExtractiveGenerator) -> None:
    """The superseded policy ranked first is not quoted where the current one
    answers; a question about the old policy ("previous", or a year only
    its title names) gets the old one."""
    old = _policy(2024, "The hotel limit is EUR 150 per night.", deprecated=True)
    new = _policy(2026, "The hotel limit is EUR 180 per night.", deprecated=False)
    hits = hits_of(old, new)
    assert "EUR 180" in generator.generate("What is the hotel limit?", hits).text
    for question in (
        "What was the hotel limit in the previous travel policy?",
        "What was the hotel limit in the 2024 travel policy?",
    ):
        assert "EUR 150" in generator.generate(question, hits).text, question
    # alone, the deprecated page still answers, and says it is one
    alone = generator.generate("What is the hotel limit?", hits_of(old))
    assert alone.text == f"{FROM_DEPRECATED} The hotel limit is EUR 150 per night [1]."
    assert alone.metadata["deprecated"] is True
    # (not where the question asks about it)
    asked = generator.generate("What was the hotel limit in the 2024 travel policy?", hits_of(old))
    assert asked.text == "Travel Policy 2024: The hotel limit is EUR 150 per night [1]."


def test_a_sum_in_the_question_names_no_thing_and_up_to_is_not_above(
    generator: ExtractiveGenerator,
) -> None:
    """ "EUR 2,000" is a sum, not a name every answer must mention; a rule for
    sums "up to" it is no answer for those "above" it."""
    limits = chunk(
        "docs/expenses.md",
        "# Expense policy\n\n## Approval limits\nExpenses up to EUR 2,000 are approved by your "
        "manager. Expenses above EUR 2,000 need approval from the CFO, Henrik Ståhl.\n",
    )
    answer = generator.generate("Who approves expenses above EUR 2,000?", hits_of(limits))
    assert answer.text == "Expenses above EUR 2,000 need approval from the CFO, Henrik Ståhl [1]."


def test_opening_hours_are_said_by_a_span_of_clock_times(generator: ExtractiveGenerator) -> None:
    """ "the office hours": "open from 09:00 to 18:00" says them, the address does not."""
    answer = generator.generate(
        "What are the office hours of the Berlin office?",
        hits_of(chunk("docs/berlin.md", "# Berlin office\n\n" + BERLIN_HOURS)),
    )
    assert "09:00 to 18:00" in answer.text


BERLIN_HOURS = (
    "The Berlin office is located at Torstrasse 10. It is open from 09:00 to 18:00 on working "
    "days.\n"
)


def test_a_sentence_that_says_the_same_of_another_leans_on_the_one_before(
    generator: ExtractiveGenerator,
) -> None:
    """ "Contractors are not eligible either." is quoted with what they are not
    eligible for."""
    benefits = chunk(
        "docs/benefits.md",
        "# Benefits\n\nInterns are not eligible for stock options. Contractors are not "
        "eligible either.\n",
    )
    answer = generator.generate("Are contractors eligible for stock options?", hits_of(benefits))
    assert answer.text == (
        "Interns are not eligible for stock options. Contractors are not eligible either [1]."
    )


def test_the_same_rule_in_two_documents_told_apart_by_their_front_matter(
    generator: ExtractiveGenerator,
) -> None:
    """Two offices' pages say the same sentence with other figures, the office
    in their front matter only: an unqualified question gets both, each with
    its office; two pages that only disagree, nothing to tell them apart,
    the better ranked one."""

    def leave(office: str, weeks: int) -> Chunk:
        c = chunk(
            f"docs/{office.lower()}-leave.md",
            f"# Parental leave\n\nEmployees receive {weeks} weeks of fully paid parental leave.\n",
        )
        return replace(c, metadata={**c.metadata, "title": "Parental leave", "office": office})

    hits = hits_of(leave("Austin", 16), leave("Berlin", 14))
    answer = generator.generate("How many weeks of parental leave do I get?", hits)
    assert answer.text == (
        "Austin (office): Employees receive 16 weeks of fully paid parental leave [1]. "
        "Berlin (office): Employees receive 14 weeks of fully paid parental leave [2]."
    )
    assert [c.quote for c in answer.citations] == [
        "Employees receive 16 weeks of fully paid parental leave.",
        "Employees receive 14 weeks of fully paid parental leave.",
    ]


def test_a_word_like_old_or_archived_of_no_document_keeps_the_current_page(
    generator: ExtractiveGenerator,
) -> None:
    """ "an archived project", "which flag is deprecated", "the previous year":
    what the question is about, not which page; the current page answers
    (a deprecated one ranked second is left)."""

    def page(source: str, text: str, *, old: bool) -> Chunk:
        c = chunk(source, text)
        return replace(c, metadata={**c.metadata, **({"deprecated": True} if old else {})})

    projects = page(
        "projects.md",
        "# Projects\n\nTo restore an archived project, open Settings and click Restore.\n",
        old=False,
    )
    projects_v1 = page(
        "projects-v1.md", "# Projects\n\nTo restore an archived project, email support.\n", old=True
    )
    answer = generator.generate(
        "How do I restore an archived project?", hits_of(projects, projects_v1)
    )
    assert "click Restore" in answer.text
    changelog = page(
        "changelog.md",
        "# Changelog\n\nThe `--fast` flag is deprecated; use `--turbo`.\n",
        old=False,
    )
    cli_v2 = page(
        "cli-v2.md", "# CLI\n\nThe `--quick` flag is deprecated; use `--fast`.\n", old=True
    )
    answer = generator.generate("Which flag is deprecated?", hits_of(changelog, cli_v2))
    assert "--turbo" in answer.text
    leave = page(
        "leave.md",
        "# Leave\n\nUp to 10 unused vacation days may be carried over from the previous year.\n",
        old=False,
    )
    leave_old = page(
        "leave-2024.md",
        "# Leave\n\nUp to 5 unused vacation days may be carried over from the previous year.\n",
        old=True,
    )
    question = "How many vacation days can I carry over from the previous year?"
    assert "Up to 10" in generator.generate(question, hits_of(leave_old, leave)).text


def test_a_range_of_no_clock_times_says_no_hours_and_either_alone_leans_on_nothing(
    generator: ExtractiveGenerator,
) -> None:
    """ "2 to 10 users" is no opening hours; "invoices are issued in either"
    is a sentence of its own (only a negative "... either." says the same
    as the one before)."""
    team = chunk(
        "docs/team.md",
        "# Team\n\nThe Team plan is for 2 to 10 users. The office is at Main St 4.\n",
    )
    answer = generator.generate("What are the office hours?", hits_of(team))
    assert "2 to 10 users" not in answer.text
    payments = chunk(
        "docs/pay.md",
        "# Payments\n\nAmerican Express is not accepted. You can pay in EUR or USD; invoices "
        "are issued in either.\n",
    )
    answer = generator.generate("In which currency are invoices issued?", hits_of(payments))
    assert "American Express" not in answer.text and "issued in either" in answer.text


OFFICE_RULES = chunk(
    "docs/hr/benefits.md",
    "# Benefits\n\n"
    "In Lisbon, health insurance is provided by Medis and covers the employee and their "
    "children.\n\n"
    "In Toronto, health insurance is provided by Sun Life and covers the employee and their "
    "spouse.\n\n"
    "In Singapore, health insurance is provided by AIA and covers the employee only.\n\n"
    "## Annual leave\n\n"
    "In Lisbon, employees get 25 days of annual leave.\n"
    "In Toronto, employees get 15 days of annual leave.\n"
    "Annual leave must be requested at least 10 working days in advance.\n"
    "Contractors do not receive paid annual leave.\n\n"
    "## Sick leave\n\n"
    "In Lisbon, employees get 30 days of paid sick leave per year.\n"
    "Contractors are not entitled to paid sick leave.\n\n"
    "## Wellness\n\n"
    "The wellness allowance is CAD 500 per year.\n",
)


@pytest.mark.parametrize(
    ("question", "rival"),
    [
        ("Does the Singapore health insurance cover my spouse?", "Toronto"),
        ("Does the Toronto health insurance cover my children?", "Lisbon"),
    ],
)
def test_a_sentence_opening_on_another_office_is_no_answer_for_the_one_asked(
    generator: ExtractiveGenerator, question: str, rival: str
) -> None:
    """Rules written one sentence per office ("In Toronto, ...", "In
    Singapore, ..."): a yes/no question about Singapore's insurance got
    Toronto's sentence, which has the word asked ("spouse"), as its answer."""
    answer = generator.generate(question, hits_of(OFFICE_RULES))
    assert rival not in answer.text, answer.text


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How many days of annual leave do contractors get?", "Contractors do not receive"),
        ("How many days of sick leave do contractors get?", "Contractors are not entitled"),
    ],
)
def test_what_a_group_gets_is_not_answered_with_another_groups_figure(
    generator: ExtractiveGenerator, question: str, said: str
) -> None:
    """ "How many days of annual leave do contractors get?" was answered with
    the employees' 25 days, where the page says contractors get none."""
    answer = generator.generate(question, hits_of(OFFICE_RULES))
    assert answer.text.startswith(said), answer.text
    assert "25 days" not in answer.text and "30 days" not in answer.text


@pytest.mark.parametrize(
    "question",
    [
        "How much wellness allowance do contractors get?",
        "What is the learning budget for team leads?",
    ],
)
def test_a_rule_for_no_group_is_no_answer_for_a_group_the_question_names(
    generator: ExtractiveGenerator, question: str
) -> None:
    """A handbook's "The wellness allowance is CAD 500 per year" speaks to its
    employees; nothing says what contractors get, and nothing about team
    leads' learning budget is in a row that names team leads' approval limit."""
    limits = chunk(
        "approval-limits.csv",
        "| role | approval_limit_eur |\n| --- | --- |\n| Junior employee | 500 |\n"
        "| Team lead | 5000 |\n",
    )
    budget = chunk(
        "learning.md",
        "# Learning budget\n\nUnused learning budget does not carry over to the next year.\n",
    )
    answer = generator.generate(question, hits_of(OFFICE_RULES, limits, budget))
    # (what the page says of the learning budget for everyone may be said)
    for figure in ("CAD 500", "5000", "25 days", "30 days"):
        assert figure not in answer.text, answer.text
    if "wellness" in question:
        assert_not_found(answer)


def test_a_group_question_about_staff_reads_the_employees_sentences(
    generator: ExtractiveGenerator,
) -> None:
    answer = generator.generate("How much annual leave do Lisbon staff get?", hits_of(OFFICE_RULES))
    assert answer.text.startswith("In Lisbon, employees get 25 days of annual leave [1]")


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How much vacation do I get in Toronto?", "15 days of annual leave"),
        ("How many PTO days do Toronto employees get?", "15 days of annual leave"),
        ("Do I need a doctor's note for one day off sick?", "medical certificate"),
    ],
)
def test_a_questions_word_the_passages_never_write_is_read_as_theirs(
    generator: ExtractiveGenerator, question: str, said: str
) -> None:
    it = chunk(
        "it.md",
        "A medical certificate is required from the third consecutive day of sick leave.\n\n"
        "Request a notebook in the Self Service portal under Hardware.\n",
    )
    answer = generator.generate(question, hits_of(OFFICE_RULES, it))
    assert said in answer.text, answer.text


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Can I get express delivery to my PO box?", "cannot be delivered to PO boxes"),
        ("Do you price match?", "we do not match competitors' prices"),
        ("How much does the TT-28-CI weigh?", "2.9 kg"),
        ("What size skillet do I need for four people?", "A 28 cm skillet cooks for 3 to 4 people"),
        ("Can my household get three permits?", "A maximum of two permits"),
    ],
)
def test_an_answer_in_other_forms_of_the_questions_words(
    generator: ExtractiveGenerator, question: str, said: str
) -> None:
    """The trial's refusals with the answer at rank 1: "delivery" is what
    "delivered" does, "weigh" what a "Weight" says, "four" is 4, a yes/no
    question's verb denied answers it ("do not match"), and a count in a
    yes/no question is answered by the sentence that counts it."""
    shop = chunk(
        "shop.md",
        "Express shipping cannot be delivered to PO boxes. Standard shipping can.\n\n"
        "No, we do not match competitors' prices.\n\n"
        "Cast Iron Skillet 28 cm (TT-28-CI)\n\n- Weight: 2.9 kg (6.4 lb)\n\n"
        "Choosing a skillet size\n"
        "A 24 cm skillet cooks for 1 to 2 people. A 28 cm skillet cooks for 3 to 4 people.\n\n"
        "Visitor permits cannot be used for vehicles of the same household. "
        "A maximum of two permits is issued per household.\n",
    )
    answer = generator.generate(question, hits_of(shop))
    assert said in answer.text, answer.text


CAST_IRON = chunk(
    "docs/care/cast-iron-care.md",
    "# Caring for cast iron\n\n"
    "## Everyday cleaning\n\n"
    "1. Let the pan cool until you can touch the handle.\n"
    "2. Rinse with hot water and scrub with the chain-mail scrubber. A drop of mild soap is fine.\n"
    "3. Dry the pan completely on the stove over low heat for 2 minutes.\n\n"
    "## Do not\n\n"
    "- Do not put cast iron in the dishwasher.\n"
    "- Do not soak cast iron in water.\n\n"
    "## Seasoning in the oven\n\n"
    "1. Heat the oven to 230 °C.\n"
    "2. Bake the pan upside down for an hour.\n",
)


def test_a_how_to_question_gets_the_numbered_steps_under_its_heading(
    generator: ExtractiveGenerator,
) -> None:
    """ "How do I clean cast iron?" got "Do not put cast iron in the
    dishwasher" (the bullet with most of its words), and "How do I start a
    return?" the second of five steps: the procedure is the answer, in order,
    each step with its number and the sentences on its line."""
    answer = generator.generate("How do I clean cast iron?", hits_of(CAST_IRON))
    assert answer.text == (
        "1. Let the pan cool until you can touch the handle [1]. "
        "2. Rinse with hot water and scrub with the chain-mail scrubber [1]. "
        "A drop of mild soap is fine [1]. "
        "3. Dry the pan completely on the stove over low heat for 2 minutes [1]."
    )
    assert all(piece in CAST_IRON.text for piece in answer.citations[0].quote.split(" \u2026 "))
    oven = generator.generate("How do I season cast iron in the oven?", hits_of(CAST_IRON))
    assert oven.text.startswith("1. Heat the oven to 230 °C [1]. 2. Bake"), oven.text


def test_a_list_is_no_procedure_where_its_heading_is_about_another_thing_or_too_long(
    generator: ExtractiveGenerator,
) -> None:
    steps = "".join(f"{n}. Step {n} of the export.\n" for n in range(1, 15))
    long = chunk("export.md", f"# Exporting your notes\n\n{steps}")
    answer = generator.generate("How do I export my notes?", hits_of(long))
    assert "1. Step 1" not in answer.text  # cut at 12 of 14, a procedure would mislead
    other = chunk(
        "vpn.md",
        "# Troubleshooting the printer\n\n1. Turn the printer off.\n2. Turn it on again.\n\n"
        "Reset your VPN password in the Self Service portal.\n",
    )
    answer = generator.generate("How do I reset my VPN password?", hits_of(other))
    assert answer.text == "Reset your VPN password in the Self Service portal [1]."


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("When are self-assessments due?", "due on 14 November 2025"),
        ("When is a receipt required?", "A receipt is required for every expense over EUR 25"),
        ("Can I use my personal phone for work email?", "Yes, if the phone is enrolled"),
        ("How long must a password be?", "at least 14 characters"),
    ],
)
def test_what_a_question_asks_is_read_from_its_own_words(
    generator: ExtractiveGenerator, question: str, said: str
) -> None:
    """A question's first word is no name because a table writes it as a
    column ("| What | When |"), "work email" asks no email address, and "how
    long must a password be?" asks a length, not a time ("A password reset
    takes about 5 minutes")."""
    deadlines = chunk(
        "deadlines.md",
        "# Deadlines\n\n| What | When |\n|---|---|\n| Payroll cut-off | 20th |\n\n"
        "Self-assessments are due on 14 November 2025.\n\n"
        "A receipt is required for every expense over EUR 25.\n",
    )
    it = chunk(
        "it-faq.md",
        "## Can I use my personal phone for work email?\n\n"
        "Yes, if the phone is enrolled in Intune.\n\n"
        "## Passwords\n\nA password reset takes about 5 minutes. "
        "Passwords must be at least 14 characters long.\n",
    )
    answer = generator.generate(question, hits_of(deadlines, it))
    assert said in answer.text, answer.text


def test_a_pages_front_matter_says_what_its_sentences_are_of(
    generator: ExtractiveGenerator,
) -> None:
    """Per-office pages say `office: Lisbon` in their front matter and
    "Free parking is available in the building garage." under "## Parking":
    "Is there parking at the Lisbon office?" was refused (no sentence said
    "office"), where the page is the Lisbon office's."""

    def page(office: str, parking: str) -> Chunk:
        text = f"## Parking\n\n{parking}\n"
        return replace(
            chunk(f"docs/offices/{office.lower()}.md", text),
            metadata={
                "source": f"docs/offices/{office.lower()}.md",
                "title": f"{office} office benefits",
                "office": office,
                "section": "Benefits at this office > Parking",
            },
        )

    lisbon = page("Lisbon", "Free parking is available in the building garage.")
    toronto = page("Toronto", "Parking costs CAD 12 per day at the Front Street garage.")
    answer = generator.generate("Is there parking at the Lisbon office?", hits_of(toronto, lisbon))
    assert answer.text == "Free parking is available in the building garage [1]."
    assert answer.citations[0].source == "docs/offices/lisbon.md"


APPROVALS = chunk(
    "docs/finance/approval-limits.md",
    "# Approval limits\n\n"
    "Senior employees can approve expenses up to EUR 2,000.\n"
    "Directors can approve expenses up to EUR 25,000.\n"
    "Any expense above EUR 25,000 needs approval from the CFO.\n\n"
    "# Performance reviews\n\n"
    "Ratings are on a 4-point scale: Below, Meets, Exceeds, Outstanding.\n"
    "Employees rated Outstanding receive a bonus of 15% of their base salary.\n",
)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Who approves an expense of EUR 30,000?", "Any expense above EUR 25,000"),
        ("Who can approve an expense of EUR 1,500?", "Senior employees can approve"),
        ("Can a director approve EUR 30,000?", "Directors can approve expenses up to EUR 25,000"),
    ],
)
def test_a_bound_that_leaves_out_the_sum_asked_is_no_answer(
    generator: ExtractiveGenerator, question: str, said: str
) -> None:
    """ "Who approves an expense of EUR 30,000?" got "Senior employees can
    approve expenses up to EUR 2,000"; a yes/no question is answered by the
    bound that says no."""
    answer = generator.generate(question, hits_of(APPROVALS))
    assert answer.text.startswith(said), answer.text


def test_what_is_the_x_for_y_is_answered_by_a_sentence_that_says_x(
    generator: ExtractiveGenerator,
) -> None:
    """ "What is the bonus for an Exceeds rating?" got the rating scale (it
    names Exceeds, and no bonus) and Outstanding's bonus (a rival in a list
    after a colon, with no "and")."""
    assert_not_found(
        generator.generate("What is the bonus for an Exceeds rating?", hits_of(APPROVALS))
    )
    answer = generator.generate("What is the bonus for an Outstanding rating?", hits_of(APPROVALS))
    assert answer.text == (
        "Employees rated Outstanding receive a bonus of 15% of their base salary [1]."
    )


# a review's cases: each rule of this answerer where it must not reach
REVIEWED = [
    (
        "How do I return an item?",
        "# Returns\n\nTo return an item, open your order and click Start a return. Print the "
        "label and drop the parcel at any post office.\n\n## Items we cannot return\n\n"
        "1. Perishable goods\n2. Gift cards\n3. Opened software\n",
        {},
        "To return an item, open your order and click Start a return [1].",
    ),
    (
        "How do I reset the router?",
        "# Router reset\n\nPress and hold the reset button on the back for 10 seconds until the "
        "light blinks.\n\n## If the reset does not work\n\n1. Check the power cable.\n"
        "2. Try another socket.\n3. Call support on 0800 123 456.\n",
        {},
        "Press and hold the reset button",
    ),
    (
        "How do I install the printer driver?",
        "# Installing the printer driver\n\nDownload the driver from printers.example.com and "
        "run the installer.\n\n## Before you install the driver\n\n1. Close all Office apps.\n"
        "2. Make sure you are on the VPN.\n",
        {},
        "Download the driver",
    ),
    (
        "How do I upgrade to version 2.0?",
        "# Upgrading to version 2.0\n\nVersion 2.0 brings these changes:\n\n"
        "1. The config file moved to ~/.app/config.toml.\n2. Python 3.8 is no longer supported.\n"
        "3. The --fast flag was removed.\n",
        {},
        "Version 2.0 brings these changes [1].",
    ),
    (
        "How do I reset my password?",
        "4. Enter the code from the email.\n5. Choose a new password and click Save.\n"
        "6. Sign in again on your other devices.\n",
        {"section": "Resetting your password"},
        "Choose a new password and click Save [1].",  # (steps 4 to 6 are no procedure)
    ),
    (
        "How do I set up two-factor authentication?",
        "# Setting up two-factor authentication\n\n1. Open Settings and choose Security.\n"
        "2. Choose a method:\n   - An authenticator app\n   - A text message\n"
        "3. Enter the six-digit code to confirm.\n4. Save your recovery codes somewhere safe.\n",
        {},
        "1. Open Settings and choose Security [1]. 2. Choose a method [1]. "
        "An authenticator app [1]. A text message [1]. 3. Enter",
    ),
    (
        "How long must receipts be retained?",
        "Receipts must be retained for 7 years. Expense claims over $75 need an itemised receipt.",
        {},
        "Receipts must be retained for 7 years [1].",
    ),
    (
        "How long must I be on probation?",
        "New employees are on probation for 6 months. During probation, the notice period is "
        "1 week.",
        {},
        "New employees are on probation for 6 months [1].",
    ),
    (
        "How much time off do I get for my wedding?",
        "Full-time employees get 25 days of annual leave per year.",
        {},
        NOT_FOUND,
    ),
    (
        "Is there bike storage?",
        "Desks are booked through the Deskly app. The kitchen is on level 2.",
        {"summary": "Desks, kitchen and bike storage at HQ"},
        NOT_FOUND,
    ),
    (
        "How many days of annual leave do managers get?",
        "Employees get 25 days of annual leave per year. Annual leave is booked in the HR portal.",
        {},
        "Employees get 25 days of annual leave per year [1].",
    ),
    (
        "How many days do team leads have to approve a leave request?",
        "Leave requests must be approved within 3 working days. Requests are made in Workday.",
        {},
        "Leave requests must be approved within 3 working days [1].",
    ),
    (
        "When does the Toronto garage close for repairs?",
        "# Toronto office\n\nIn Toronto, parking costs CAD 120 per month. In Lisbon, parking is "
        "free.\n\nIn January, the garage closes for repairs for two weeks.\n",
        {},
        "Toronto office: In January, the garage closes for repairs for two weeks [1].",
    ),
    (
        "Does billing have an email?",
        "Billing questions go to billing@acme.example. Invoices are sent on the 1st.",
        {},
        "Billing questions go to billing@acme.example [1].",
    ),
    (
        "When is the office closed?",
        "The office is open from 9 am to 6 pm on weekdays for all members and guests.\n"
        "Closed on Sundays\nOn Saturdays the office opens from 10 am to 2 pm for members only.\n",
        {},
        "Closed on Sundays",
    ),
]


@pytest.mark.parametrize(("question", "text", "metadata", "said"), REVIEWED)
def test_a_reviewed_case_is_answered_as_before_the_rules_that_it_escapes(
    generator: ExtractiveGenerator, question: str, text: str, metadata: dict, said: str
) -> None:
    """A numbered list under a heading that says its items are no steps
    ("Items we cannot return", "If the reset does not work", "these
    changes:"), or that starts past 1 (a chunk cut into it), is no procedure,
    nor one beside a sentence that says all that is asked; "how long must
    receipts be retained?" asks a time; "time off" is not read as annual
    leave; a free-text front matter field says nothing of each sentence; a
    manager gets what employees get; "In January, ..." names no rival place;
    "Does billing have an email?" asks an address; "Closed on Sundays" is no
    heading."""
    page = replace(chunk("doc.md", text), metadata={"source": "doc.md", **metadata})
    answer = generator.generate(question, hits_of(page))
    assert answer.text.startswith(said), answer.text


PARCELBIRD = (
    chunk(
        "docs/security.md",
        "# Security\n\n## Compliance\n\nParcelbird is SOC 2 Type II certified.\n\n"
        "## Encryption\n\nData is encrypted at rest with AES-256.\n\n"
        "## Audit logs\n\nAudit logs are available on the Scale plan and are kept for 1 year.\n",
    ),
    chunk(
        "docs/plans/growth.md",
        "# Growth plan\n\nThe Growth plan costs $99 per month.\n\n"
        "## Labels\n\nExtra labels on the Growth plan cost $0.05 each.\n\n"
        "## Limits\n\nLabel history is kept for 1 year on the Growth plan.\n",
    ),
    chunk("docs/index.md", "# Parcelbird documentation\n\nParcelbird prints shipping labels.\n"),
)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Is Parcelbird SOC 2 certified?", "Parcelbird is SOC 2 Type II certified [1]."),
        ("What encryption does Parcelbird use?", "Data is encrypted at rest with AES-256 [1]."),
        ("How long are audit logs kept on the Growth plan?", NOT_FOUND),
        ("How long is label history kept on the Growth plan?", "Label history is kept"),
        ("How much does the Growth plan cost per year?", NOT_FOUND),
    ],
)
def test_a_products_own_docs(generator: ExtractiveGenerator, question: str, said: str) -> None:
    """A second trial, on a product's documentation: "Parcelbird SOC 2" ran
    two names together and was known by none; the product every page is
    about need not be repeated by its security page's sentence (where none
    that names it answers); "How long are audit logs kept on the Growth
    plan?" got the Growth plan's label history; and its yearly price the
    price of extra labels on it."""
    answer = generator.generate(question, hits_of(*PARCELBIRD))
    assert answer.text.startswith(said), answer.text


PLANS_PAGES = (
    chunk(
        "docs/guides/connect-shopify.md",
        "# Connect a Shopify store\n\nThe Shopify integration is available on the Growth and "
        "Scale plans. The Shopify integration is not available on the Starter plan.\n",
    ),
    chunk(
        "docs/security.md",
        "# Security\n\n## Two-factor authentication\n\n"
        "Two-factor authentication is available on every plan.\n\n## EU data residency\n\n"
        "EU data residency is available on the Scale plan only.\n",
    ),
    chunk(
        "docs/plans/starter.md",
        "# Starter plan\n\nThe Starter plan costs $0 per month. The Growth plan and the "
        "Scale plan add integrations.\n",
    ),
)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "Is the Shopify integration available on the Starter plan?",
            "The Shopify integration is not available on the Starter plan [1].",
        ),
        (
            "Is two-factor authentication available on the Starter plan?",
            "Two-factor authentication is available on every plan [1].",
        ),
        (
            "Is EU data residency available on the Growth plan?",
            "EU data residency is available on the Scale plan only [1].",
        ),
    ],
)
def test_is_it_available_on_a_plan(
    generator: ExtractiveGenerator, question: str, said: str
) -> None:
    """Refused with the answer at rank 1: a heading's first word ("Connect a
    Shopify store") was taken for a sibling's name; "on every plan" holds of
    the Starter plan; "on the Scale plan only" says no of the Growth plan,
    whatever else it names (EU)."""
    answer = generator.generate(question, hits_of(*PLANS_PAGES))
    assert answer.text == said


def test_a_procedure_of_a_named_thing_may_name_other_things_in_its_steps(
    generator: ExtractiveGenerator,
) -> None:
    """ "How do I create an API key?": step 3 ("Click **Create key** and
    choose Live or Test") named what the passages write before "key" as the
    question's API does, so the whole procedure was dropped for one sentence
    of another page."""
    guide = chunk(
        "docs/guides/create-api-key.md",
        "# Create an API key\n\n1. Sign in to the dashboard.\n2. Open **Settings → API keys**.\n"
        "3. Click **Create key** and choose Live or Test.\n4. Copy the key.\n",
    )
    limits = chunk("docs/api/keys.md", "# Keys\n\nA key is shown only once, when it is created.\n")
    answer = generator.generate("How do I create an API key?", hits_of(limits, guide))
    assert answer.text.startswith("1. Sign in to the dashboard [1]. 2. Open"), answer.text


# a second review's cases: (question, passages as (source, text, front matter), answer's start)
REVIEWED_AGAIN = [
    (
        "Is Parcelbird SOC 2 certified?",
        [
            ("overview.md", "# Parcelbird overview\n\nParcelbird prints shipping labels.\n", {}),
            ("security.md", "# Security\n\nParcelbird encrypts all data at rest.\n", {}),
            (
                "carriers.md",
                "# Partners\n\nOur warehouse partner, Boxly, is SOC 2 certified.\n",
                {},
            ),
        ],
        NOT_FOUND,
    ),
    (
        "Does Parcelbird offer 24/7 support?",
        [
            ("overview.md", "# Parcelbird overview\n\nParcelbird prints shipping labels.\n", {}),
            (
                "support.md",
                "# Parcelbird support\n\nParcelbird answers by email on weekdays.\n",
                {},
            ),
            ("ups.md", "# UPS claims\n\nUPS offers 24/7 phone support for lost parcels.\n", {}),
        ],
        NOT_FOUND,
    ),
    (
        "Do students get free entry?",
        [
            (
                "museum.md",
                "Staff get free entry to all exhibitions. Tickets are sold at the door.",
                {},
            )
        ],
        NOT_FOUND,
    ),
    (
        "How do I fix sync errors?",
        [
            (
                "sync.md",
                "# Fixing sync errors\n\n1. Sign out of the desktop app.\n2. Delete the cache "
                "folder.\n3. Sign in again.\n",
                {},
            )
        ],
        "1. Sign out of the desktop app [1]. 2. Delete the cache folder [1].",
    ),
    (
        "How much is reimbursed for a $120 dinner?",
        [("meals.md", "Client dinners are reimbursed up to $80 per person.", {})],
        "Client dinners are reimbursed up to $80 per person [1].",
    ),
    (
        "How long are employees required to keep receipts?",
        [("receipts.md", "Keep all receipts for 7 years after the end of the tax year.", {})],
        "Keep all receipts for 7 years",
    ),
    (
        "How much does the Business plan cost?",
        [("plans.md", "Each user on the Business plan costs $15 per month.", {})],
        "Each user on the Business plan costs $15 per month [1].",
    ),
    (
        "Do contractors get paid leave?",
        [
            (
                "contractors.md",
                "You get 10 days of paid leave per year.",
                {"applies_to": "contractors"},
            )
        ],
        "You get 10 days of paid leave per year [1].",
    ),
    (
        "What does v2 of the expense form add?",
        [
            (
                "expenses.md",
                "# Expense form\n\nThe new form adds a receipt upload field. The old v1 form is "
                "no longer accepted.\n",
                {},
            )
        ],
        "The new form adds a receipt upload field [1].",
    ),
    (
        "How long should the cover letter be for the application?",
        [("jobs.md", "Cover letters should be at most 400 words.", {})],
        "Cover letters should be at most 400 words [1].",
    ),
    (
        "Can the helpdesk reset my MFA by email?",
        [("mfa.md", "The helpdesk never resets MFA by email alone.", {})],
        "The helpdesk never resets MFA by email alone [1].",
    ),
    (
        "When was the fire drill?",
        [("drill.md", "The fire drill was at 3 pm. Everyone left within 4 minutes.", {})],
        "The fire drill was at 3 pm [1].",
    ),
]


@pytest.mark.parametrize(("question", "pages", "said"), REVIEWED_AGAIN)
def test_a_case_of_the_second_review(
    generator: ExtractiveGenerator, question: str, pages: list, said: str
) -> None:
    """Names a question runs together are each said by the sentence (Boxly's
    SOC 2 is no Parcelbird's), the product's name is let go only on its own
    pages, staff perks are no students', a heading's "errors" is the task a
    question asks, a cap answers "how much" of a larger sum, "employees" is
    no subject a sentence must say, a per-user price prices the plan,
    `applies_to:` scopes a page, "v2 of the form" is no API, "be for the
    application" still asks a length, and a past event may be said by its
    clock time."""
    chunks = [
        replace(chunk(source, text), metadata={"source": source, **fields})
        for source, text, fields in pages
    ]
    answer = generator.generate(question, hits_of(*chunks))
    assert answer.text.startswith(said), answer.text


def test_a_question_about_v1_is_answered_by_what_is_said_of_v1(
    generator: ExtractiveGenerator,
) -> None:
    """ "What is the rate limit on the Scale plan in v1?" got a changelog's
    "Raised the Scale plan's rate limit to 100 requests per second" (the v2
    API's); and the deprecated v1 page, asked about, is quoted as it is."""
    v1 = replace(
        chunk(
            "docs/api/v1-deprecated.md",
            "# v1 API (deprecated)\n\nThe v1 API allowed 2 requests per second on every plan. "
            "In v1, labels could be voided within 14 days.\n",
        ),
        metadata={
            "source": "docs/api/v1-deprecated.md",
            "title": "v1 API (deprecated)",
            "deprecated": True,
        },
    )
    changelog = chunk(
        "docs/changelog.md",
        "# Changelog\n\n## 3.4.0\n\n- Raised the Scale plan's rate limit to 100 requests per "
        "second.\n",
    )
    rate = generator.generate(
        "What is the rate limit on the Scale plan in v1?", hits_of(changelog, v1)
    )
    assert "100 requests" not in rate.text, rate.text
    void = generator.generate("How long could labels be voided in v1?", hits_of(changelog, v1))
    assert void.text == "In v1, labels could be voided within 14 days [1].", void.text


def test_a_question_that_names_none_of_its_siblings_gets_each(
    generator: ExtractiveGenerator,
) -> None:
    """ "How long is label history kept?" got the Starter plan's 90 days
    alone, which reads as the answer for every plan; each plan's sentence of
    that shape is said (and so is each office's page where only their front
    matter tells them apart)."""
    plans = [
        chunk(
            f"docs/plans/{plan.lower()}.md",
            f"# {plan} plan\n\nLabel history is kept for {kept} on the {plan} plan.\n",
        )
        for plan, kept in (("Starter", "90 days"), ("Growth", "1 year"), ("Scale", "7 years"))
    ]
    answer = generator.generate("How long is label history kept?", hits_of(*plans))
    assert answer.text == (
        "Label history is kept for 90 days on the Starter plan [1]. Label history is kept for "
        "1 year on the Growth plan [2]. Label history is kept for 7 years on the Scale plan [3]."
    )
    # a question that names one gets that one
    growth = generator.generate(
        "How long is label history kept on the Growth plan?", hits_of(*plans)
    )
    assert growth.text == "Label history is kept for 1 year on the Growth plan [1]."
    offices = [
        replace(
            chunk(
                f"docs/offices/{city.lower()}.md",
                f"## Parental leave\n\nEmployees receive "
                f"{weeks} weeks of fully paid parental leave.\n",
            ),
            metadata={"source": f"docs/offices/{city.lower()}.md", "office": city},
        )
        for city, weeks in (("Toronto", 16), ("Singapore", 12), ("Lisbon", 20))
    ]
    leave = generator.generate("How long is parental leave?", hits_of(*offices))
    assert leave.text == (
        "Toronto (office): Employees receive 16 weeks of fully paid parental leave [1]. "
        "Singapore (office): Employees receive 12 weeks of fully paid parental leave [2]. "
        "Lisbon (office): Employees receive 20 weeks of fully paid parental leave [3]."
    )


def test_a_status_code_and_a_thing_free_in_other_words(generator: ExtractiveGenerator) -> None:
    """ "What does HTTP 402 mean?" was refused where the errors table's row
    starts with 402 (no passage writes "HTTP 402"); "Is Saturday delivery
    free with USPS?" where it is "included at no extra cost"."""
    errors = chunk(
        "docs/api/errors.md",
        "# Error codes\n\n| HTTP status | Code | Meaning |\n|---|---|---|\n"
        "| 401 | unauthorized | The API key is missing |\n"
        "| 402 | label_quota_exceeded | The monthly labels are used up |\n",
    )
    carriers = chunk(
        "docs/carriers.md",
        "## Saturday delivery\n\nFor UPS, Saturday delivery costs $8 extra. For USPS, Saturday "
        "delivery is included at no extra cost.\n",
    )
    code = generator.generate("What does HTTP 402 mean?", hits_of(errors, carriers))
    assert code.text.startswith("HTTP status: 402; Code: label_quota_exceeded"), code.text
    free = generator.generate("Is Saturday delivery free with USPS?", hits_of(carriers, errors))
    assert free.text == "For USPS, Saturday delivery is included at no extra cost [1]."


def test_siblings_are_said_only_where_each_is_an_answer(generator: ExtractiveGenerator) -> None:
    """A third review's cases: a second part's sentence stays; a question
    that gives the figure, picks one ("Which plan ...?") or names one in
    lower case gets that one; a month is no sibling's name; six offices'
    pages give five, each labelled, never one that reads as everyone's."""
    leave = chunk(
        "leave.md",
        "# Leave\n\nIn Lisbon, employees get 25 days of annual leave. In Toronto, employees get "
        "15 days of annual leave. Everyone gets 10 days of sick leave.\n",
    )
    both = generator.generate(
        "How much annual leave do employees get, and how much sick leave?", hits_of(leave)
    )
    assert "25 days" in both.text and "15 days" in both.text and "10 days of sick" in both.text
    lisbon = generator.generate(
        "How many days of annual leave do employees in lisbon get?", hits_of(leave)
    )
    assert lisbon.text == "In Lisbon, employees get 25 days of annual leave [1]."
    plans = chunk(
        "plans.md",
        "Label history is kept for 90 days on the Starter plan. Label history is kept for 1 year "
        "on the Growth plan.\n",
    )
    which = generator.generate("Which plan keeps label history for 1 year?", hits_of(plans))
    assert which.text == "Label history is kept for 1 year on the Growth plan [1]."
    fees = chunk(
        "fees.md",
        "As of March 2025 the monthly fee is $12. As of June 2023 the monthly fee is $10.",
    )
    assert "$10" not in generator.generate("What is the monthly fee?", hits_of(fees)).text
    offices = [
        replace(
            chunk(f"{city.lower()}.md", f"Employees receive {weeks} weeks of fully paid leave."),
            metadata={"source": f"{city.lower()}.md", "office": city},
        )
        for city, weeks in (
            ("Berlin", 14), ("Austin", 16), ("Lisbon", 20), ("Paris", 18), ("Tokyo", 12),
            ("Dublin", 26),
        )
    ]  # fmt: skip
    six = generator.generate("How long is paid leave?", hits_of(*offices))
    assert six.text.startswith("Berlin (office): Employees receive 14 weeks"), six.text
    assert six.text.count("(office)") == 5


def test_time_off_asked_without_a_reason_is_no_sick_leave(generator: ExtractiveGenerator) -> None:
    """ "How much time off do Lisbon staff get per year?" got Lisbon's 30
    days of sick leave; "time off for my wedding" is no holiday either."""
    leave = chunk(
        "leave.md",
        "# Leave\n\nIn Lisbon, employees get 30 days of paid sick leave per year.\n\n"
        "In Lisbon, employees get 25 days of annual leave.\n",
    )
    answer = generator.generate("How many days off do Lisbon staff get?", hits_of(leave))
    assert answer.text == "In Lisbon, employees get 25 days of annual leave [1].", answer.text
    # (its "per year" is the sick leave sentence's words: refused, never that one)
    yearly = generator.generate("How much time off do Lisbon staff get per year?", hits_of(leave))
    assert "sick" not in yearly.text, yearly.text
    wedding = generator.generate("How much time off do I get for my wedding?", hits_of(leave))
    assert "25 days" not in wedding.text and "30 days" not in wedding.text


def test_a_third_trials_university_handbook(generator: ExtractiveGenerator) -> None:
    """ "What are the library opening hours?" got the Counselling Service's
    hours (the question's library said nowhere in it); "When does the library
    open?" got one campus's; "How much is Birch Court per week?" was refused
    ("A room in Birch Court" prices the hall, as "Each user on the plan"
    prices the plan)."""
    library = chunk(
        "docs/library.md",
        "# Library\n\nAt the Northgate campus, the library opens at 8 am. At the Riverside "
        "campus, the library opens at 9 am.\n",
    )
    support = chunk(
        "docs/support.md",
        "# Support\n\nThe Counselling Service is open Monday to Friday from 9 am to 5 pm.\n",
    )
    halls = chunk("docs/halls.md", "# Halls\n\nA room in Birch Court costs £128 per week.\n")
    for question in (
        "What are the library opening hours?",
        "What are the opening hours of the library?",
    ):
        answer = generator.generate(question, hits_of(support, library))
        assert "Counselling" not in answer.text, (question, answer.text)
    opens = generator.generate("When does the library open?", hits_of(library, support))
    assert "8 am" in opens.text and "9 am" in opens.text, opens.text
    hall = generator.generate("How much is Birch Court per week?", hits_of(halls, library))
    assert hall.text == "A room in Birch Court costs £128 per week [1]."


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Can undergraduate students live in Oak Hall?", "Oak Hall is open to postgraduate"),
        ("Can postgraduate students live in Oak Hall?", "Oak Hall is open to postgraduate"),
        ("Can international students live in Elm Hall?", NOT_FOUND),
        ("Can postgraduate students live in Elm Hall?", "Postgraduate students cannot live"),
        ("What is the phone number of the Registry?", "Registry: Phone: 01632 960418"),
        ("What is the booking fee?", "A fee of £2 applies to each booking"),
        ("What is the address of the office?", "The office is at 12 King Street"),
        ("How much does the zoo cost?", NOT_FOUND),
    ],
)
def test_a_fourth_reviews_and_the_third_trials_cases(
    generator: ExtractiveGenerator, question: str, said: str
) -> None:
    """A rule limited to another group ("open to postgraduate students
    only") answers a yes/no question about one group either way, and a rule
    of another group ("Postgraduate students cannot ...") says nothing of
    international students; "01632 960418" is a phone number; "What is the
    booking fee?" is answered by a sentence that says the fee, and "the
    address of the office" by one that says the office; "A pass on the Zoo
    bus" prices the bus."""
    halls = chunk(
        "docs/halls.md",
        "# Halls\n\n## Oak Hall\n\nOak Hall is open to postgraduate students only.\n\n"
        "## Elm Hall\n\nPostgraduate students cannot live in Elm Hall.\n",
    )
    contacts = chunk("docs/contacts.md", "## Registry\n\nPhone: 01632 960418\n")
    office = chunk(
        "docs/office.md",
        "# Office\n\nThe office is at 12 King Street. Booking is required for groups of 10 or "
        "more, and the group deposit is £50. A fee of £2 applies to each booking. A pass on the "
        "Zoo bus costs £4.\n",
    )
    answer = generator.generate(question, hits_of(halls, contacts, office))
    assert answer.text.startswith(said), answer.text


@pytest.mark.parametrize(
    ("question", "text", "said"),
    [
        (
            "What are the library opening hours?",
            "# Gym\n\nOpening hours are 6 am to 10 pm every day.\n",
            NOT_FOUND,
        ),
        (
            "What is the phone number for support?",
            "# Support\n\nQuote your reference 2024 123456 when you contact us. "
            "Call 0800 123 4567.",
            "Call 0800 123 4567",
        ),
        (
            "Do you admit children?",
            "# Entry\n\nUnaccompanied children under 12 are not admitted.\n",
            "Unaccompanied children under 12 are not admitted",
        ),
        (
            "Can undergraduate students live in Oak Hall?",
            "# Oak Hall\n\nUndergraduate and postgraduate students can live in Oak Hall.\n",
            "Undergraduate and postgraduate students can live in Oak Hall",
        ),
        (
            "How much does the Zoo bus cost?",
            "# Buses\n\nA day pass on the Zoo bus costs £5.\n",
            "A day pass on the Zoo bus costs £5",
        ),
    ],
)
def test_a_fifth_reviews_cases(
    generator: ExtractiveGenerator, question: str, text: str, said: str
) -> None:
    """The library's hours are never the gym's; a reference number is no
    phone number; "admit" says no kind of child; "undergraduate and
    postgraduate students" holds both kinds; a pass on the Zoo bus prices
    the bus."""
    answer = generator.generate(question, hits_of(chunk("page.md", text)))
    assert answer.text.startswith(said), answer.text


def test_a_per_unit_price_prices_its_noun_and_the_names_it_holds(
    generator: ExtractiveGenerator,
) -> None:
    """ "A place at the conference dinner costs £45" is no price of the
    conference (its noun is the dinner); "A pitch at the Sunny Meadows
    campsite" is Sunny Meadows' (a name it holds)."""
    page = chunk(
        "prices.md",
        "# Prices\n\nA place at the conference dinner costs £45. A pitch at the Sunny Meadows "
        "campsite costs £20 per night.\n",
    )
    assert_not_found(generator.generate("How much does the conference cost?", hits_of(page)))
    meadows = generator.generate("How much is Sunny Meadows per night?", hits_of(page))
    assert meadows.text == "A pitch at the Sunny Meadows campsite costs £20 per night [1]."


PRICES = chunk(
    "docs/prices.md",
    "# Prices\n\n## Shoe hire\n\nShoe hire costs £4. It is free for Summit members.\n\n"
    "## Passes\n\nA 10-visit punch card costs £130 for adults. Over-65s pay £20 for a day "
    "pass.\n\n## Courses\n\nPrivate coaching costs £45 per hour.\n",
)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        # what a price question prices is named by the answer
        ("How much does it cost to hire a harness?", NOT_FOUND),
        ("How much does it cost to hire climbing shoes?", "Shoe hire costs £4"),
        ("How much does a new harness cost?", NOT_FOUND),
        ("What does a punch card cost?", "A 10-visit punch card costs £130 for adults"),
        ("How much is a 10-visit punch card?", "A 10-visit punch card costs £130 for adults"),
        ("How much do students pay for a harness?", NOT_FOUND),
        ("How much does private coaching cost?", "Private coaching costs £45 per hour"),
        # a price itself, or no thing, is no thing priced
        ("How much is the fee for shoe hire?", "Shoe hire costs £4"),
        # an age band's price is no other band's
        ("How much is a 10-visit punch card for under-18s?", NOT_FOUND),
        ("How much do under-18s pay for a day pass?", NOT_FOUND),
        ("How much do over-65s pay for a day pass?", "Over-65s pay £20 for a day pass"),
        ("How much is a day pass for over-65s?", "Over-65s pay £20 for a day pass"),
    ],
)
def test_a_price_names_what_is_priced_and_whom_for(
    generator: ExtractiveGenerator, question: str, said: str
) -> None:
    """ "Shoe hire costs £4" prices no harness, and the adults' punch card
    is no price for under-18s."""
    answer = generator.generate(question, hits_of(PRICES))
    assert answer.text.startswith(said), answer.text


@pytest.mark.parametrize(
    ("text", "question", "said"),
    [
        # an age band is answered by a band that holds it, however written
        (
            "# Bus fares\n\nA single ticket costs £2. A day ticket costs £5. Under-16s pay £1 "
            "for a single ticket. Over-60s travel free with a bus pass.\n",
            "How much is a bus ticket for over-65s?",
            "Over-60s travel free with a bus pass",
        ),
        (
            "# Bus fares\n\nA single fare costs £2. A day rider costs £5. Children under 16 pay "
            "£1.\n",
            "How much do under-16s pay for a single fare?",
            "Children under 16 pay £1",
        ),
        (
            "# Swimming\n\nAdult swim: £5.20. Junior swim (under 18): £3.10. Seniors (65+) pay "
            "£3.60.\n",
            "How much do over-65s pay for a swim?",
            "Seniors (65+) pay £3.60",
        ),
        (
            "# Tickets\n\nAdult tickets cost £11. Child tickets (under 15) cost £7. Seniors pay "
            "£8.\n",
            "How much do under 15s pay for a ticket?",
            "Child tickets (under 15) cost £7",
        ),
        (
            "# Membership prices\n\n| Membership | Adults | Under-18s | Over-65s |\n"
            "|---|---|---|---|\n| Monthly | £35 | £20 | £25 |\n| Annual | £350 | £200 | £250 |\n",
            "How much is monthly membership for under-18s?",
            "Membership: Monthly; Under-18s: £20",
        ),
        # the price for no one is not a band's where the page prices a band
        # of those ages, and a band that holds only some of them is no answer
        (
            "# Prices\n\nTickets cost £11. Under-16s pay £7.\n",
            "How much is a ticket for under-18s?",
            NOT_FOUND,
        ),
        (
            "# Prices\n\nA single ticket costs £2. Under-16s pay £1.\n",
            "How much is a single ticket for under-16s?",
            "Under-16s pay £1",
        ),
        (
            "# Prices\n\nUnder-16s swim for £3. Over-16s pay £5.50.\n",
            "How much do under-18s pay for a swim?",
            NOT_FOUND,
        ),
        # a group's own price, where its passage names the thing priced
        (
            "# Prices\n\nThe special exhibition costs £15. Seniors pay £12.\n",
            "How much do seniors pay for the special exhibition?",
            "The special exhibition costs £15 [1]. Seniors pay £12",
        ),
        # the words for one thing, a doing priced, two things asked
        (
            "# Fares\n\nAn adult single fare to Leeds costs £12.40. Children aged 5-15 pay half "
            "fare. Under-5s travel free.\n",
            "How much do children pay for a ticket?",
            "Children aged 5-15 pay half fare",
        ),
        (
            "# Getting here\n\nParking at the venue costs £8 per day.\n",
            "How much does it cost to park my car?",
            "Parking at the venue costs £8",
        ),
        (
            "# Charging\n\nRapid charging costs 79p per kWh.\n",
            "How much does it cost to charge a car?",
            "Rapid charging costs 79p",
        ),
        (
            "# Postage\n\nParcels to Germany cost £10.\n",
            "How much does it cost to post a package to Germany?",
            "Parcels to Germany cost £10",
        ),
        (
            "# Kit\n\nShoe hire costs £4.\n",
            "How much does it cost to hire a harness and shoes?",
            "Shoe hire costs £4",
        ),
        (
            "# Rooms\n\nA double room costs £95 per night. Parking costs £10 per night.\n",
            "How much does a double room cost and is parking included?",
            "A double room costs £95 per night",
        ),
        (
            "# Tennis\n\nCourts cost £10 an hour. Racket hire costs £3.\n",
            "How much does it cost to hire balls?",
            NOT_FOUND,
        ),
    ],
)
def test_an_age_band_and_a_thing_priced_as_pages_write_them(
    generator: ExtractiveGenerator, text: str, question: str, said: str
) -> None:
    """The review's cases of the price rules: bands by the ages they hold
    ("over-60s" holds the over-65s; "(65+)", "children under 16", "aged
    5-15"), a group's elliptical own price, and what a price names."""
    answer = generator.generate(question, hits_of(chunk("docs/page.md", text)))
    assert answer.text.startswith(said), answer.text


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How much does a lift-out cost for a 12 m boat?", "Lift-out over 10 m costs £24"),
        ("How much does a lift-out cost for an 8 m boat?", "Lift-out up to 10 m costs £21"),
        ("How much does a lift-out cost for a 10 m boat?", "Lift-out up to 10 m costs £21"),
        (
            "How long does a 5 kg parcel take to arrive?",
            "Parcels of at least 3 kg arrive in 4 days",
        ),
        ("How long does a 1 kg parcel take to arrive?", "Parcels up to 2 kg arrive in 2 days"),
    ],
)
def test_a_bound_that_leaves_the_asked_figure_out_is_anothers(
    generator: ExtractiveGenerator, question: str, said: str
) -> None:
    """ "Lift-out up to 10 m" prices no 12 m boat; the bound that holds the
    asked figure answers."""
    page = chunk(
        "docs/boatyard.md",
        "# Boatyard\n\nLift-out up to 10 m costs £21 per metre. Lift-out over 10 m costs £24 "
        "per metre.\n\n# Parcels\n\nParcels up to 2 kg arrive in 2 days. Parcels of at least "
        "3 kg arrive in 4 days.\n",
    )
    answer = generator.generate(question, hits_of(page))
    assert answer.text.startswith(said), answer.text


@pytest.mark.parametrize(
    ("texts", "question", "said"),
    [
        # numbers that are no ages: group sizes, months
        (
            ["# Tickets\n\nTickets cost £11. Groups of 10 and over pay £8 each.\n"],
            "How much is a ticket for over-65s?",
            "Tickets cost £11",
        ),
        (
            ["# Tickets\n\nTickets cost £11. Children under 12 months go free.\n"],
            "How much do under-12s pay for a ticket?",
            "Tickets cost £11",
        ),
        # the narrowest band that holds the ages asked
        (
            [
                "# Membership\n\nFull membership (18+) costs £400 a year. Senior membership (65+) "
                "costs £250 a year.\n"
            ],
            "How much is membership for over-70s?",
            "Senior membership (65+) costs £250",
        ),
        # a band's price of another thing is none of this one
        (
            [
                "# Watersports\n\nKayaks cost £20 per hour. Paddleboards cost £15 per hour. "
                "Under-16s pay £8 for a paddleboard.\n"
            ],
            "How much is a kayak for under-16s?",
            "Kayaks cost £20 per hour",
        ),
        (
            ["# Visiting\n\nParking costs £2 per visit. Over-65s get free entry to the museum.\n"],
            "How much do over-65s pay for parking?",
            "Parking costs £2 per visit",
        ),
        (
            [
                "# Swimming\n\nLane swimming costs £5. Under-16s pay £3. Swimming lessons cost £9 "
                "per lesson.\n"
            ],
            "How much do under-16s pay for a swimming lesson?",
            "Swimming lessons cost £9",
        ),
        (
            ["# Prices\n\nEntry costs £10. Under-16s pay £5.\n"],
            "How much is admission for under-16s?",
            "Under-16s pay £5",
        ),
        # a band on another page is not this page's
        (
            [
                "# Museum\n\nEntry is free. The special exhibition costs £15.\n",
                "# Cafe\n\nA coffee costs £3. Over-65s get 10% off in the cafe.\n",
            ],
            "How much is the special exhibition for over-65s?",
            "The special exhibition costs £15",
        ),
        # a doing priced of a thing where a sentence prices that thing's doing
        (
            [
                "# Parking\n\nParking at the venue costs £8 per day. The car park opens at 7am. "
                "Bicycle parking costs £1.\n"
            ],
            "How much does it cost to park a bike?",
            "Bicycle parking costs £1",
        ),
        (
            ["# Parking\n\nParking at the venue costs £8 per day. The car park opens at 7am.\n"],
            "How much does it cost to park a car?",
            "Parking at the venue costs £8",
        ),
        # a reduction of a service is no discount
        (
            ["# Bus services\n\nThere is a reduction in service on bank holidays.\n"],
            "Is there a discount on bank holidays?",
            NOT_FOUND,
        ),
    ],
)
def test_a_second_reviews_price_and_band_cases(
    generator: ExtractiveGenerator, texts: list[str], question: str, said: str
) -> None:
    """Group sizes and months are no ages; the narrowest band holding the
    ages asked answers; a band's price of another thing, or a band on another
    page, says nothing of this one."""
    pages = [chunk(f"docs/p{i}.md", text) for i, text in enumerate(texts)]
    answer = generator.generate(question, hits_of(*pages))
    assert answer.text.startswith(said), answer.text


@pytest.mark.parametrize(
    ("text", "question", "said"),
    [
        # a sentence with a bound that holds the figure beside one that does not
        (
            "# Boatyard\n\nLift out costs £150 for boats up to 10 m, and £220 for boats over "
            "10 m.\n",
            "How much is a lift out for a 12 m boat?",
            "Lift out costs £150 for boats up to 10 m, and £220",
        ),
        (
            "# Boatyard\n\nLift out costs £150 for boats up to 10 metres and £220 for longer "
            "boats.\n",
            "How much is a lift out for a 12 m boat?",
            "Lift out costs £150 for boats up to 10 metres and £220 for longer boats",
        ),
        # a range holds the figures between its ends
        (
            "# Berths\n\nVisitor berths cost £3 per metre per night. Boats 8-12 m use the outer "
            "pontoon.\n",
            "Which pontoon should a 10 m boat use?",
            "Boats 8-12 m use the outer pontoon",
        ),
        # a bound of time before a moment is a deadline, not a size
        (
            "# Cancellations\n\nFree cancellation up to 48 hours before check-in. Cancellations "
            "within 48 hours of check-in are charged the first night.\n",
            "What happens if I cancel 72 hours before check-in?",
            "Free cancellation up to 48 hours before check-in",
        ),
        # a question about the limit itself, or bounding its own figure
        (
            "# Stays\n\nWeekend breaks need a stay of at least 3 nights.\n",
            "What is the minimum stay for a 2 night weekend break?",
            "Weekend breaks need a stay of at least 3 nights",
        ),
    ],
)
def test_a_third_reviews_bound_cases(
    generator: ExtractiveGenerator, text: str, question: str, said: str
) -> None:
    """A bound is another thing's only where no bound of the sentence holds
    the asked figure; a range holds what lies between its ends; a deadline
    and a question about the limit are no sizes to compare."""
    answer = generator.generate(question, hits_of(chunk("docs/page.md", text)))
    assert answer.text.startswith(said), answer.text


def test_a_unit_after_a_number_ends_a_sentence() -> None:
    """ "up to 10 m. Lift out ..." is two sentences (a unit, not an initial);
    "J. Smith" is not split."""
    assert split_sentences("Boats up to 10 m. Lift out costs £220.") == [
        "Boats up to 10 m.",
        "Lift out costs £220.",
    ]
    assert split_sentences("Ask J. Smith at the desk. It is open.") == [
        "Ask J. Smith at the desk.",
        "It is open.",
    ]


@pytest.mark.parametrize(
    ("text", "question", "said"),
    [
        # a figure the question writes with "of" or "about" is still compared
        (
            "# Parcels\n\nParcels under 2 kg cost £3.50. Parcels over 10 kg cost £12.\n",
            "How much does a parcel of about 15 kg cost?",
            "Parcels over 10 kg cost £12",
        ),
        # two bounds of one range: the range
        (
            "# Parcels\n\nParcels over 2 kg and up to 10 kg cost £6.\n",
            "How much does it cost to send a 15 kg parcel?",
            NOT_FOUND,
        ),
        # "more" is no size past the bound; "after ..." no deadline of a length
        (
            "# Boatyard\n\nLift out costs £150 for boats up to 10 m and takes no more than an "
            "hour.\n",
            "How much is a lift out for a 12 m boat?",
            NOT_FOUND,
        ),
        (
            "# Boatyard\n\nLift out costs £150 for boats up to 10 m after 1 March.\n",
            "How much is a lift out for a 12 m boat?",
            NOT_FOUND,
        ),
        # the least or most one pays is no limit of the figure
        (
            "# Boatyard\n\nLift out costs £150 for boats up to 10 m.\n",
            "What is the least I would pay to lift out a 12 m boat?",
            NOT_FOUND,
        ),
        # a range written with its unit twice
        (
            "# Berths\n\nBoats 10 m - 15 m use the outer pontoon.\n",
            "Which pontoon should a 12 m boat use?",
            "Boats 10 m - 15 m use the outer pontoon",
        ),
        # a run of groups' prices is of the sentence before the run
        (
            "# Gym\n\nMonthly membership costs £40. Seniors pay £30. Students pay £25 a month.\n",
            "How much do students pay for gym membership?",
            "Students pay £25 a month",
        ),
        (
            "# Social events\n\nThe society holds a produce show. Entry is free for members. "
            "Non-members pay £2. The summer barbecue is held in July.\n",
            "How much do non-members pay to come to the summer barbecue?",
            NOT_FOUND,
        ),
    ],
)
def test_a_fourth_reviews_bound_and_group_price_cases(
    generator: ExtractiveGenerator, text: str, question: str, said: str
) -> None:
    """Only real bound words bound a question's figure; a range's two bounds
    are one; a group's bare price is of the last sentence before its run."""
    answer = generator.generate(question, hits_of(chunk("docs/page.md", text)))
    assert answer.text.startswith(said), answer.text


@pytest.mark.parametrize(
    ("text", "question", "said"),
    [
        # where pages name kinds of a thing, another kind's price is none
        (
            "# Delivery\n\nStandard delivery costs £3.95. Next-day delivery costs £6.95.\n",
            "How much does express delivery cost?",
            NOT_FOUND,
        ),
        (
            "# Delivery\n\nStandard delivery costs £3.95. Next-day delivery costs £6.95.\n",
            "How much does next-day delivery cost?",
            "Next-day delivery costs £6.95",
        ),
        (
            "# Courses\n\nThe beginner course costs £120. The advanced course costs £180.\n",
            "How much does the intermediate course cost?",
            NOT_FOUND,
        ),
        (
            "# Fares\n\nAn off-peak return costs £22. An anytime return costs £40.\n",
            "How much is a peak return?",
            NOT_FOUND,
        ),
        # one other word before the thing is no kind of it
        (
            "# Library\n\nA replacement card costs €3.\n",
            "How much does it cost to replace a lost library card?",
            "A replacement card costs €3",
        ),
        # a word the question writes before the thing, said by the row's columns
        (
            "# Visitor permits\n\n| Visitor permit | Price |\n|---|---|\n"
            "| 2-hour session | £1.50 |\n| Half-day session | £2.50 |\n"
            "| All-day session | £4.50 |\n",
            "How much is an all-day visitor session?",
            "Visitor permit: All-day session; Price: £4.50",
        ),
        # a kind however written: hyphened, in another number, another word for it
        (
            "# Tickets\n\nAll-day tickets cost £6. Single tickets cost £2. Return tickets "
            "cost £3.50.\n",
            "How much is an all day ticket?",
            "All-day tickets cost £6",
        ),
        (
            "# Courses\n\nThe Beginners' course costs £120. The Improvers' course costs £150. "
            "The Advanced course costs £180.\n",
            "How much is the beginner course?",
            "The Beginners' course costs £120",
        ),
        (
            "# Plans\n\nThe monthly plan costs $29 a month. The annual plan costs $290 a year.\n",
            "How much is the yearly plan?",
            "The annual plan costs $290 a year",
        ),
        # what prices nothing names no kind ("Lost cards must be reported"),
        # and the question's verb says its own ("replace": a replacement card)
        (
            "# Fees\n\nA library card is free. A replacement card costs £3. Lost cards must be "
            "reported at the desk.\n",
            "How much does it cost to replace a lost library card?",
            "A library card is free [1]. A replacement card costs £3",
        ),
        # nor is a measure ("a 60 minute class")
        (
            "# Classes\n\nA 60 minute spin class costs £9. A 45 minute yoga class costs £7.\n",
            "How much is a 60 minute class?",
            "A 60 minute spin class costs £9",
        ),
    ],
)
def test_a_kind_of_a_thing_is_not_priced_by_another_kind(
    generator: ExtractiveGenerator, text: str, question: str, said: str
) -> None:
    """ "Standard delivery costs £3.95" is no price of express delivery where
    the page names kinds of delivery."""
    answer = generator.generate(question, hits_of(chunk("docs/page.md", text)))
    assert answer.text.startswith(said), answer.text


FEES_UG = (
    "# Undergraduate tuition fees 2025-26\n\nHome undergraduate students pay £9,250 per year.\n"
    "International undergraduate students pay £21,400 per year.\n"
)
FEES_PG = (
    "# Postgraduate tuition fees 2025-26\n\nHome postgraduate students pay £11,800 per year.\n"
    "International postgraduate students pay £24,600 per year.\n"
)
LIBRARY_HOURS = (
    "# Library\n\nThe library is open until 10 pm on weekdays. The library is open until "
    "midnight on Fridays.\n"
)
LEISURE = (
    "# Leisure centre\n\n## Gym\n\nAdult membership costs £40 a month.\n\n## Pool\n\n"
    "Child membership costs £20 a month.\n"
)


@pytest.mark.parametrize(
    ("pages", "question", "said", "not_said"),
    [
        # one word tells each sentence's thing: each is said, not the first alone
        ([FEES_UG], "How much are tuition fees?", "Home undergraduate students pay £9,250 per "
         "year [1]. International undergraduate students pay £21,400 per year [1].", ""),
        # another page is no sibling's place, though titled apart by those words
        # (it may be dated or limited anywhere on it)
        ([FEES_UG, FEES_PG], "How much do international students pay?",
         "International undergraduate students pay £21,400 per year [1].", "postgraduate"),
        # the question names one: its own, not the others'
        ([FEES_UG, FEES_PG], "How much do postgraduate students pay?",
         "Home postgraduate students pay £11,800 per year [1]. International postgraduate "
         "students pay £24,600 per year [1].", "undergraduate"),
        ("# Fees\n\nFull-time students pay £9,250 per year. Part-time students pay £4,625 per "
         "year.\n", "How much do part time students pay?",
         "Part-time students pay £4,625 per year [1].", "Full-time"),
        ("# Classes\n\nMembers pay £5 per class. Non-members pay £8 per class.\n",
         "How much is a class for members?", "Members pay £5 per class [1].", "Non-members"),
        ("# Parking\n\nParking costs £2 per hour. Parking costs £10 per day.\n",
         "How much is all-day parking?", "Parking costs £10 per day [1].", "per hour"),
        # "midnight" is an hour, and a day or a season tells sentences apart
        ([LIBRARY_HOURS], "What time is the library open until?",
         "The library is open until 10 pm on weekdays [1]. The library is open until "
         "midnight on Fridays [1].", ""),
        ("# Pool\n\nThe pool is open until 9 pm in summer. The pool is open until 7 pm in "
         "Winter.\n", "What time is the pool open until?",
         "The pool is open until 9 pm in summer [1]. The pool is open until 7 pm in Winter [1].",
         ""),
        ("# Campuses\n\nAt the Northgate campus, the library closes at 10 pm. At the Castle "
         "Quay campus, the library closes at midnight.\n", "When does the library close?",
         "At the Northgate campus, the library closes at 10 pm [1]. At the Castle Quay campus, "
         "the library closes at midnight [1].", ""),
        # "What is the X?" asks each thing's figure too
        ("# Regulations\n\nThe pass mark for undergraduate modules is 40%. The pass mark for "
         "postgraduate modules is 50%.\n", "What is the pass mark?",
         "The pass mark for undergraduate modules is 40% [1]. The pass mark for postgraduate "
         "modules is 50% [1].", ""),
        # another heading's, another page's, another time's sentence is no sibling
        ([LEISURE], "How much is membership?", "Adult membership costs £40 a month [1].",
         "Child"),
        (["# Kettle\n\nStandard models have a 2 year warranty.\n",
          "# Toaster\n\nPremium models have a 5 year warranty.\n"], "How long is the warranty?",
         "Standard models have a 2 year warranty [1].", "Premium"),
        ("# Leave\n\n## Current policy\n\nEmployees get 25 days of annual leave.\n\n"
         "## Previous policy (until 2023)\n\nEmployees got 20 days of annual leave. Contractors "
         "got 10 days of annual leave.\n", "How much annual leave is there?",
         "Employees get 25 days of annual leave [1].", "20 days"),
        ("# Delivery\n\nIt costs £7.99 per order. It costs £3.95 per parcel.\n",
         "How much is delivery?", "It costs £7.99 per order", "£3.95"),
        # names a figure's word ("3 users", "50 projects"), not the thing asked
        ("# Limits\n\nFree accounts allow 3 users. Team accounts allow 50 projects.\n",
         "How many users are allowed?", "Free accounts allow 3 users [1].", "projects"),
        # capitalised names are siblings as before, and a name after a number is a name
        ("# Licences\n\nWindows 11 Pro licences cost $199. Windows 11 Home licences cost $139.\n",
         "How much does a licence cost?", "Windows 11 Pro licences cost $199 [1]. Windows 11 "
         "Home licences cost $139 [1].", ""),
        ("# Paint\n\nThe Midnight Blue paint costs £20 per tin. The Ocean Blue paint costs £18 "
         "per tin.\n", "How much is the paint?", "The Midnight Blue paint costs £20 per tin [1]. "
         "The Ocean Blue paint costs £18 per tin [1].", ""),
    ],
)  # fmt: skip
def test_one_sentence_of_several_things_is_said_with_the_others(
    generator: ExtractiveGenerator,
    pages: str | list[str],
    question: str,
    said: str,
    not_said: str,
) -> None:
    """Where sentences of one shape tell things apart by one or two words
    ("Home"/"International", "undergraduate"/"postgraduate") and the
    question names none of them, each is said; where it names one, the
    others are not; a sentence under another heading, on another thing's
    page, of another time or leaning on another is none."""
    texts = [pages] if isinstance(pages, str) else pages
    hits = hits_of(*(chunk(f"docs/p{i}.md", text) for i, text in enumerate(texts)))
    answer = generator.generate(question, hits)
    assert answer.text.startswith(said), answer.text
    if not_said:
        assert not_said not in answer.text, answer.text


def _markdown_chunks(name: str, text: str) -> list[Chunk]:
    """A Markdown page's chunks as an indexed folder has them (title, sections)."""
    from ragloom.builtin.chunkers.markdown import MarkdownChunker
    from ragloom.builtin.loaders.parsers.markdown import parse_markdown
    from ragloom.types import Document

    body, meta = parse_markdown(text, report=lambda message: None)
    source = f"docs/{name}.md"
    document = Document(id=source, text=body, metadata={"source": source, **meta})
    return MarkdownChunker(size=800, overlap=100).split(document)


@pytest.mark.parametrize(
    ("text", "question", "said", "not_said"),
    [
        # one subheading under two parents is two things'
        ("# Employee handbook\n\n## United Kingdom\n\n### Annual leave\n\nFull-time employees "
         "get 25 days of annual leave a year.\n\n## United States\n\n### Annual leave\n\n"
         "Part-time employees get 10 days of annual leave a year.\n",
         "How many days of annual leave do employees get?",
         "Full-time employees get 25 days of annual leave a year [1].", "Part-time"),
        ("# Course fees\n\n## 2025/26 entry\n\n### Tuition\n\nHome students pay £9,535 per "
         "year.\n\n## 2023/24 entry (closed)\n\n### Tuition\n\nInternational students pay "
         "£19,000 per year.\n", "How much do students pay?",
         "Home students pay £9,535 per year [1].", "International"),
        # a lead that ends in a colon, a sentence that scopes what follows, a
        # list's parent item: the run of siblings ends there
        ("# Swimming\n\n## Prices\n\nFrom 1 April 2025:\n\n- Adults pay £6 per swim\n- Juniors "
         "pay £4 per swim\n\nUntil 31 March 2025:\n\n- Adults pay £5 per swim\n- Seniors pay £3 "
         "per swim\n", "How much is a swim?",
         "Adults pay £6 per swim [1]. Juniors pay £4 per swim [1].", "Seniors"),
        ("# Staff handbook\n\n## Annual leave\n\nOur UK entity follows the Working Time "
         "Regulations. Full-time employees get 25 days of annual leave a year.\n\nOur US entity "
         "follows state law. Part-time employees get 10 days of annual leave a year.\n",
         "How many days of annual leave do employees get?",
         "Full-time employees get 25 days of annual leave a year [1].", "Part-time"),
        ("# Leisure centre prices\n\n- Gym\n  - Adults: £40 a month\n  - Students: £25 a "
         "month\n- Swimming pool\n  - Adults: £5 a visit\n  - Seniors: £3 a visit\n",
         "How much do adults pay?", "Adults: £40 a month [1].", "£5 a visit"),
        # of then and now, not of two things
        ("# Swimming\n\n## Prices\n\nAdults pay £6 per swim. Juniors pay £4 per swim.\n\n"
         "Before the refurbishment, adults paid £5 per swim. Seniors paid £3 per swim.\n",
         "How much is a swim?", "Adults pay £6 per swim [1]. Juniors pay £4 per swim [1].",
         "Seniors"),
        # one word in two numbers is one word
        ("# Vaccines\n\nAdults need 2 doses of the vaccine. Children need 1 dose of the "
         "vaccine.\n", "How many doses of the vaccine do I need?",
         "Adults need 2 doses of the vaccine [1]. Children need 1 dose of the vaccine [1].", ""),
        # a sentence that opens as the sibling does is no place to read the run from
        ("# Leisure centre\n\n## Membership\n\nSenior membership at the leisure centre is for "
         "people aged 65 and over.\n\nAdult membership at the leisure centre costs £40 a month."
         "\n\nUntil 31 March 2025:\n\n- Senior membership at the leisure centre costs £20 a "
         "month.\n", "How much is membership?",
         "Adult membership at the leisure centre costs £40 a month [1].", "Senior"),
        # a restriction right after a sibling, a footnote's mark: it is not said alone
        ("# Museum\n\nAdult tickets cost £12. Student tickets cost £8. Student prices apply on "
         "weekdays only.\n", "How much are tickets?", "Adult tickets cost £12 [1].", "£8"),
        ("# Zoo\n\n## Prices\n\nAdult tickets cost £12. Child tickets cost £6*.\n\n*Children "
         "under 3 go free.\n", "How much are tickets?", "Adult tickets cost £12 [1].", "£6"),
        # two doings are no two things
        ("# Rooms\n\nRooms cost £90 a night with breakfast included. Rooms cost £75 a night "
         "with breakfast excluded.\n", "How much is a room with breakfast?",
         "Rooms cost £90 a night with breakfast included [1].", "£75"),
        # a restriction anywhere after the run, or under the sibling's item
        ("# Rail\n\nAnytime tickets cost £45. Off-peak tickets cost £28. Off-peak tickets can't "
         "be used before 09:30.\n", "How much is a ticket?", "Anytime tickets cost £45 [1].",
         "£28"),
        ("# Museum\n\nAdult tickets cost £12. Child tickets cost £6. Senior tickets cost £8. "
         "Concessions are not available in August.\n", "How much are tickets?",
         "Adult tickets cost £12 [1].", "Child"),
        ("# Museum\n\n## Prices\n\n- Adult tickets cost £12.\n- Child tickets cost £6.\n"
         "  - Only on weekdays.\n", "How much are tickets?", "Adult tickets cost £12 [1].",
         "Child"),
        # a restriction in the next paragraph holds too
        ("# Medicine\n\nAdults take 2 tablets every 4 hours. Children take 1 tablet every 4 "
         "hours.\n\nThe children's dose is for ages 12 to 15 only.\n",
         "How many tablets can I take?", "Adults take 2 tablets every 4 hours [1].", "Children"),
        # "park" the verb is no name's word
        ("# Charges\n\nThe Park Road car park costs £2 an hour. The Station Road car park costs "
         "£3 an hour.\n", "How much does it cost to park?",
         "The Park Road car park costs £2 an hour [1]. The Station Road car park costs £3 an "
         "hour [1].", ""),
        # the question names one of the names, in lower case
        ("# Regulations\n\nThe pass mark for BSc Nursing is 50%. The pass mark for BA History "
         "is 40%.\n", "what is the nursing pass mark", "The pass mark for BSc Nursing is 50%",
         "History"),
    ],
)  # fmt: skip
def test_a_sibling_stands_in_one_run_with_the_first(
    generator: ExtractiveGenerator, text: str, question: str, said: str, not_said: str
) -> None:
    """A third review's cases, read as an indexed folder reads them: a
    sibling in other words is said only from the first's own run of
    sentences of their shape, never across a heading path, a lead, a
    scoping sentence or a list's parent item, nor of another time."""
    answer = generator.generate(question, hits_of(*_markdown_chunks("page", text)))
    assert answer.text.startswith(said), answer.text
    if not_said:
        assert not_said not in answer.text, answer.text


def test_a_page_of_another_office_gives_no_sibling(generator: ExtractiveGenerator) -> None:
    """A fifth review's case: two pages titled apart by the sentences' own
    words ("Full-time annual leave", "Part-time annual leave") but whose
    front matter names two offices are two offices' rules, not siblings."""
    pages = [
        _markdown_chunks(
            f"leave-{kind.lower()}",
            f"---\noffice: {office}\n---\n# {kind} annual leave\n\n{kind} employees get "
            f"{days} days of annual leave.\n",
        )[0]
        for kind, office, days in (("Full-time", "London", 25), ("Part-time", "Austin", 10))
    ]
    answer = generator.generate("How many days of annual leave do employees get?", hits_of(*pages))
    assert "Part-time" not in answer.text, answer.text
    assert "25 days" in answer.text, answer.text


@pytest.mark.parametrize(
    "banner",
    ["This page is archived and no longer updated.", "Child prices are only valid on weekdays."],
)
def test_a_page_that_limits_what_it_says_gives_no_sibling(
    generator: ExtractiveGenerator, banner: str
) -> None:
    """A sixth review's cases: another page titled apart by the sentences'
    own words is a sibling only where nothing on it dates or limits them."""
    pages = [
        _markdown_chunks("adult-tickets", "# Adult tickets\n\nAdult tickets cost £12.\n")[0],
        _markdown_chunks(
            "child-tickets", f"# Child tickets\n\n{banner}\n\nChild tickets cost £4.\n"
        )[0],
    ]
    answer = generator.generate("How much are tickets?", hits_of(*pages))
    assert answer.text.startswith("Adult tickets cost £12"), answer.text
    assert "£4" not in answer.text, answer.text


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "What is the resit fee and when is the resit deadline?",
            ["What is the resit fee?", "When is the resit deadline?"],
        ),
        (
            "how much is an inter-library loan and how long does it take?",
            ["How much is an inter-library loan?", "How long does an inter-library loan take?"],
        ),
        (  # no question mark, a pronoun after "is"
            "how much is a resident card and how long is it valid",
            ["How much is a resident card?", "How long is a resident card valid?"],
        ),
        (
            "When does the Northgate library open and close?",
            ["When does the Northgate library open?", "When does the Northgate library close?"],
        ),
        (
            "What do the children need to bring and wear?",
            ["What do the children need to bring?", "What do the children need to wear?"],
        ),
        (
            "How many employees does the Denver office have, and when was it opened?",
            [
                "How many employees does the Denver office have?",
                "When was the Denver office opened?",
            ],
        ),
        (  # the thing, not where it is asked of
            "Can I rent a sleeping bag at the hut, and how much is it?",
            ["Can I rent a sleeping bag at the hut?", "How much is a sleeping bag?"],
        ),
        (
            "When was version 2.0 released and what does it add?",
            ["When was version 2.0 released?", "What does version 2.0 add?"],
        ),
        ("What's the fee? When is it due?", ["What is the fee?", "When is the fee due?"]),
        (  # what is said before the question is said with each part
            "I'm a student. How much is the gym and can I pay monthly?",
            ["I'm a student. How much is the gym?", "I'm a student. Can I pay monthly?"],
        ),
        (  # (and the part after an opening clause is not capitalised)
            "If I'm sick, who do I tell and when do I need a fit note?",
            ["If I'm sick, who do I tell?", "If I'm sick, when do I need a fit note?"],
        ),
        (  # a plural noun as the subject after a modal
            "What platforms does Notewise run on and can administrators read private memories?",
            ["What platforms does Notewise run on?", "Can administrators read private memories?"],
        ),
        # one question of two things, which one sentence may answer
        ("What are the opening hours and prices?", None),
        ("Which plans include SSO and can be paid monthly?", None),
        ("How much does it cost to hire a harness and shoes?", None),
        ("How much annual leave do employees get, and how much sick leave?", None),
        ("How much does a double room cost and is parking included?", None),
        ("When and where is the 2025 AGM?", None),
        ("What happens if I'm late and can't attend?", None),
        ("When do you play rock and roll?", None),
        ("Which rooms do you have for bed and breakfast?", None),
        # a sentence after the question that asks nothing of its own
        ("What time does the gym open? On Sundays?", None),
        # a pronoun whose thing the first part's form does not tell
        ("Does the Startup plan include SSO and how much is it?", None),
        ("If I cancel, how much do I pay and when do I get it back?", None),
        ("Which plan is cheapest and does it include SSO?", None),
        ("What is the price of the Pro plan and does it include SSO?", None),
        ("How much does the Pro plan cost per month and does it include SSO?", None),
    ],
)
def test_a_question_of_two_parts_is_told_apart(question: str, parts: list[str] | None) -> None:
    told = question_parts(question)
    assert [part.question for part in told] == (parts or [question])


def test_a_part_is_asked_of_what_the_question_is_about() -> None:
    """A part's subject is what a sentence that answers it must name; a
    pronoun part is said to be unanswered in the asker's words."""
    hours, closing = question_parts("What time do doors open and close?")
    assert (hours.subject, closing.subject) == ("doors", "doors")
    assert hours.paired and closing.paired
    _, later = question_parts("What is the resit fee and when is it due?")
    assert (later.question, later.asked, later.subject) == (
        "When is the resit fee due?",
        "When is it due?",
        "the resit fee",
    )
    # the pronoun is no subject of its part: what the asker needs is
    _, referral = question_parts("How much is a first consultation? Do I need a referral for it?")
    assert referral.subject == "a referral"


RESITS = chunk(
    "docs/resits.md",
    "# Resits\n\nA resit fee of £60 is charged per module. Students may resit a module at most "
    "twice.\n\n## Deadlines\n\nThe deadline to register for a resit is 17 July 2026.\n",
)
LOANS = chunk(
    "docs/loans.md",
    "# Loans\n\nRequests from other library services (inter-library loans) cost £6 and take "
    "about three weeks.\n",
)
CAMPUS = chunk(
    "docs/library.md",
    "# Library\n\nAt the Northgate campus, the library opens at 8 am. At the Northgate "
    "campus, the library closes at 10 pm.\n",
)


def test_each_part_of_a_question_is_answered(generator: ExtractiveGenerator) -> None:
    """The Harrowgate trial's F6: "What is the resit fee and when is the
    resit deadline?" got the fee alone, "When does the Northgate library
    open and close?" nothing; a sentence that answers both parts is said
    once, with one set of citation numbers."""
    both = generator.generate(
        "What is the resit fee and when is the resit deadline?", hits_of(LOANS, RESITS)
    )
    assert both.text == (
        "A resit fee of £60 is charged per module [1]. "
        "The deadline to register for a resit is 17 July 2026 [1]."
    )
    assert [c.number for c in both.citations] == [1]
    assert both.citations[0].chunk_id == RESITS.id
    assert "17 July 2026" in both.citations[0].quote and "£60" in both.citations[0].quote
    assert both.metadata["parts"] == ["What is the resit fee?", "When is the resit deadline?"]
    assert both.metadata["answered"] == [True, True]
    hours = generator.generate("When does the Northgate library open and close?", hits_of(CAMPUS))
    assert "8 am [1]" in hours.text and "10 pm [1]" in hours.text, hours.text
    once = generator.generate(
        "how much is an inter-library loan and how long does it take?", hits_of(RESITS, LOANS)
    )
    assert once.text == (
        "Requests from other library services (inter-library loans) cost £6 and take about "
        "three weeks [1]."
    )
    # two chunks: numbered in the order the parts cite them
    two = generator.generate(
        "How much is an inter-library loan and when is the resit deadline?",
        hits_of(RESITS, LOANS),
    )
    assert two.text.index("£6") < two.text.index("17 July")
    assert [(c.number, c.chunk_id) for c in two.citations] == [(1, LOANS.id), (2, RESITS.id)]
    assert markers(two.text) == [1, 2]


def test_a_part_nothing_answers_is_said_to_be_unanswered(generator: ExtractiveGenerator) -> None:
    """Where it names what no passage names (not left out as if the answer
    were whole); a part whose words no sentence matches is left unsaid, as
    the whole question's answer leaves it (a third review: 20 of 28 such
    claims were false, the answer worded apart from the part)."""
    delivery = chunk(
        "docs/delivery.md",
        "# Delivery\n\nExpress delivery costs £7.99. Orders over £50 get free delivery.\n",
    )
    answer = generator.generate(
        "How much is express delivery and is there a Platinum plan?", hits_of(delivery)
    )
    assert answer.grounded
    assert answer.text == (
        "Express delivery costs £7.99 [1]. "
        + UNANSWERED_PART.format(part="Is there a Platinum plan?")
    )
    assert answer.metadata["answered"] == [True, False]
    # a name in a condition is no thing asked about (a fourth review: "in October")
    when = generator.generate(
        "How much is express delivery and does it run in December?", hits_of(delivery)
    )
    assert when.text == "Express delivery costs £7.99 [1].", when.text
    first = generator.generate(
        "Is there a Stroma Island route, and when is the resit deadline?", hits_of(RESITS)
    )
    assert first.text.startswith(UNANSWERED_PART.format(part="Is there a Stroma Island route?"))
    assert first.text.endswith("17 July 2026 [1]."), first.text
    # no name the passages lack: worded apart, maybe ("within 3 days"), so unsaid
    silent = generator.generate(
        "How much is express delivery and how long does it take?", hits_of(delivery)
    )
    assert silent.text == "Express delivery costs £7.99 [1]."
    assert_not_found(
        generator.generate(
            "Is there a Stroma Island route and who is the CEO of Acme?", hits_of(RESITS)
        )
    )


GYM = chunk(
    "docs/gym.md",
    "# Riverside Gym\n\n## Prices\n\nAdult membership costs £40 a month. Student membership "
    "costs £25 a month.\n\n## Opening hours\n\nThe gym opens at 6am every day.\n",
)
PRINTING = chunk(
    "docs/library.md",
    "# Library\n\n## Printing\n\nYou pay for printing with your student card. Colour printing "
    "costs 20p per page.\n",
)


def test_a_part_asked_alone_keeps_to_what_the_question_is_about(
    generator: ExtractiveGenerator,
) -> None:
    """A first review's cases: a part too short to say what it is about is
    not answered from another page ("How do I pay?": the library's
    printing), a sentence of another thing is no answer to a part ("The bar
    closes at 11pm" to "... doors open and close?"), and a part let go for
    that is not said to be unanswered."""
    pay = generator.generate("How much is gym membership and how do I pay?", hits_of(GYM, PRINTING))
    assert (
        pay.text
        == "Adult membership costs £40 a month [1]. Student membership costs £25 a month [1]."
    )
    assert "printing" not in pay.text
    theatre = chunk(
        "docs/theatre.md", "# The Lyric\n\nDoors open at 7pm. The bar closes at 11pm.\n"
    )
    doors = generator.generate("What time do doors open and close?", hits_of(theatre))
    assert doors.text == "Doors open at 7pm [1].", doors.text


def test_what_the_whole_question_gets_is_never_left_out(generator: ExtractiveGenerator) -> None:
    """A second review's cases: where a part asked alone finds nothing (or
    something let go), what the question asked whole finds is said too, and
    no part is then said to be unanswered (its sentence may answer it)."""
    dentist = chunk(
        "docs/prices.md",
        "# Prices\n\nA scale and polish costs £60. Children under 18 are treated free on the "
        "NHS.\n",
    )
    question = "How much is a scale and polish and is it free for children?"
    whole = generator._answer(question, hits_of(dentist), (), [])
    answer = generator.generate(question, hits_of(dentist))
    for sentence in split_sentences(re.sub(r" \[\d+\]", "", whole.text)):
        assert sentence.rstrip(".") in answer.text, answer.text
    assert "could not find" not in answer.text


def test_two_parts_join_into_one_cited_answer(generator: ExtractiveGenerator) -> None:
    """One set of numbers, each [n] cited, each quote holding what is said
    from it; a sentence that holds another is said in its place, once."""
    club = chunk(
        "docs/club.md",
        "# Pet health club\n\nThe pet health club costs £14.50 a month for dogs and £11 a month "
        "for cats. It covers boosters, flea treatment and two check-ups a year.\n",
    )
    answer = generator.generate(
        "How much is the pet health club for cats and what does it cover?", hits_of(RESITS, club)
    )
    assert answer.text.count("£11 a month") == 1, answer.text
    assert "It covers boosters" in answer.text
    answer = generator.generate(
        "How old must I be, what do I need to bring and how much is the deposit?",
        hits_of(
            chunk(
                "docs/hire.md",
                "# Car hire\n\nDrivers must be at least 21 years old. Bring your driving licence "
                "and a credit card. We hold a deposit of £250 on your credit card.\n",
            )
        ),
    )
    assert answer.metadata["parts"] == [
        "How old must I be?",
        "What do I need to bring?",
        "How much is the deposit?",
    ]
    assert "£250 on your credit card [1]" in answer.text, answer.text
    two = generator.generate(
        "How much is an inter-library loan and when is the resit deadline?", hits_of(RESITS, LOANS)
    )
    for text in (answer.text, two.text):
        numbers = sorted(set(markers(text)))
        assert numbers == list(range(1, len(numbers) + 1)), text
    for citation in two.citations:
        said = [s for s in split_sentences(two.text) if f"[{citation.number}]" in s]
        assert said and all(re.sub(r" \[\d+\]\.$", "", s) in citation.quote for s in said), (
            said,
            citation.quote,
        )


def test_a_part_is_held_to_its_own_subject_and_said_once(generator: ExtractiveGenerator) -> None:
    """A third review's cases: a part's subject is held whole ("lane
    swimming", not the "swimming" of another heading); "check-out" is one
    word, so a short part is held to the question's page; a deprecated
    page's notice is said once."""
    pool = chunk(
        "docs/pool.md",
        "# Pool\n\n## Lane swimming\n\nLane swimming runs until 9am every morning.\n\n"
        "## Swimming lessons\n\nChildren start at Stage 1 from age 4.\n",
    )
    lanes = generator.generate("When does lane swimming start and finish?", hits_of(pool))
    assert "Stage 1" not in lanes.text, lanes.text
    camp = chunk("docs/camp.md", "# Camping\n\nA tent pitch costs £22 a night.\n")
    vault = chunk(
        "docs/vault.md",
        "# Two-step login\n\nTwo-step login adds a second check when you sign in.\n",
    )
    pitch = generator.generate(
        "How much is a tent pitch and when is check-out?", hits_of(camp, vault)
    )
    assert pitch.text == "A tent pitch costs £22 a night [1].", pitch.text
    old = replace(
        chunk(
            "docs/prices-2021.md",
            "# Prices (2021)\n\nA basic service costs £35. A full service costs £75.\n",
        ),
        metadata={"source": "docs/prices-2021.md", "deprecated": True},
    )
    both = generator.generate(
        "How much is a basic service and how much is a full service?", hits_of(old)
    )
    assert both.text.count(FROM_DEPRECATED) == 1, both.text
    assert "£35" in both.text and "£75" in both.text


def test_a_later_part_is_asked_first_of_the_other_parts_pages(
    generator: ExtractiveGenerator,
) -> None:
    """A fourth review's cases: the barn's balance, whatever the hits'
    order; a current page's price over a deprecated page's; Band F's row,
    not Band A's."""
    barn = chunk(
        "docs/barn.md",
        "# Weddings at the barn\n\nThe barn seats 140 guests. The balance is due 12 weeks before "
        "the wedding.\n",
    )
    cottage = chunk(
        "docs/cottage.md", "# Holiday cottage\n\nThe balance is due 6 weeks before arrival.\n"
    )
    question = "How many guests does the barn seat and when is the balance due?"
    for hits in (hits_of(cottage, barn), hits_of(barn, cottage)):
        answer = generator.generate(question, hits)
        assert "12 weeks" in answer.text and "6 weeks" not in answer.text, answer.text
    current = chunk(
        "docs/baggage.md",
        "# Baggage\n\n## Checked bags\n\n| Weight | Online | At the airport |\n|---|---|---|\n"
        "| 15 kg | £25 | £50 |\n| 20 kg | £32 | £60 |\n\n## Sports equipment\n\nSkis and golf "
        "clubs cost £45 each way. Bikes cost £60 each way and must be boxed.\n",
    )
    old = replace(
        chunk(
            "docs/baggage-2023.md",
            "## Checked bags\n\nA 20 kg checked bag costs £28 online.\n\n## Sports equipment"
            "\n\nSkis cost £35 each way.\n",
        ),
        metadata={"source": "docs/baggage-2023.md", "deprecated": True},
    )
    skis = generator.generate(
        "How much are skis and how much is a 20 kg bag?", hits_of(current, old)
    )
    assert "£35" not in skis.text and FROM_DEPRECATED not in skis.text, skis.text
    assert "£32" in skis.text
    bands = chunk(
        "docs/council-tax.md",
        "# Council tax\n\n## Bands\n\n| Band | Annual charge |\n|---|---|\n| A | £1,542 |\n"
        "| B | £1,799 |\n| C | £2,056 |\n",
    )
    band = generator.generate("How much is Band F and how much is Band B?", hits_of(bands))
    assert "£1,542" not in band.text and "£1,799" in band.text, band.text


def test_a_parts_opening_clause_is_no_answer_to_it(generator: ExtractiveGenerator) -> None:
    """A third review's case: the opening clause said with each part ("When
    I arrive, ...") matched "You can arrive from 2pm" for "where do I
    park?"; a sentence must say a word of what the part itself asks."""
    camp = chunk(
        "docs/campsite.md",
        "# Campsite\n\n## Pitches and prices\n\n| Pitch | Per night | Sleeps |\n|---|---|---|\n"
        "| Tent pitch | £22 | 2 adults |\n| Bell tent | £85 | 4 people |\n\nElectric hook-up "
        "costs £6 a night.\n\n## Arriving and leaving\n\nYou can arrive from 2pm. Please leave "
        "your pitch by 11am. The gate is locked at 10.30pm.\n\n## Dogs\n\nDogs are welcome at £2 "
        "a night. Dogs must be kept on a lead at all times.\n\n## Facilities\n\nHot showers are "
        "free. There is no Wi-Fi on site.\n",
    )
    answer = generator.generate(
        "When I arrive, where do I park and where do I check in?", hits_of(camp)
    )
    assert "arrive from 2pm" not in answer.text, answer.text


def test_allowed_to_is_asked_as_can(generator: ExtractiveGenerator) -> None:
    """ "Am I allowed to ...?" asks yes or no, as "Can I ...?" does: the rule
    that says it need not say "allowed" ("Paddleboards are only for ages 14
    and over"), and a sentence that says "allowed" of another thing (fishing)
    is no answer. "When am I allowed to ...?" asks when I can: not a rule of
    where I cannot."""
    activities = chunk(
        "docs/activities.md",
        "# Activities\n\n## Kayak hire\n\nKayak hire includes a buoyancy aid and paddle. Children "
        "under 12 must share a double kayak with an adult. Paddleboards are only for ages 14 and "
        "over.\n\n## Fishing\n\nFishing on the river is allowed from the River Field bank with a "
        "day permit. It costs £7 per day for adults and £3 for under-16s.\n",
    )
    for question in (
        "I'm 12, am I allowed to use a paddleboard?",
        "Am I allowed to use a paddleboard?",
        "Are we permitted to use the paddleboards?",
    ):
        answer = generator.generate(question, hits_of(activities))
        assert answer.grounded and "14 and over" in answer.text, (question, answer.text)
        assert "Fishing" not in answer.text, (question, answer.text)
    fishing = generator.generate("Am I allowed to fish on the river?", hits_of(activities))
    assert "allowed from the River Field bank" in fishing.text, fishing.text
    rules = chunk(
        "docs/rules.md",
        "# Site rules\n\n## Bonfires\n\nBonfires are not allowed at any time on plots 101 to 142, "
        "which border the houses on Mill Close. Elsewhere, bonfires are permitted only between "
        "1 November and 28 February, and only after 6 pm.\n",
    )
    for question in ("When am I allowed to have a bonfire?", "When can I have a bonfire?"):
        when = generator.generate(question, hits_of(rules))
        assert "1 November and 28 February" in when.text, (question, when.text)
        # ("plots 101 to 142" says where, not when)
        assert "101" not in when.text, (question, when.text)


def test_as_can_reads_only_who_may() -> None:
    from ragloom.builtin.generators._questions import as_can

    assert as_can("I'm 12, am I allowed to use a paddleboard?") == (
        "I'm 12, can I use a paddleboard?"
    )
    # ("Where am I allowed to eat?": the page may say "allowed")
    assert as_can("Where are we permitted to camp?") == "Where are we permitted to camp?"
    assert as_can("Are dogs allowed in the rooms?") == "Are dogs allowed in the rooms?"
    # ("it" is no one who would: "Can it park here?" asks another thing)
    assert as_can("Is it allowed to park here?") == "Is it allowed to park here?"


def test_a_places_number_says_no_time() -> None:
    from ragloom.builtin.generators._figures import fits_kind

    assert not fits_kind("time", "Bonfires are not allowed on plots 101 to 142.")
    assert not fits_kind("time", "The ferry leaves from platform 2.")
    assert fits_kind("time", "The ferry leaves from platform 2 at 9:15.")
    assert fits_kind("time", "Plots are inspected every 3 months.")


CONTACT = chunk(
    "docs/contact.md",
    "# Contact\n\n## Contact us\n\n| Team | Phone | Hours |\n|---|---|---|\n"
    "| Sales and quotes | 0800 612 4400 | Mon–Fri 8am–8pm, Sat 9am–5pm |\n"
    "| Claims | 0800 612 4470 | 24 hours |\n| Complaints | 0800 612 4490 | Mon–Fri 9am–5pm |\n",
)
CLAIMS = chunk(
    "docs/claims.md",
    "# Making a claim\n\n## How to make a claim\n\nReport a claim within 30 days of the "
    "incident. Thefts must be reported to the police within 48 hours, and you will need a crime "
    "reference number.\n\nClaims can be made online or by phone on 0800 612 4470. The claims "
    "line is open 24 hours a day, 7 days a week.\n",
)


def test_what_number_to_ring_asks_a_phone_number(generator: ExtractiveGenerator) -> None:
    """ "What number do I ring?" asks a phone number however it is written (the
    question is read in lower case, and "do I" was matched in capitals only):
    "a crime reference number" is none."""
    for question in (
        "what number do i ring to make a claim",
        "What number do I call to make a claim?",
        "Which number should we call to make a claim?",
    ):
        answer = generator.generate(question, hits_of(CLAIMS))
        assert "0800 612 4470" in answer.text, (question, answer.text)
        assert "crime reference" not in answer.text, (question, answer.text)


def test_a_compound_subject_is_not_its_sibling(generator: ExtractiveGenerator) -> None:
    """ "When is the complaints line open?" where the pages name complaints:
    "The claims line is open 24 hours" is of another line, and the
    complaints team's row, whose hours say when it is open, answers."""
    for hits in (hits_of(CLAIMS, CONTACT), hits_of(CONTACT, CLAIMS)):
        answer = generator.generate("When is the complaints line open?", hits)
        assert "9am–5pm" in answer.text and "24 hours" not in answer.text, answer.text
    claims = generator.generate("When is the claims line open?", hits_of(CLAIMS, CONTACT))
    assert "24 hours" in claims.text, claims.text
    # (where no page names complaints, "the claims line" is not told apart: no refusal
    # is made on a word the pages do not know)
    from ragloom.builtin.generators._subjects import _subject_compound

    assert _subject_compound("When is the complaints line open?") == ({"complaint"}, "lin")
    assert _subject_compound("When is the line open?") is None


def test_a_row_of_other_months_says_no_hour_of_the_month_asked(
    generator: ExtractiveGenerator,
) -> None:
    """A row labelled with months that leave out the month asked is of
    another season: the shop's hours of September to October are not
    November's (and Easter starts a span: "Easter to June" holds April)."""
    shop = chunk(
        "docs/facilities.md",
        "# Facilities\n\n## Shop\n\n| Season | Shop opening hours |\n|---|---|\n"
        "| Easter to June | 8am to 6pm |\n| July and August | 7:30am to 9pm |\n"
        "| September to October | 8am to 5pm |\n",
    )
    november = generator.generate("What time does the shop open in November?", hits_of(shop))
    assert not november.grounded, november.text
    for month, hours in (("April", "8am to 6pm"), ("August", "7:30am"), ("October", "8am to 5pm")):
        answer = generator.generate(f"What time does the shop open in {month}?", hits_of(shop))
        assert hours in answer.text, (month, answer.text)


FERRY_CHANGES = chunk(
    "docs/faq.md",
    "# FAQ\n\n## Changing a booking\n\nVehicle bookings can be changed free of charge up to 48 "
    "hours before departure. Changes made later cost £12. Foot passenger tickets are flexible."
    "\n\n## Hotels\n\nWe do not pay for hotels, except when the last sailing of the day is "
    "cancelled and you are travelling with a vehicle booking; then we cover up to £90 per room "
    "for one night.\n",
)


def test_the_other_side_of_a_bound_is_said_after_it(generator: ExtractiveGenerator) -> None:
    """ "Free of charge up to 48 hours before" holds for changes made 48 hours
    or more before: to a question about less than 48 hours before, the
    sentence after it that says the case past the bound is quoted with it."""
    later = generator.generate(
        "How much does it cost to change a vehicle booking less than 48 hours before?",
        hits_of(FERRY_CHANGES),
    )
    assert "£12" in later.text, later.text
    # (the side asked: nothing past it is needed)
    early = generator.generate(
        "Can I change a vehicle booking more than 48 hours before departure?",
        hits_of(FERRY_CHANGES),
    )
    assert "free of charge" in early.text and "£12" not in early.text, early.text
    refunds = chunk(
        "docs/refunds.md",
        "# Refunds\n\nRefunds for orders under 30 days old take 5 working days. Orders over 30 "
        "days old get store credit instead of a refund.\n",
    )
    old = generator.generate(
        "How long does a refund take for orders over 30 days old?", hits_of(refunds)
    )
    assert "store credit" in old.text, old.text
    from ragloom.builtin.generators._bounds import bounds

    assert bounds("free of charge up to 48 hours before departure") == {("48", "hour"): "far"}
    assert bounds("less than 48 hours before") == {("48", "hour"): "near"}
    assert bounds("Delivery takes up to 5 days.") == {}
    assert bounds("After 30 days, annual plans are not refunded.") == {("30", "day"): "far"}


REFUNDS = (
    "# Billing policy\n\n## Refunds\n\nMonthly plans are not refunded, in whole or in part. "
    "If you cancel an annual plan within 30 days of purchase, you get a full refund. After 30 "
    "days, annual plans are not refunded. Overage charges are never refunded.\n\n"
    "## Cancellation\n\nYou can cancel at any time from Settings > Billing.\n"
)


def test_the_sentence_past_a_bound_is_of_the_thing_asked(generator: ExtractiveGenerator) -> None:
    """ "Standard items can be returned within 30 days" holds 20 days, but of
    another kind of item than the sale item asked."""
    page = (
        "# Returns\n\nSale items can be returned within 14 days of delivery. Standard items can "
        "be returned within 30 days for a full refund.\n"
    )
    answer = generator.generate(
        "Can I return a sale item 20 days after delivery?", hits_of(*_markdown_chunks("r", page))
    )
    assert "Standard items" not in answer.text, answer.text


@pytest.mark.parametrize(
    ("question", "past"),
    [
        ("Can I get a refund if I cancel my annual plan after two months?", True),
        ("Do I get a refund if I cancel my annual plan 45 days after purchase?", True),
        ("Can I get a refund on an annual plan after 30 days?", True),
        ("Can I get a refund if I cancel my annual plan after 10 days?", False),
        ("Can I get a refund if I cancel my annual plan?", False),
    ],
)
def test_a_length_of_time_past_a_bound_is_said_with_the_sentence_past_it(
    generator: ExtractiveGenerator, question: str, past: bool
) -> None:
    """ "within 30 days" bounds the refund; a question 45 days or two months
    on is past it, and the next sentence says what holds there."""
    answer = generator.generate(question, hits_of(*_markdown_chunks("billing", REFUNDS)))
    assert answer.text.startswith("If you cancel an annual plan within 30 days"), answer.text
    assert ("annual plans are not refunded" in answer.text) is past, answer.text


def test_eligible_for_is_asked_as_can_get(generator: ExtractiveGenerator) -> None:
    """ "Am I eligible for ...?" asks yes or no ("am" opens one), and "You get
    free prescriptions if ..." says it without the word "eligible"."""
    page = chunk(
        "docs/prescriptions.md",
        "# Prescriptions\n\nYou get free prescriptions if you are 60 or over, or if you have a "
        "valid exemption certificate. Otherwise each item costs £9.90.\n",
    )
    answer = generator.generate("Am I eligible for free prescriptions if I'm 60?", hits_of(page))
    assert "60 or over" in answer.text, answer.text


def test_a_short_number_to_call_is_a_phone_number(generator: ExtractiveGenerator) -> None:
    """ "call 111" gives a number to call though it has too few digits for a
    telephone number's shape."""
    clinic = chunk(
        "docs/contact.md",
        "# Contact\n\nTo book or cancel an appointment call 01632 960 123. For urgent medical help "
        "when we are closed, call 111.\n",
    )
    answer = generator.generate(
        "What number can I call when the surgery is closed?", hits_of(clinic)
    )
    assert "111" in answer.text and "01632" not in answer.text, answer.text
    from ragloom.builtin.generators._figures import fits_kind

    assert fits_kind("phone", "If your power is off, call 105 free from any phone.")
    assert not fits_kind("phone", "Call 999 minutes free each month.")


def test_a_sibling_is_told_apart_only_where_the_pages_set_it_apart(
    generator: ExtractiveGenerator,
) -> None:
    """A sentence of another thing of the asked kind is left out where the
    pages set the two apart (rows of one table, headings, or a sentence
    that names the asked one), not where a word of the question is merely
    said elsewhere: "the reception desk" may be the front desk, and "Our
    phone lines" are every line."""
    hotel = [
        chunk("docs/guide.md", "# Hotel guide\n\nThe reception desk is open 24 hours a day.\n"),
        chunk("docs/parking.md", "# Parking\n\nThe car park is at the front of the hotel.\n"),
    ]
    desk = generator.generate("When is the front desk open?", hits_of(*hotel))
    assert "24 hours" in desk.text, desk.text
    lines = [
        chunk(
            "docs/contact.md",
            "# Contact\n\nOur phone lines are open 8am to 6pm on weekdays. The claims line is "
            "also open on Saturdays, 9am to 1pm.\n",
        ),
        chunk(
            "docs/complaints.md", "# Complaints\n\nWe aim to resolve complaints within 8 weeks.\n"
        ),
    ]
    complaints = generator.generate("When is the complaints line open?", hits_of(*lines))
    assert "8am to 6pm" in complaints.text and "Saturdays" not in complaints.text, complaints.text
    bins = [
        chunk(
            "docs/collections.md",
            "# Bin collections\n\nGreen bins are collected every other "
            "Monday from March to November.\n",
        ),
        chunk(
            "docs/bins.md",
            "# Your bins\n\nBlack bins are for general waste. Recycling goes in the blue bin.\n",
        ),
    ]
    black = generator.generate("When are black bins collected?", hits_of(*bins))
    assert "every other Monday" not in black.text, black.text
    green = generator.generate("When are green bins collected?", hits_of(*bins))
    assert "every other Monday" in green.text, green.text


def test_a_rows_season_is_read_from_its_label() -> None:
    from ragloom.builtin.generators._columns import label_months

    assert label_months("1 November to 28 February") == {11, 12, 1, 2}
    assert label_months("Late May to early September") == {5, 6, 7, 8, 9}
    assert label_months("Easter holidays") == {3, 4}
    assert label_months("Easter to June") == {3, 4, 5, 6}
    assert label_months("Jan, Feb, Mar") == {1, 2, 3}
    assert label_months("31 January") == frozenset()  # a day: a deadline, no season
    assert label_months("Guests may stay") == frozenset()


def test_a_season_row_answers_its_months(generator: ExtractiveGenerator) -> None:
    """A row whose label's season holds the month asked says that month ("in
    December": "November to February"); a question across seasons keeps
    each; the hours of a span say when a thing closes."""
    garden = chunk(
        "docs/gardens.md",
        "# Gardens\n\n## Opening times\n\n| Season | Opening hours |\n|---|---|\n"
        "| March to October | 10am to 6pm |\n| November to February | 10am to 4pm |\n",
    )
    for month, hours in (("December", "10am to 4pm"), ("February", "10am to 4pm")):
        answer = generator.generate(f"What time does the garden close in {month}?", hits_of(garden))
        assert hours in answer.text and "6pm" not in answer.text, (month, answer.text)
    castle = chunk(
        "docs/castle.md",
        "# Castle\n\n| Period | Hours |\n|---|---|\n| Easter holidays | 10am to 5pm |\n"
        "| Summer holidays | 9am to 6pm |\n",
    )
    april = generator.generate("When is the castle open in April?", hits_of(castle))
    assert "10am to 5pm" in april.text, april.text


def test_a_span_of_hours_says_when_only_of_what_it_names(generator: ExtractiveGenerator) -> None:
    """ "The London office is open from 8am to 7pm" says when the office
    closes, not the museum; "... and reopens on 2 January" says when it opens."""
    museum = chunk(
        "docs/museum.md",
        "# Museum\n\nThe museum opens at 10am on weekdays. The museum opens at 9am at weekends.\n",
    )
    office = chunk(
        "docs/office.md",
        "# London office\n\nThe London office has 120 employees. The London office is open from "
        "8am to 7pm.\n",
    )
    answer = generator.generate("What time does the museum close?", hits_of(museum, office))
    assert "London office" not in answer.text, answer.text
    closes = generator.generate("What time does the London office close?", hits_of(museum, office))
    assert "8am to 7pm" in closes.text, closes.text
    christmas = chunk(
        "docs/office-hours.md",
        "# Office\n\nOffice hours: Mon–Fri 9am–5pm.\n\n## Christmas\n\nThe office closes at 1pm on "
        "24 December and reopens on 2 January.\n",
    )
    over = generator.generate("When is the office open over Christmas?", hits_of(christmas))
    assert "24 December" in over.text, over.text


def test_no_fee_of_the_kind_asked_is_its_sum(generator: ExtractiveGenerator) -> None:
    """ "The Junior Plan has no joining fee" says the joining fee (none),
    though no figure is in it; "no hidden fees" is no sum of a joining fee."""
    faq = chunk(
        "docs/plans.md",
        "# Plans\n\n## Junior Plan\n\nChildren whose parent is on the Complete Plan join the "
        "Junior Plan free of charge.\n\n## FAQ\n\n**Is there a joining fee?** There is a one-off "
        "joining fee of £20 for the Essential and Complete plans. The Junior Plan has no joining "
        "fee.\n",
    )
    answer = generator.generate("Is there a joining fee for the Junior Plan?", hits_of(faq))
    assert "no joining fee" in answer.text, answer.text
    hidden = chunk("docs/fees.md", "# Fees\n\nThere are no hidden fees.\n")
    none = generator.generate("How much is the joining fee?", hits_of(hidden))
    assert not none.grounded, none.text


def test_an_exception_after_a_rule_is_said_with_it(generator: ExtractiveGenerator) -> None:
    """ "10% off all service packages" is followed by "The discount does not
    apply to the Safety Check" where the question asks about the Safety
    Check; an exception of something not asked ("except on medical
    grounds") is not added."""
    shop = chunk(
        "docs/services.md",
        "# Services\n\n| Package | Price |\n|---|---|\n| Safety Check | £35 |\n"
        "| Standard Service | £75 |\n\n## Discounts\n\nStudents and NHS staff get 10% off all "
        "service packages with valid ID. The discount does not apply to the Safety Check.\n",
    )
    answer = generator.generate(
        "I'm a student. How much would a Safety Check cost me?", hits_of(shop)
    )
    assert "does not apply to the Safety Check" in answer.text and "£35" in answer.text, answer.text
    gym = chunk(
        "docs/membership.md",
        "# Membership\n\nMonthly members must give one calendar month's notice to cancel. Annual "
        "memberships are not refundable after the first 14 days, except on medical grounds.\n",
    )
    notice = generator.generate(
        "How much notice do I need to give to cancel my membership?", hits_of(gym)
    )
    assert "medical grounds" not in notice.text, notice.text


def test_a_sentence_past_a_bound_must_speak_of_the_same_doing(
    generator: ExtractiveGenerator,
) -> None:
    """The sentence after a bound is said with it only where it speaks of
    what the bound's sentence does: "Later changes to your vehicle details
    are free" follows no rule of pet places, and "Classes made later in the
    evening are quieter" says nothing of cancelling."""
    pets = chunk(
        "docs/pets.md",
        "# Pets\n\nPet places can be booked up to 48 hours before departure. Later changes to "
        "your vehicle details are free.\n",
    )
    answer = generator.generate(
        "Can I book a pet place less than 48 hours before departure?", hits_of(pets)
    )
    assert "vehicle details" not in answer.text, answer.text
    classes = chunk(
        "docs/classes.md",
        "# Classes\n\nClasses can be cancelled up to 12 hours before the start time. Classes made "
        "later in the evening are quieter.\n",
    )
    cancel = generator.generate(
        "Can I cancel a class less than 12 hours before it starts?", hits_of(classes)
    )
    assert "quieter" not in cancel.text, cancel.text


def test_a_count_after_call_is_no_phone_number() -> None:
    from ragloom.builtin.generators._figures import fits_kind

    for text in ("You can text 160 characters.", "We call 250 suppliers a year."):
        assert not fits_kind("phone", text), text
    assert fits_kind("phone", "In an emergency, ring 999.")


def test_a_label_that_is_a_name_or_a_holiday(generator: ExtractiveGenerator) -> None:
    """ "April Jones" names a person, no month; "Christmas holidays" are
    December's (and January's)."""
    from ragloom.builtin.generators._columns import label_months

    assert label_months("April Jones") == frozenset()
    assert label_months("Christmas holidays") == {12, 1}
    castle = chunk(
        "docs/castle.md",
        "# Castle\n\n| Period | Hours |\n|---|---|\n| Easter holidays | 10am to 5pm |\n"
        "| Summer holidays | 9am to 6pm |\n| Christmas holidays | 11am to 3pm |\n",
    )
    december = generator.generate("When is the castle open in December?", hits_of(castle))
    assert "11am to 3pm" in december.text and "10am to 5pm" not in december.text, december.text


def test_hours_of_another_doing_say_no_opening(generator: ExtractiveGenerator) -> None:
    """ "Pay and display charges apply 8am–6pm" says not when the car park
    closes; a line of hours alone ("Bar: 12pm–11pm") says when the bar opens;
    a table row of another desk ("Claims desk") is not the complaints desk."""
    park = chunk(
        "docs/parking.md",
        "# Car park\n\nThe car park has 200 spaces. Pay and display charges apply 8am–6pm.\n",
    )
    answer = generator.generate("What time does the car park close?", hits_of(park))
    assert "8am–6pm" not in answer.text, answer.text
    bar = chunk("docs/bar.md", "# Bar and restaurant\n\nRestaurant: 6pm–10pm.\n\nBar: 12pm–11pm.\n")
    opens = generator.generate("What time does the bar open?", hits_of(bar))
    assert "12pm–11pm" in opens.text and "6pm–10pm" not in opens.text, opens.text
    desks = [
        chunk(
            "docs/desks.md",
            "# Desks\n\n| Desk | Hours |\n|---|---|\n| Claims desk | 9am–5pm |\n"
            "| Enquiries desk | 10am–4pm |\n",
        ),
        chunk("docs/complaints.md", "# Complaints\n\nComplaints can be sent by email.\n"),
    ]
    desk = generator.generate("When is the complaints desk open?", hits_of(*desks))
    assert "9am–5pm" not in desk.text and "10am–4pm" not in desk.text, desk.text


def test_a_question_of_what_is_not_done(generator: ExtractiveGenerator) -> None:
    """ "When is fishing not allowed?" is answered by the sentence that says
    it is not, never by "Fishing ... is allowed from the River Field bank"."""
    fishing = chunk(
        "docs/activities.md",
        "# Activities\n\n## Fishing\n\nFishing on the river is allowed from the River Field bank "
        "with a day permit. You must also hold a national rod licence. Fishing is not allowed from "
        "15 March to 15 June, during the closed season.\n",
    )
    answer = generator.generate("When is fishing not allowed?", hits_of(fishing))
    assert "15 March to 15 June" in answer.text and "River Field" not in answer.text, answer.text


CLIMBING = chunk(
    "docs/opening-hours.md",
    "# Opening hours\n\n| Day | Opening hours |\n|---|---|\n| Monday to Friday | 7am to 10pm |\n"
    "| Saturday | 9am to 9pm |\n| Sunday | 9am to 6pm |\n\n## Café\n\nThe café serves coffee, "
    "sandwiches and cakes. It opens at 8am on weekdays and closes at 8pm. They accept card "
    "payments only.\n\n## Courses\n\n| Course | Day and time |\n|---|---|\n"
    "| Learn to Climb | Tuesdays, 7pm |\n",
)


def test_the_days_a_sentence_names_and_the_thing_it_is_of(generator: ExtractiveGenerator) -> None:
    """ "What time does the café open on Saturdays?": "It opens at 8am on
    weekdays" says other days (where a page names Saturday), and the
    centre's Saturday row is not the café's (the café has its own section);
    the centre's own hours need not name the centre."""
    saturday = generator.generate("What time does the café open on Saturdays?", hits_of(CLIMBING))
    assert not saturday.grounded, saturday.text
    tuesday = generator.generate("What time does the café open on Tuesdays?", hits_of(CLIMBING))
    assert "8am on weekdays" in tuesday.text and "Learn to Climb" not in tuesday.text, tuesday.text
    centre = generator.generate("What time does the centre open on Saturdays?", hits_of(CLIMBING))
    assert "9am to 9pm" in centre.text, centre.text
    from ragloom.builtin.generators._columns import days_said

    assert days_said("Mon–Sat 10am–5pm") == frozenset(range(6))
    assert days_said("The dog sat in the sun.") is None


def test_when_a_thing_closes_is_said_by_its_hours(generator: ExtractiveGenerator) -> None:
    """ "What time does the museum close?": "Children leave the museum at 3pm"
    says a time of the museum, not when it closes."""
    museum = chunk(
        "docs/museum.md",
        "# Museum\n\n## Opening times\n\nThe museum opens at 10am on weekdays.\n",
    )
    school = chunk(
        "docs/school.md",
        "# School trips\n\n## Times\n\nChildren need to arrive at 8am. Children leave the museum "
        "at 3pm.\n",
    )
    gym = chunk("docs/gym.md", "# Gym\n\nThe gym closes at 10pm.\n")
    answer = generator.generate("What time does the museum close?", hits_of(museum, school, gym))
    assert "3pm" not in answer.text and "10pm" not in answer.text, answer.text


def test_a_third_reviews_cases(generator: ExtractiveGenerator) -> None:
    """A negated question is answered by a sentence's exception ("every day
    except Mondays"), and "What can't I bring?" asks of bringing; "Members
    pay no booking fee" is no booking fee for everyone; "Off-peak fares are
    not valid on Saturdays" excepts nothing of child tickets; "shuts at 8pm"
    and "available 7am until 9pm" say when a thing closes."""
    pool = chunk("docs/pool.md", "# Pool\n\nThe pool is open 7am–9pm every day except Mondays.\n")
    answer = generator.generate("When is the pool not open?", hits_of(pool))
    assert "except Mondays" in answer.text, answer.text
    bags = chunk(
        "docs/bags.md",
        "# Bags\n\nYou can bring a small bag into the galleries. Glass bottles are not allowed.\n",
    )
    bring = generator.generate("What can't I bring into the galleries?", hits_of(bags))
    assert "small bag" not in bring.text, bring.text
    fees = chunk(
        "docs/booking.md",
        "# Booking\n\nA booking fee of £2 applies to each ticket. Members pay no booking fee.\n",
    )
    fee = generator.generate("How much is the booking fee?", hits_of(fees))
    assert "£2" in fee.text, fee.text
    fares = chunk(
        "docs/fares.md",
        "# Fares\n\nChild tickets cost £3 on Saturdays. Off-peak fares are not valid on Saturdays "
        "for adults.\n",
    )
    child = generator.generate("How much is a child ticket on Saturdays?", hits_of(fares))
    assert "Off-peak" not in child.text, child.text
    shop = chunk("docs/shop.md", "# Shop\n\nThe shop shuts at 8pm.\n")
    shuts = generator.generate("What time does the shop close?", hits_of(shop))
    assert "8pm" in shuts.text, shuts.text
    lido = chunk("docs/lido.md", "# Pool\n\nThe pool is available 7am until 9pm.\n")
    closes = generator.generate("What time does the pool close?", hits_of(lido))
    assert "9pm" in closes.text, closes.text


def test_weekdays_as_schedules_write_them() -> None:
    from ragloom.builtin.generators._columns import days_said

    assert days_said("Tues–Thurs 9am–5pm") == {1, 2, 3}
    assert days_said("Open between Monday and Friday") == {0, 1, 2, 3, 4}
    assert days_said("Mondays and Fridays") == {0, 4}
    assert days_said("The Sun Inn is open late.") is None
    assert days_said("Sat beside the harbour, the café is busy.") is None


def test_a_yes_no_questions_object_and_its_conditions(generator: ExtractiveGenerator) -> None:
    """The thing a yes/no question's verb acts on is a word its answer says
    ("Can you repair my e-bike battery?" is not answered by "We repair
    e-bikes"); and the words of its "if" clause are conditions, so they
    leave its own words the keys ("Is there a discount if I pay annually?")."""
    ebikes = chunk(
        "docs/ebikes.md",
        "# E-bikes\n\nWe repair and service pedal-assist e-bikes with Bosch motors.\n",
    )
    battery = generator.generate("Can you repair my e-bike battery?", hits_of(ebikes))
    assert not battery.grounded, battery.text
    renewal = chunk(
        "docs/renewal.md",
        "# Renewal\n\nPolicies renew every year. If you pay annually, you can switch to monthly "
        "payments at renewal.\n",
    )
    discount = generator.generate(
        "Is there a discount if I pay annually instead of monthly?", hits_of(renewal)
    )
    assert not discount.grounded, discount.text


def test_opening_hours_and_speeds_are_figures_of_their_kind(
    generator: ExtractiveGenerator,
) -> None:
    """ "What are the laundry opening hours?" asks times of day ("The laundry
    is next to the shower block" says none); "How fast is the Wi-Fi?" a
    speed ("All memberships include Wi-Fi" says none), while "How fast is a
    refund?" still asks a time."""
    marina = chunk(
        "docs/facilities.md",
        "# Facilities\n\nThe laundry is next to the shower block. The showers are open 24 hours.\n",
    )
    laundry = generator.generate("What are the laundry opening hours?", hits_of(marina))
    assert not laundry.grounded, laundry.text
    desks = chunk(
        "docs/memberships.md",
        "# Memberships\n\nAll memberships include Wi-Fi, tea and coffee, and printing up to 100 "
        "pages a month.\n",
    )
    wifi = generator.generate("How fast is the Wi-Fi?", hits_of(desks))
    assert not wifi.grounded, wifi.text
    fibre = chunk("docs/wifi.md", "# Wi-Fi\n\nAll desks have Wi-Fi. The connection is 900 Mbps.\n")
    fast = generator.generate("How fast is the Wi-Fi?", hits_of(fibre))
    assert "900 Mbps" in fast.text, fast.text
    refunds = chunk(
        "docs/refunds.md", "# Refunds\n\nRefunds are processed within 5 working days.\n"
    )
    refund = generator.generate("How fast is a refund?", hits_of(refunds))
    assert "5 working days" in refund.text, refund.text


def test_the_column_of_the_group_asked_is_its_price(generator: ExtractiveGenerator) -> None:
    """ "per hour for a charity": of the two columns the question names, the
    group's ("Charities: £9") is its price, not everyone's ("Per hour: £18")."""
    rooms = chunk(
        "docs/rooms.md",
        "# Room hire\n\n| Room | Per hour | Charities |\n|---|---|---|\n"
        "| Garden Room | £18 | £9 |\n| Reading Room | £14 | £7.50 |\n",
    )
    charity = generator.generate(
        "How much does the Garden Room cost per hour for a charity?", hits_of(rooms)
    )
    assert "£9" in charity.text and "£18" not in charity.text, charity.text
    everyone = generator.generate("How much does the Garden Room cost per hour?", hits_of(rooms))
    assert "£18" in everyone.text and "£9" not in everyone.text, everyone.text


def test_a_fee_of_another_kind_is_no_answer(generator: ExtractiveGenerator) -> None:
    """ "How much is the monthly fee?": "Every member pays a one-off joining fee
    of £25" prices another fee; "Plus costs a monthly fee of £9" is the one."""
    fees = chunk(
        "docs/membership.md",
        "# Membership\n\nEvery member pays a one-off joining fee of £25.\n\n## Plans\n\n"
        "Plus costs a monthly fee of £9.\n",
    )
    monthly = generator.generate("How much is the monthly fee on Plus?", hits_of(fees))
    assert "£9" in monthly.text and "£25" not in monthly.text, monthly.text
    joining = chunk(
        "docs/join.md", "# Joining\n\nEvery member pays a one-off joining fee of £25.\n"
    )
    none = generator.generate("How much is the monthly fee?", hits_of(joining))
    assert "£25" not in none.text, none.text


def test_hours_of_a_thing_inside_say_not_when_the_place_closes(
    generator: ExtractiveGenerator,
) -> None:
    """ "The shop is open daily 9am–6pm" under "# Museum" says when the shop
    closes, not the museum; "Last entry is at 4pm" is before closing, and
    "We lock the doors at 5pm" is closing."""
    museum = chunk(
        "docs/museum.md",
        "# Museum\n\nThe museum is open Tuesday to Saturday, 10am–5pm. The shop is open daily "
        "9am–6pm.\n",
    )
    sunday = generator.generate("What time does the museum close on Sundays?", hits_of(museum))
    assert "9am–6pm" not in sunday.text, sunday.text
    doors = chunk("docs/visit.md", "# Museum\n\nLast entry is at 4pm. We lock the doors at 5pm.\n")
    closes = generator.generate("What time does the museum close?", hits_of(doors))
    assert "5pm" in closes.text and "Last entry" not in closes.text, closes.text


def test_a_sentence_pricing_several_things_is_said_for_the_one_asked(
    generator: ExtractiveGenerator,
) -> None:
    """ "The Main Hall costs £4,500 per evening, The Loft £1,200, and the Cellar
    Bar £450": asked about the Loft, the answer says the Loft's clause, and its
    citation quotes the whole sentence; asked about the Main Hall, the first."""
    venue = chunk(
        "docs/hire.md",
        "# Private hire\n\nThe Main Hall costs £4,500 per evening, The Loft £1,200, and the "
        "Cellar Bar £450.\n",
    )
    loft = generator.generate("How much does it cost to hire The Loft?", hits_of(venue))
    assert "The Loft £1,200 per evening" in loft.text, loft.text  # (its gapped unit)
    assert "£4,500" not in loft.text and "£450" not in loft.text, loft.text
    assert "The Loft £1,200, and the Cellar Bar £450." in loft.citations[0].quote
    hall = generator.generate("how much is the main hall", hits_of(venue))
    assert "£4,500 per evening" in hall.text and "£1,200" not in hall.text, hall.text
    both = generator.generate("How much are The Loft and the Cellar Bar?", hits_of(venue))
    assert "£1,200" in both.text and "£450" in both.text, both.text


def test_a_clause_named_after_its_sum_keeps_the_subject_of_all(
    generator: ExtractiveGenerator,
) -> None:
    """ "Excess Cover costs £6 per month for Regular members and £8 per month
    for Flex members": the Flex clause is said with what both price, and the
    next sentence with it; a question naming none of the groups gets it whole."""
    cover = chunk(
        "docs/cover.md",
        "# Excess Cover\n\nExcess Cover costs £6 per month for Regular members and £8 per "
        "month for Flex members. It is included at no charge in the Business plan.\n",
    )
    flex = generator.generate("How much is Excess Cover for Flex members?", hits_of(cover))
    assert "Excess Cover costs £8 per month for Flex members." in flex.text, flex.text
    assert "£6" not in flex.text, flex.text
    whole = generator.generate("How much does Excess Cover cost?", hits_of(cover))
    assert "£6" in whole.text and "£8" in whole.text, whole.text


def test_a_sentence_of_sums_is_said_whole_where_its_clauses_share_a_condition(
    generator: ExtractiveGenerator,
) -> None:
    """Two sums for one thing ("$99 a month, or $84 a month billed annually")
    and a condition on every sum (", except on Bank Holidays") are said whole."""
    plans = chunk(
        "docs/plans.md",
        "# Plans\n\nThe Business plan costs $99 a month, or $84 a month billed annually.\n",
    )
    business = generator.generate("How much is the Business plan?", hits_of(plans))
    assert "$99" in business.text and "$84" in business.text, business.text
    tickets = chunk(
        "docs/tickets.md",
        "# Tickets\n\nAdults pay £10 and children £5, except on Bank Holidays when prices "
        "double.\n",
    )
    child = generator.generate("How much do children pay?", hits_of(tickets))
    assert "£5" in child.text and "Bank Holidays" in child.text, child.text


def test_a_clause_is_said_with_what_the_list_shares_or_not_at_all(
    generator: ExtractiveGenerator,
) -> None:
    """The clause asked is said with the opening every clause shares ("During
    school holidays,", "Swimming:"); "£10 for Adults and Seniors, and £5 for
    Children" prices seniors at £10; a question that names another clause's
    thing besides ("an Off-Peak Return to Leeds", Leeds in the Anytime
    clause) gets the whole sentence, as does one whose last words hold for
    every sum."""
    cases = {
        "How much is entry for a senior?": (
            "During school holidays, adults pay £14, children £9 and seniors £11.",
            "During school holidays, seniors £11",
            "£14",
        ),
        "How much is it for juniors?": (
            "Swimming: adults £5.20, juniors £3.10, seniors £4.00.",
            "Swimming: juniors £3.10",
            "£5.20",
        ),
        "How much do seniors pay for a ticket?": (
            "Tickets cost £10 for Adults and Seniors, and £5 for Children.",
            "Tickets cost £10 for Adults and Seniors",
            "£5",
        ),
        "How much is an Off-Peak Return to Leeds?": (
            "An Anytime Return to Leeds costs £38.40, an Off-Peak Return £24.10, and a Super "
            "Off-Peak Return £19.80.",
            "an Off-Peak Return £24.10",
            None,
        ),
        "How much does parking at Riverside cost on a Sunday?": (
            "Parking at Riverside costs £1 per hour, and at the Town Centre £2 per hour, and "
            "Sunday parking is free everywhere.",
            "Sunday parking is free everywhere",
            None,
        ),
    }
    for question, (sentence, said, left_out) in cases.items():
        page = chunk("docs/prices.md", f"# Entry and parking prices\n\n{sentence}\n")
        answer = generator.generate(question, hits_of(page))
        assert said in answer.text, (question, answer.text)
        if left_out is not None:
            assert left_out not in answer.text, (question, answer.text)


def test_a_sentence_that_leans_on_the_place_before_is_read_with_it(
    generator: ExtractiveGenerator,
) -> None:
    """ "Colour printing is not available there." leans on the sentence before
    (its "there" is last, before the period); "User tried to print in colour
    in Singapore" tells of an attempt, no answer to "Can I ...?" alone; a
    ticket's "Requested a ThinkPad for a new engineer" is no how-to."""
    ticket = chunk(
        "docs/tickets.md",
        "# HD-1002 Cannot print in Singapore\n\nUser tried to print in colour in Singapore. "
        "Colour printing is not available there. Closed.\n",
    )
    colour = generator.generate("Can I print in colour in Singapore?", hits_of(ticket))
    assert "not available there" in colour.text, colour.text
    laptop = chunk(
        "docs/laptops.md",
        "# HD-1003 New laptop request\n\nRequested a ThinkPad X1 Carbon for a new engineer. "
        "Delivered in 4 days.\n",
    )
    how = generator.generate("How do I request a new laptop?", hits_of(laptop))
    assert "Requested a ThinkPad" not in how.text, how.text


def test_rules_that_ask_or_say_what_was_done_still_answer(
    generator: ExtractiveGenerator,
) -> None:
    """ "Guests are asked to ...", "... but the largest room holds 20" and
    "Approved by your manager, the request goes to IT" are rules, not a
    ticket's log; a "there" after a sentence that names no place ("They take
    a £1 coin. Padlocks are sold there.") leans on nothing."""
    cases = {
        "Do I have to take my shoes off in the prayer room?": (
            "Guests are asked to remove their shoes in the prayer room.",
            "remove their shoes",
        ),
        "Can I book a meeting room for 30 people?": (
            "User tried to book a meeting room for 30 people, but the largest room holds 20.",
            "the largest room holds 20",
        ),
        "How do I get new software installed?": (
            "Approved by your manager, the request goes to IT. IT installs the software "
            "within 2 days.",
            "the request goes to IT",
        ),
        "How much do lockers cost at the gym?": (
            "Lockers are in the changing rooms. They take a £1 coin. Padlocks are sold there.",
            "£1 coin",
        ),
    }
    for question, (text, said) in cases.items():
        page = chunk("docs/page.md", f"# Gym, rooms and software\n\n{text}\n")
        answer = generator.generate(question, hits_of(page))
        assert said in answer.text, (question, answer.text)
    lockers = generator.generate(
        "How much do lockers cost at the gym?",
        hits_of(
            chunk(
                "docs/gym.md",
                "# Gym\n\nLockers are in the changing rooms. They take a £1 coin. Padlocks "
                "are sold there.\n",
            )
        ),
    )
    assert "Padlocks" not in lockers.text, lockers.text


def test_what_a_page_says_of_a_kind_it_says_of_the_thing_asked(
    generator: ExtractiveGenerator,
) -> None:
    """ "Vehicles must check in at least 40 minutes before departure" answers
    "with a car?", and "Pets are not accepted in the restaurant" "Do you
    accept dogs?"; "Other vehicles" are not the car a page prices apart."""
    ferry = chunk(
        "docs/ferry.md",
        "# Check-in\n\nFoot passengers must check in at least 15 minutes before departure. "
        "Vehicles must check in at least 40 minutes before departure.\n",
    )
    car = generator.generate("How early do I need to check in with a car?", hits_of(ferry))
    assert "40 minutes" in car.text and "15 minutes" not in car.text, car.text
    hotel = chunk(
        "docs/hotel.md",
        "# Restaurant\n\nBreakfast is served from 7am. Pets are not accepted in the restaurant.\n",
    )
    dogs = generator.generate("Do you accept dogs in the restaurant?", hits_of(hotel))
    assert "Pets are not accepted" in dogs.text, dogs.text
    rooms = chunk(
        "docs/rooms.md",
        "# Pets\n\nPets are welcome in all ground-floor rooms for £15 per night. Breakfast is "
        "served from 7am.\n",
    )
    bring = generator.generate("Can I bring my dog?", hits_of(rooms))
    assert "Pets are welcome" in bring.text, bring.text
    parking = chunk(
        "docs/parking.md", "# Parking\n\nCars pay £5 a day. Other vehicles: £8 a day.\n"
    )
    cars = generator.generate("How much is parking for a car?", hits_of(parking))
    assert "£5" in cars.text and "£8" not in cars.text, cars.text
    # (a kind said of some of it, or naming another thing, is no answer)
    for text in ("Vehicles over 5 m pay £20 per day.", "Our pet health club costs £12 a month."):
        page = chunk("docs/prices.md", f"# Prices\n\n{text}\n")
        for question in ("How much is parking for my car?", "How much is it for my dog?"):
            answer = generator.generate(question, hits_of(page))
            assert not answer.grounded, (question, answer.text)


def test_a_price_of_a_kind_is_the_price_of_the_thing_asked(
    generator: ExtractiveGenerator,
) -> None:
    """ "A pet costs £15 per night" prices a dog and a cat, however the
    question words it ("How much does a cat cost?": "cost" is its verb, no
    kind of cat), and in a part of a question of two; "Assistance dogs
    travel free" does not price a pet dog."""
    hotel = chunk(
        "docs/hotel.md",
        "# Prices\n\nRooms cost £90 per night. A pet costs £15 per night. Breakfast is served "
        "from 7am.\n",
    )
    for question in (
        "How much does it cost to bring my dog?",
        "What is the charge for a dog?",
        "How much does a cat cost?",
    ):
        answer = generator.generate(question, hits_of(hotel))
        assert "A pet costs £15" in answer.text and "£90" not in answer.text, (question, answer)
    cabin = chunk(
        "docs/baggage.md",
        "# Travelling with pets\n\nSmall dogs and cats can travel in the cabin in a carrier up "
        "to 8 kg. Pets in the cabin cost £50 each way. Assistance dogs travel free.\n",
    )
    both = generator.generate("Can I bring my dog and how much does it cost?", hits_of(cabin))
    assert "£50" in both.text and "Assistance dogs" not in both.text, both.text
    # (not where the page prices the thing itself, some of the kind, another
    # thing, or names other things of the kind)
    traps = {
        "How much does it cost to bring my dog?": "Pets cost £15 per night. Dogs cost £25 per "
        "night.",
        "How much does it cost to park my car?": "Commercial vehicles cost £12 per day. Cars cost "
        "£6 per day.",
        "How much does it cost to bring my cat?": "Exotic pets cost £30 per night.",
        "How much is insurance for my dog?": "Pets cost £15 per night.",
        "How much does it cost to groom my dog?": "Pets cost £15 per night. Grooming is "
        "available on request.",
        "How much does a motorbike cost?": "Vehicle cost: cars £45, vans £60.",
        "How much does it cost for my daughter?": "Older children cost £25. Adults cost £35.",
    }
    for question, text in traps.items():
        answer = generator.generate(question, hits_of(chunk("docs/fees.md", f"# Fees\n\n{text}\n")))
        said = answer.text if answer.grounded else ""
        assert not any(
            wrong in said
            for wrong in ("Pets cost £15", "Commercial", "Exotic", "Vehicle cost", "Older")
        ), (question, answer.text)
    own = generator.generate(
        "How much does it cost to bring my dog?",
        hits_of(
            chunk("docs/fees.md", "# Fees\n\nPets cost £15 per night. Dogs cost £25 per night.\n")
        ),
    )
    assert "£25" in own.text, own.text
    # ("a corporate membership" is still a kind the passages do not know, also
    # where "do" is the question's verb, not the one that asks)
    gym = ["Family membership costs £88. Joint membership costs £60."]
    for question in (
        "Do you do a corporate membership?",
        "Does the gym do a corporate membership?",
    ):
        assert unknown_kind(question, gym) == "corporate", question
    assert unknown_kind("How much does a cat cost?", ["Rooms cost £90. A pet costs £15."]) is None


def test_a_row_whose_band_holds_the_figure_asked_is_its_price(
    generator: ExtractiveGenerator,
) -> None:
    """ "a 12 m boat in July": the row of "10 m to 14 m", in the column of the
    season that holds July ("High season (1 May – 30 Sep)"); "150 g/km": the
    row of "121–180 g/km"."""
    marina = chunk(
        "docs/visitors.md",
        "## Nightly rates\n\n| Boat length | High season (1 May – 30 Sep) | Low season (1 Oct – "
        "30 Apr) |\n|---|---|---|\n| up to 10 m | £38 per night | £26 per night |\n"
        "| 10 m to 14 m | £49 per night | £33 per night |\n| 14 m to 20 m | £68 per night | "
        "£45 per night |\n",
    )
    boat = generator.generate("How much is a night for a 12 m boat in July?", hits_of(marina))
    assert "£49" in boat.text, boat.text
    assert not any(p in boat.text for p in ("£33", "£38", "£68")), boat.text
    permits = chunk(
        "docs/permits.md",
        "## Resident permit prices\n\n| Vehicle emissions (CO2 g/km) | First permit | Second "
        "permit |\n|---|---|---|\n| Electric (0 g/km) | £30 | £60 |\n| 1–120 g/km | £95 | £150 |\n"
        "| 121–180 g/km | £140 | £210 |\n| over 180 g/km | £210 | £300 |\n",
    )
    car = generator.generate(
        "My car emits 150 g/km of CO2. How much is a resident permit?", hits_of(permits)
    )
    assert "£140" in car.text and "£95" not in car.text, car.text
    # (a band of another thing, or of another unit, is no answer)
    berths = chunk(
        "docs/berths.md",
        "## Berths per night\n\n| Berth | Price per night |\n|---|---|\n"
        "| Swinging mooring up to 14 m | £20 |\n",
    )
    pontoon = generator.generate("How much is a pontoon berth for a 12 m boat?", hits_of(berths))
    assert "£20" not in pontoon.text, pontoon.text
    cleaning = chunk(
        "docs/cleaning.md",
        "## Cleaning prices\n\n| Floor area | Price |\n|---|---|\n| Under 500 sq ft | £120 |\n"
        "| 500 to 750 sq ft | £180 |\n",
    )
    flat = generator.generate("What's the cleaning price for a 60 sq m flat?", hits_of(cleaning))
    assert "£120" not in flat.text, flat.text
    # ("Under 10 m" leaves a 10 m boat out; "10 m and over" holds it)
    edges = chunk(
        "docs/moorings.md",
        "## Mooring charges\n\n| Boat length | Per night |\n|---|---|\n| Under 10 m | £30 |\n"
        "| 10 m and over | £45 |\n",
    )
    ten = generator.generate("How much per night for a 10 m boat?", hits_of(edges))
    assert "£45" in ten.text and "£30" not in ten.text, ten.text
    # (a yes/no question is not answered by a band that leaves its figure out)
    delivery = chunk(
        "docs/delivery.md",
        "## Delivery charges\n\n| Distance | Delivery charge |\n|---|---|\n"
        "| Up to 5 miles | Free |\n",
    )
    far = generator.generate("Is delivery free if I live 10 miles away?", hits_of(delivery))
    assert "Free" not in far.text, far.text
    # (the band that holds it says the condition's words: "live ... away")
    bands = chunk(
        "docs/delivery.md",
        "## Delivery charges\n\n| Distance | Delivery charge |\n|---|---|\n"
        "| Up to 5 miles | Free |\n| 6 to 15 miles | £5 |\n| Over 15 miles | £12 |\n",
    )
    ten_miles = generator.generate("Is delivery free if I live 10 miles away?", hits_of(bands))
    assert "£5" in ten_miles.text and "Free" not in ten_miles.text, ten_miles.text
    # (but not of another thing: the delivery charge is no price of assembly)
    for question in (
        "Is assembly free if I live 10 miles away?",
        "Is parking free if I live 2 miles away?",  # (the "Free" cell says no parking)
    ):
        other = generator.generate(question, hits_of(bands))
        assert not other.grounded, (question, other.text)
    # (a table whose columns name no thing is of its heading's: installation)
    two = chunk(
        "docs/prices.md",
        "# Delivery and installation\n\n## Delivery\n\n| Distance | Charge |\n|---|---|\n"
        "| Up to 5 miles | Free |\n| 6 to 15 miles | £5 |\n\n## Installation\n\n"
        "| Distance | Charge |\n|---|---|\n| Up to 5 miles | £25 |\n| 6 to 15 miles | £40 |\n",
    )
    install = generator.generate("Is installation free if I live 3 miles away?", hits_of(two))
    assert "£25" in install.text and "Free" not in install.text, install.text
    # (but is answered by the row of the band that holds it: 25%, no full refund)
    refunds = chunk(
        "docs/cancel.md",
        "## Cancellations\n\n| Notice before arrival | Refund |\n|---|---|\n"
        "| More than 28 days | Full refund |\n| 14 to 28 days | 50% |\n| 7 to 14 days | 25% |\n",
    )
    full = generator.generate(
        "Do I get a full refund if I cancel 10 days before arrival?", hits_of(refunds)
    )
    assert "25%" in full.text and "Full refund" not in full.text, full.text
    # (a figure as people write it: "3,100 kWh", "a 12m boat", "1.5 kg")
    energy = chunk(
        "docs/tariff.md",
        "## Unit rates\n\n| Annual usage | Unit rate |\n|---|---|\n| Up to 2,000 kWh | 28p |\n"
        "| 2,001–4,000 kWh | 26p |\n",
    )
    usage = generator.generate(
        "What unit rate would I pay using 3,100 kWh a year?", hits_of(energy)
    )
    assert "26p" in usage.text and "28p" not in usage.text, usage.text
    written = generator.generate("How much per night for a 12m boat?", hits_of(marina))
    assert "£49" in written.text, written.text
    # (and the age bands of a question of ages are read as they were: "Over-60s
    # travel free" for over-65s, before a day ticket for everyone)
    bus = chunk(
        "docs/bus.md",
        "# Bus fares\n\nA single fare costs £2. Over-60s travel free with a bus pass. A day "
        "ticket costs £5.\n",
    )
    older = generator.generate("How much is a day ticket for over-65s?", hits_of(bus))
    assert "Over-60s travel free" in older.text, older.text


def test_what_was_in_a_year_is_not_what_names_no_year(generator: ExtractiveGenerator) -> None:
    """ "What was the price of the Business plan in 2022?": the plans' table,
    which names no year, says today's prices; a column of the year asked
    says it."""
    plans = chunk(
        "docs/pricing.md",
        "# Pricing\n\n| Plan | Monthly price |\n|---|---|\n| Business | $99 |\n| Team | $29 |\n\n"
        "## Changelog\n\n- April 2022: Tallybird launched with the Team plan.\n",
    )
    past = generator.generate("What was the price of the Business plan in 2022?", hits_of(plans))
    assert "$99" not in past.text, past.text
    now = generator.generate("What is the price of the Business plan?", hits_of(plans))
    assert "$99" in now.text, now.text
    years = chunk(
        "docs/changes.md",
        "# Price changes\n\n| Plan | 2022 price | 2026 price |\n|---|---|---|\n"
        "| Business | $79 | $99 |\n",
    )
    then = generator.generate("What was the Business price in 2022?", hits_of(years))
    assert "$79" in then.text and "$99" not in then.text, then.text


def test_a_row_of_a_page_titled_for_the_thing_asked_prices_it(
    generator: ExtractiveGenerator,
) -> None:
    """ "How much does a garden waste bin cost?": the bin row of the "Garden
    waste subscription" page (its title says the kind the row leaves out),
    and not a row of the trade waste table, which adds no word the garden
    page's title does not say."""

    def section(source: str, text: str, title: str, path: str, index: int = 0) -> Chunk:
        return replace(
            chunk(source, text, index),
            metadata={"source": source, "title": title, "section": path},
        )

    garden = "Garden waste subscription"
    hits = hits_of(
        section(
            "docs/garden-waste.html",
            "# Garden waste subscription\n\nThe garden waste service is an optional paid "
            "subscription. It runs from 1 April 2026 to 31 March 2027.",
            garden,
            garden,
        ),
        section(
            "docs/missed.md",
            "## Damaged or stolen bins\n\nA replacement black bin costs £30 and a replacement "
            "blue bin costs £25, including delivery.\nReplacement food caddies are free.",
            "Missed bins",
            "Missed bins > Damaged or stolen bins",
        ),
        section(
            "docs/garden-waste.html",
            "## Prices\n\n| Option | Price per year | Collections |\n| --- | --- | --- |\n"
            "| Standard 240-litre green-lid bin | £58 | Fortnightly, March to November |\n"
            "| Second 240-litre bin at the same address | £41 | Same as the first bin |\n"
            "| Garden sacks (pack of 10) | £24 | Fortnightly |\n\nResidents who receive "
            "Council Tax Reduction pay half price for their first bin (£29).",
            garden,
            f"{garden} > Prices",
            1,
        ),
        section(
            "docs/business-waste.docx",
            "## Trade waste prices\n\n| Container | Price per lift | Minimum contract |\n"
            "| --- | --- | --- |\n| 240-litre bin | £9.50 | 12 months |\n| 660-litre bin | £18.00 "
            "| 12 months |\n\nTrade recycling lifts cost 40% less than trade general waste lifts.",
            "business-waste",
            "Business waste > Trade waste prices",
        ),
    )
    answer = generator.generate("How much does a garden waste bin cost?", hits)
    assert "£58" in answer.text and "£9.50" not in answer.text, answer.text
    trade = generator.generate("How much is a 240-litre trade waste bin per lift?", hits)
    assert "£9.50" in trade.text and "£58" not in trade.text, trade.text


def test_what_happens_on_a_date_asks_what_is_done_then(generator: ExtractiveGenerator) -> None:
    """ "What happens to collections due on 25 December 2026?": a sentence
    that says the collections of that date is the answer; "happens" is
    how it asks, which no page need say."""
    page = chunk(
        "docs/christmas.txt",
        "CHRISTMAS COLLECTIONS 2026\n\nChristmas 2026:\n- Collections due on Friday 25 December "
        "2026 will be made on Saturday 27 December 2026.\n- Collections due on Monday 28 "
        "December 2026 move to Tuesday 29 December 2026.\n",
    )
    answer = generator.generate(
        "What happens to collections due on 25 December 2026?", hits_of(page)
    )
    assert "Saturday 27 December" in answer.text and "28 December" not in answer.text, answer


def test_a_band_in_brackets_holds_the_figure_and_a_row_of_another_animal_is_none(
    generator: ExtractiveGenerator,
) -> None:
    """ "Dog castration (under 20 kg)" holds a 12 kg dog, before a club's
    "Medium dog (10 to 25 kg)" monthly fee; "Worming tablet | dog | £11" is
    no price for a rabbit (a new-user trial got both wrong)."""
    neutering = chunk(
        "docs/neutering.md",
        "## Prices\n\n| Procedure | Price |\n|---|---|\n| Cat castration | £95 |\n"
        "| Dog castration (under 20 kg) | £260 |\n| Dog castration (20 kg and over) | £320 |\n",
    )
    club = chunk(
        "docs/club.md",
        "## Monthly fees\n\n| Pet | Monthly fee |\n|---|---|\n| Cat | £14 |\n"
        "| Medium dog (10 to 25 kg) | £20 |\n| Large dog (over 25 kg) | £24 |\n",
    )
    castrate = generator.generate(
        "How much does it cost to castrate a 12 kg dog?", hits_of(neutering, club)
    )
    assert "£260" in castrate.text and "£20" not in castrate.text, castrate.text
    medicines = chunk(
        "docs/medicines.csv",
        "| product | species | pack | price |\n| --- | --- | --- | --- |\n"
        "| Worming tablet | dog | 2 tablets | £11 |\n| Worming tablet | cat | 2 tablets | £9 |\n",
    )
    rabbit = generator.generate("How much are worming tablets for a rabbit?", hits_of(medicines))
    assert not rabbit.grounded, rabbit.text
    cat = generator.generate("How much are worming tablets for a cat?", hits_of(medicines))
    assert "£9" in cat.text and "£11" not in cat.text, cat.text


def test_the_subject_of_two_verbs_is_before_the_first_of_them(
    generator: ExtractiveGenerator,
) -> None:
    """ "Repeat prescriptions need 48 hours' notice and cost £16 per item"
    prices repeat prescriptions, not the notice (a new-user trial got a
    refusal)."""
    page = chunk(
        "docs/small-print.md",
        "# Small print\n\nRepeat prescriptions need 48 hours' notice and cost £16 per item. A "
        "pet must have been examined in the last 6 months.\n",
    )
    answer = generator.generate("How much does a repeat prescription cost?", hits_of(page))
    assert "£16 per item" in answer.text, answer.text
