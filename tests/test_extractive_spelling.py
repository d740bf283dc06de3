"""The ``extractive`` answerer reads a question's slips of typing as the hits
spell the word, and leaves every other word as asked."""

from __future__ import annotations

import pytest
from ragloom.builtin.generators._spelling import as_spelled
from ragloom.builtin.generators.extractive import NOT_FOUND, ExtractiveGenerator
from ragloom.types import Hit

from .test_extractive import chunk, hits_of

LEAVE = (
    "## Entitlement by office\n\nIn Lisbon, employees get 25 days of annual leave. "
    "In Toronto, employees get 15 days of annual leave."
)
VPN = (
    "# Setting up the VPN\n\n1. Install GlobalProtect from the Self Service portal.\n"
    "2. Sign in with your SSO username and password."
)
TICKETS = "Adult tickets cost £12. Child tickets cost £6. Check-out is at noon."
FERRY = "The Strome Ferry leaves at 9am. The Kyle ferry leaves at 10am."


@pytest.mark.parametrize(
    ("question", "texts", "read"),
    [
        # a letter missed, in a word and in a name
        (
            "How many days of anual leave in Torronto?",
            [LEAVE],
            "How many days of annual leave in Toronto?",
        ),
        ("how much is a chlid ticket", [TICKETS], "how much is a child ticket"),  # two swapped
        ("how much r tikets", [TICKETS], "how much r tickets"),
        ("how do i log into the vnp", [VPN, "Connect to the VPN."], "how do i log into the vpn"),
        # a verb run together with its particle, said apart on the page
        ("how do i setup the VPN", [VPN], "how do i set up the VPN"),
    ],
)
def test_a_slip_of_typing_is_read_as_the_hits_spell_the_word(
    question: str, texts: list[str], read: str
) -> None:
    assert as_spelled(question, texts) == read


@pytest.mark.parametrize(
    ("question", "texts"),
    [
        # an English word the pages do not use is what tells them they do not answer
        ("Can I bring my cat?", ["Dogs are welcome. A hat is provided."]),
        ("Is there a Platinum plan?", ["The Platina plan costs $20."]),
        # a name with another letter is another name
        ("When does the Stroma ferry leave?", [FERRY]),
        # capitals inside a word: an acronym or a code, as typed
        ("Do you support SSH?", [VPN]),
        # a word the page hyphenates is its word run together
        ("What time is checkout?", [TICKETS]),
        # two of the page's words as near, said as often: neither is guessed
        ("Which carx do I need?", ["Bring your card. Park the cart here."]),
        # a name that ends as a particle does is a name, not a verb and a particle
        ("How much is a swim in Andover?", ["Open the lid and over it goes. A swim costs £4."]),
        # after "the", a run-together word is a noun
        ("Where is the login page?", ["Log in with your email. Members log in at the desk."]),
        # no slip at the first letter: another tool, not the page's
        ("Do you support gzip?", ["Upload a zip file."]),
        ("Can I use cython?", ["We support Python 3.12."]),
        # a lower-case word is read as a name written in capitals only by a swap
        ("Does it work with httpx?", ["It works with HTTP and HTTPS."]),
        # a word the page writes with an apostrophe is its word without one
        ("how much is a womens haircut", ["Women's haircut costs £35."]),
        # a run-together word is read apart only as a page that says another
        # word of the question says it ("log in" of the Wi-Fi page is no reading)
        (
            "how do i login to the vpn",
            ["To connect to eduroam, log in with your email.", "Sign in to the VPN with SSO."],
        ),
        # a British spelling is English, though the dictionary is American
        ("Do you fit tyres?", ["We service all types of vehicle."]),
        ("Is fibre broadband available?", ["The fire alarm is tested on Mondays."]),
        # a word the pages say, or a word of its stem
        ("How many vacations do I get?", ["Each vacation is 5 days."]),
    ],
)
def test_every_other_word_is_left_as_asked(question: str, texts: list[str]) -> None:
    assert as_spelled(question, texts) == question


def _hits(*texts: str) -> list[Hit]:
    return hits_of(*(chunk(f"docs/{i}.md", text) for i, text in enumerate(texts)))


def test_a_question_with_slips_is_answered_as_the_page_spells_it() -> None:
    generator = ExtractiveGenerator()
    question = "How many days of anual leave in Torronto?"
    answer = generator.generate(question, _hits(LEAVE, "Sick leave is 10 days in Lisbon."))
    assert answer.grounded
    assert answer.text == (
        "In Toronto, employees get 15 days of annual leave [1]. "
        "(Read \u201canual\u201d as \u201cannual\u201d and "
        "\u201cTorronto\u201d as \u201cToronto\u201d.)"
    )
    assert answer.metadata["read_as"] == {"anual": "annual", "Torronto": "Toronto"}
    assert answer.question == question  # the answer keeps the question as asked


def test_a_name_read_as_another_is_said_so() -> None:
    # "Tarbet" may be a place of its own: the reading is said, for the asker to tell
    answer = ExtractiveGenerator().generate(
        "When does the ferry leave Tarbet?", _hits("The ferry leaves Tarbert at 9am.")
    )
    assert answer.text == (
        "The ferry leaves Tarbert at 9am [1]. (Read \u201cTarbet\u201d as \u201cTarbert\u201d.)"
    )


def test_an_answer_to_a_question_without_slips_says_no_reading() -> None:
    answer = ExtractiveGenerator().generate(
        "How many days of annual leave in Toronto?", _hits(LEAVE)
    )
    assert answer.text == "In Toronto, employees get 15 days of annual leave [1]."
    assert "read_as" not in answer.metadata


def test_a_name_the_pages_do_not_have_is_still_refused() -> None:
    answer = ExtractiveGenerator().generate("When does the Stroma ferry leave?", _hits(FERRY))
    assert not answer.grounded
    assert answer.text == NOT_FOUND
