"""A question's slips of typing, read as the passages spell the word: "How
many days of anual leave in Torronto?" as "annual leave in Toronto", "how do
i setup the vnp" as "set up the vpn" where the passages say "Setting up the
VPN". The answer says how it read them (``readings``).

A word is read otherwise only where the passages never say it (nor a word of
its stem), and then only:

- as a verb run together with its particle ("setup", "login", "checkout"),
  where the passages say the two apart ("Setting up", "log in"): a verb of
  ``_VERBS``, not after "the" or "a" (the noun: "the login page"), and not a
  capitalised word inside the question ("Andover", "Seaton", "Justin" are
  names, not "and over");
- or, where no English dictionary knows it, as the one word of the passages
  a single forgivable slip away (``ragloom.spelling``: never at the first
  letter, a name never by a mistyped letter, "Stroma" is not "Strome"); a
  lower-case word read as a name the passages write with capitals inside
  only by two letters swapped ("vnp" as "VPN", not "httpx" as "HTTP").

An English word the passages do not use ("Is there a Platinum plan?", "Can I
bring my cat?") is left as asked: that the passages never say it is what
tells them they do not answer. Where two of the passages' words are one slip
away and neither is said more often, the word is left as asked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from ...spelling import SHORTEST, may_be_slip, one_slip_away, swapped
from ._text import content_terms, stem

__all__ = ["Reading", "as_spelled", "readings"]

_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")
_HYPHENATED = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")
_SHORTEST_JOINED = 5
"""A shorter word is not read as two run together."""
_PARTICLES = frozenset({"up", "in", "out", "on", "off", "down", "over", "back", "through", "away"})
"""What a verb run together with its particle ends in ("setup", "login",
"checkout", "walkthrough")."""
_VERBS = frozenset(
    {
        "set", "log", "sign", "check", "pick", "drop", "top", "lock", "make", "clean", "start",
        "back", "walk", "break", "cut", "take", "work", "print", "pop", "roll", "carry", "turn",
        "hand", "stop", "look", "follow", "warm", "wake", "catch", "mix", "line", "build",
        "hook", "mark", "touch", "pay", "give", "get", "run", "hide", "throw", "shut", "count",
        "slow", "cool", "tear", "knock", "put", "hold", "cash", "call", "play", "kick", "push",
        "draw", "fall", "plug", "opt", "lay", "sleep", "hang", "wind", "scale"
    }
)  # fmt: skip
"""The verbs a word run together with a particle may begin with."""
_NOUN_BEFORE = frozenset({"the", "a", "an", "my", "your", "our", "their", "this", "that"})
"""Words after which a run-together word is a noun ("the login page", "the cutoff")."""


class Reading(NamedTuple):
    """A word of the question as typed, and as it is read."""

    typed: str
    read: str
    start: int
    end: int


def as_spelled(question: str, texts: Sequence[str]) -> str:
    """The question with each slip of typing read as the passages (``texts``)
    spell the word; the question itself where it has none."""
    return _read(question, readings(question, texts))


def readings(question: str, texts: Sequence[str]) -> list[Reading]:
    """Each slip of typing in the question, with the passages' word it is read as."""
    words = [m for m in _WORD.finditer(question) if len(m.group()) >= SHORTEST]
    if not words:
        return []
    said = Counter(w for text in texts for w in _WORD.findall(text))
    # (a word they hyphenate is said run together too: "checkout" for "Check-out";
    # and one with an apostrophe without it: "womens" for "Women's")
    said.update(m.replace("-", "") for text in texts for m in _HYPHENATED.findall(text))
    said.update(w.replace("'", "").replace("\u2019", "") for w in list(said) if not w.isalpha())
    lower: Counter[str] = Counter()
    for word, n in said.items():
        lower[word.lower()] += n
    unknown = [m for m in words if m.group().lower() not in lower and _may_slip(m.group())]
    if not unknown:
        return []
    # (nor a word of a stem they say: "vacations" where they say "vacation")
    stems = {stem(w) for w in lower}
    unknown = [m for m in unknown if stem(m.group().lower()) not in stems]
    found: list[Reading] = []
    left: list[re.Match[str]] = []
    for m in unknown:
        slip = _one_slip(m.group(), lower, said)
        if slip is None:
            left.append(m)
        else:
            found.append(Reading(m.group(), slip, m.start(), m.end()))
    if left:
        # (a word run together is read apart as a passage that says another
        # word of the question says it, the slips read: "setup the vnp", the
        # VPN page; any passage where the question says nothing else: "How do
        # I signup?")
        asked = set(content_terms(_read(question, found))) - {
            t for m in left for t in content_terms(m.group())
        }
        pairs = _side_by_side(texts, asked)
        for m in left:
            word = m.group()
            before = question[: m.start()].split()
            noun = bool(before) and before[-1].lower() in _NOUN_BEFORE
            name = word[0].isupper() and m.start() > 0
            read = None if noun or name else _run_together(word, pairs)
            if read is not None:
                found.append(Reading(word, read, m.start(), m.end()))
    return sorted(found, key=lambda r: r.start)


def _read(question: str, found: Sequence[Reading]) -> str:
    """The question with each of ``found`` read in place."""
    for reading in sorted(found, key=lambda r: -r.start):  # (the offsets before stay true)
        question = question[: reading.start] + reading.read + question[reading.end :]
    return question


def _may_slip(word: str) -> bool:
    """Whether a word the passages do not say may be a slip: a verb run
    together with its particle, or a word no English dictionary knows, of
    letters alone and no capital inside ("SSO", "gRPC" are as typed)."""
    lower = word.lower()
    if len(lower) >= _SHORTEST_JOINED and any(lower.endswith(p) for p in _PARTICLES):
        return True
    return may_be_slip(word)


def _side_by_side(texts: Sequence[str], asked: set[str]) -> set[tuple[str, str]]:
    """Each two words a passage says one after the other, the first also as its
    stem ("setting up": ``("set", "up")``), in a passage that says another word
    of the question (``asked``, its content words): "log in" of the Wi-Fi page
    is no reading of "login" in "how do i login to the vpn"."""
    pairs: set[tuple[str, str]] = set()
    for text in texts:
        if asked and not asked & set(content_terms(text)):
            continue
        words = [w.lower() for w in _WORD.findall(text)]
        for first, second in zip(words, words[1:]):
            pairs.add((first, second))
            pairs.add((stem(first), second))
    return pairs


def _run_together(word: str, pairs: set[tuple[str, str]]) -> str | None:
    """ "setup" as "set up" where the passages say "set up" or "setting up"."""
    lower = word.lower()
    if len(lower) < _SHORTEST_JOINED or not lower.isalpha():
        return None
    for cut in range(2, len(lower) - 1):
        verb, particle = lower[:cut], lower[cut:]
        if particle in _PARTICLES and verb in _VERBS and (verb, particle) in pairs:
            return f"{word[:cut]} {word[cut:]}"
    return None


def _one_slip(word: str, lower: Counter[str], said: Counter[str]) -> str | None:
    """The passages' word one slip of typing from ``word``, written as the
    question writes its words (lower case, or capitalised as the passages
    write it); None where the word is English, or no one such word is nearest."""
    found = [
        (candidate, lower[candidate])
        for candidate in one_slip_away(word)
        if candidate in lower and _as_written(word, candidate, said)
    ]
    if not found:
        return None
    found.sort(key=lambda item: (-item[1], item[0]))
    if len(found) > 1 and found[0][1] == found[1][1]:
        return None  # ("carx": "cart" or "card", said as often)
    best = found[0][0]
    if word[0].isupper():
        forms = [(n, w) for w, n in said.items() if w.lower() == best and w[0].isupper()]
        return max(forms)[1] if forms else best.capitalize()
    return best


def _as_written(word: str, candidate: str, said: Counter[str]) -> bool:
    """Whether a lower-case word may be read as a word the passages write only
    with capitals inside it: by two letters swapped ("vnp" as "VPN"), not
    another slip ("httpx" is not "HTTP", nor "pypy" "PyPI")."""
    if not word.islower():
        return True
    forms = [w for w in said if w.lower() == candidate]
    capitals = bool(forms) and all(any(c.isupper() for c in w[1:]) for w in forms)
    return not capitals or swapped(word, candidate)
