"""Whether a sentence gives the kind of answer asked (a price, a date, a
duration, an age, a phone number, ...), and the figures a question gives
rather than asks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ._questions import _DETAILS_ELSEWHERE, _WORD, _as_word
from ._versions import _MONTHS, NAMED_VERSION

__all__ = ["MONEY_FIGURE", "NUMBER_WORDS", "fits_kind", "given_figures"]

NUMBER_WORDS = frozenset(
    {
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
        "eighty", "ninety", "hundred", "thousand", "million", "billion", "unlimited", "dozen",
        "half", "once", "twice",
    }
)  # fmt: skip
_TIME_WORDS = frozenset(
    {
        "second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week",
        "weeks", "month", "months", "year", "years", "daily", "weekly", "monthly", "yearly",
        "annually", "immediately", "instantly", "overnight", "lifetime", "forever",
        "permanently", "indefinitely",
    }
)  # fmt: skip
_NO_BOUND = (
    r"\b(?:no|without(?: a| any)?)\s+(?:(?:fixed|set|hard|upper)\s+)?"
    r"(?:cap|caps|ceiling|limit|limits|maximum|quota|quotas)\b"
)
_NO_CHARGE = r"\b(?:no|without(?: a| any)?)\s+(?:fee|fees|charge|charges|cost)\b|\bfree of charge\b"
_NO_AMOUNT = {
    "money": re.compile(_NO_CHARGE, re.IGNORECASE),
    "much": re.compile(_NO_CHARGE, re.IGNORECASE),
    "count": re.compile(_NO_BOUND, re.IGNORECASE),
    "amount": re.compile(f"{_NO_BOUND}|{_NO_CHARGE}", re.IGNORECASE),
    "time": re.compile(
        r"\b(?:no|without(?: a| any)?)\s+(?:time limit|deadline|expiry|expiration|end date)\b"
        r"|\bnever expires?\b",
        re.IGNORECASE,
    ),
}
"""An amount said in words, for each kind of question: a sum that is none
("no charge", not "no hidden costs"), a count or an amount without a bound
("there is no fixed cap on sick days"), a time without one ("no time
limit"); they hold no number."""
_TIMES = re.compile(r"\b\d+\s*(?:x|times)\b", re.IGNORECASE)
_AMOUNT_WORDS = frozenset({"proportion", "proportional", "half", "unlimited", "percent", "free"})
"""Words that give an amount of something ("in proportion to the hours worked")."""


_DATE_LIKE_PAST = re.compile(
    rf"\b(?:1[89]|20)\d\d\b|\b(?:{_MONTHS})\b|\b\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}\b"
    r"|\b(?:yesterday|today|last (?:week|month|year)|ago)\b",
    re.IGNORECASE,
)
"""A day or a year something happened on ("in March 2022", "on 3/4/2024")."""


_PLACE = re.compile(
    r"\b(?:in|at|from|near|inside|outside|on|under|within|to|into)\s+(?:the\s+|our\s+|your\s+)?"
    r"(?:[A-Z0-9]|[\w-]+\s+(?:page|folder|menu|tab|settings|directory|dashboard|panel|screen|"
    r"server|servers|region|bucket|drive|office|warehouse|building|floor|room)\b)"
    r"|\b(?:page|folder|menu|directory|dashboard|warehouse|address|street|located|headquartered|"
    r"hosted|stored)\b"
)
"""A place in a sentence: a preposition before a name or a number ("in
Leipzig", "at 12 Baker Street", "from the Billing page"), or a word that
says where ("folder", "stored")."""


_GIVEN_FIGURE = re.compile(r"(?<![\w.,:])\d+(?:[.,:]\d+)*")


def given_figures(question: str) -> list[str]:
    """The figures a question gives ("a 90 minute massage", "£250", "4.0"):
    they say what it is about, and none of them is its answer."""
    return sorted(set(_GIVEN_FIGURE.findall(question)))


def fits_kind(kind: str | None, text: str, names: Iterable[str] = ()) -> bool:
    """Whether a sentence can answer a question of that kind: a sum of money
    is written in digits (or is ``free``); a count, an amount or a time may
    be a word; each may be said as none or as no bound (``_NO_AMOUNT``)."""
    if kind is None:
        return True
    if kind == "length" and _DISTANCE.search(text):  # "The route is 42 km"
        return True
    if kind in ("duration", "length"):  # how long: "£68.00" is none, nor "at 09:30"
        return _says_how_long(text)
    if kind == "size":  # how long it must be: "at least 14 characters", not "5 minutes"
        figures = any(ch.isdigit() for ch in text) or bool(
            {w.lower() for w in _WORD.findall(text)} & NUMBER_WORDS
        )
        return figures and not _says_how_long(text)
    if kind == "place":
        return _PLACE.search(text) is not None
    if kind == "clock":  # "at 18:30", "from 6 pm", "at noon", "open 24 hours"
        return _CLOCK_TIME.search(text) is not None
    if kind == "phone":  # "call 01632 960 418", "+44 20 7946 0958", "(555) 010-4477"
        return _SERVICE_NUMBER.search(text) is not None or any(
            sum(c.isdigit() for c in m.group()) >= 7 for m in _PHONE.finditer(text)
        )
    if kind == "email":
        return _EMAIL.search(text) is not None
    if kind == "speed":  # "500 Mbps", "up to 20 mph", "10 knots"
        return _SPEED.search(text) is not None
    # a code's digits (``X200``, ``line N1``) are no figure of it, nor are
    # those of a name the question uses or rivals (``Lab 3``, ``CS 341``), or
    # a figure it gives (``given_figures``), passed in ``names``
    text = _CODE_WORD.sub(" ", text)
    for name in names:
        if any(ch.isdigit() for ch in name):
            text = re.sub(_as_word(name), " ", text)
    # "a two-year warranty": "two" and "year" each
    words = {w.lower().strip(".,;:") for w in _WORD.findall(text.replace("-", " "))}
    digits = any(ch.isdigit() for ch in text)
    words_for_none = _NO_AMOUNT.get(kind)
    if not digits and words_for_none is not None and words_for_none.search(text):
        return True
    if kind == "money":  # a figure that is a sum: "€35", "10 cents", "costs 25 a month",
        # "charged at one third of the daily rate"
        return (
            "free" in words
            or (digits and _CURRENCY.search(text) is not None)
            or _priced(text)
            or _PRICE_IN_WORDS.search(text) is not None
        )
    if kind in ("amount", "much") and _PRICE_IN_WORDS.search(text):
        return True  # "Please ask in a branch for the current Cash ISA rates"
    if kind == "much":  # "how much is/does ...": any figure ("weighs 1.5 kg") or "free"
        return digits or "free" in words
    if kind == "weight":  # "weighs 1.2 kg", "1.2 kg", "a 4 lb bag"
        return _WEIGHT.search(text) is not None
    if kind == "distance":  # "up to 60 km", "two miles", "500 metres away", "a 6-minute walk"
        return _DISTANCE.search(text) is not None or _TRAVEL_TIME.search(text) is not None
    if kind == "age":  # "aged 14 and 15", "at least 18", "under 6", "16 or older"
        return _AGE.search(text) is not None
    if kind in ("count", "amount"):  # "from 1 April" counts nothing, nor "at 09:30",
        # nor "one of the following"
        undated = _NO_FIGURE.sub(" ", _WHEN_FIGURE.sub(" ", text))
        if kind == "count":  # "how many" is no sum and no share ("worth £5,000")
            undated = _SUM_OR_SHARE.sub(" ", undated)
        digits = any(ch.isdigit() for ch in undated)
        if undated != text:
            words = {w.lower().strip(".,;:") for w in _WORD.findall(undated.replace("-", " "))}
        if kind == "count":
            return digits or bool(words & NUMBER_WORDS)
        return digits or bool(words & (NUMBER_WORDS | _AMOUNT_WORDS))
    if kind == "day":  # "on Tuesdays", "on weekdays", "on 14 March", "daily"
        return bool(words & _DAY_WORDS) or bool(_DATE_LIKE.search(text))
    if kind == "percent":  # "30%", "thirty percent", "half"
        return bool(_PERCENT.search(text))
    if kind == "often":  # "5 times", "daily", "every 6 hours", not "until 5:00 am"
        return bool(_OFTEN.search(text))
    if kind == "past" and _CLOCK_TIME.search(text) and not _DATE_LIKE_PAST.search(text):
        return False  # "Opening hours: 08:30-19:30" says not when it opened
    # a time: "N times" is how often, not how long ("retried up to 5 times");
    # a share or a version is no time ("Midterm exam | 20%" does not say when)
    counted = _NOT_TIME.sub(" ", NAMED_VERSION.sub(" ", _TIMES.sub(" ", text)))
    return any(ch.isdigit() for ch in counted) or bool(
        words & (NUMBER_WORDS | _TIME_WORDS | _CALENDAR_WORDS)
    )


_TRAVEL_TIME = re.compile(
    r"(?:\d+|\b(?:a|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty"
    r"|few))\s*-?\s*(?:minutes?|mins?|hours?)(?:['’]s?)?\s+(?:\w+\s+)?(?:walk|drive|ride"
    r"|cycle|journey|trip|away)\b|\b(?:minutes?|hours?)\s+(?:on foot|by (?:car|bus|train|bike"
    r"|tram|taxi))\b",
    re.IGNORECASE,
)
"""How far, said as the time it takes to get there: "a 6-minute walk",
"10 minutes' drive", "20 minutes by bus"."""
_PHONE = re.compile(
    r"(?<![\w.])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,5}\)[\s.-]?)?"
    r"(?:0\d{3,4}[\s.-]\d{6}|\d{2,5}(?:[\s.-]\d{2,5}){1,4})(?![\w.]*\d)"
)
"""A telephone number: two groups of digits or more ("01632 960 418", "01632 960418"), seven
digits at least (``fits_kind``), so that no price or clock time is one."""
_SERVICE_NUMBER = re.compile(
    r"\b(?:call|ring|dial|phone|text|telephone)(?:\s+(?:us\s+)?on)?\s+\d{3,5}\b(?![:.,]\d)"
    # (a number alone, not a count of things: "text 160 characters", "call 250 suppliers")
    r"(?=\s*(?:[.,;:!?)]|$|(?:free|or|and|for|if|to|from|in|at|when|anytime|any|now"
    r"|immediately|straight away)\b))",
    re.IGNORECASE,
)
"""A short number to call ("call 111", "ring 999", "dial 105"), which has
too few digits for ``_PHONE``."""
_SPEED = re.compile(
    r"\d[\d.,]*\s*(?:mbps|mbit/s|mb/s|gbps|gbit/s|kbps|megabits?|gigabits?|mph|km/h|kph"
    r"|knots|miles (?:an|per) hour|kilometres (?:an|per) hour)\b",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_CLOCK_TIME = re.compile(
    r"(?<![\d.,£$€])(?<!version )(?<!v)\d{1,2}[:.]\d\d(?![\d.,]*\d)"
    r"|\b\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)"
    r"|\b\d{1,2}\s*o'clock\b|\b(?:noon|midday|midnight|sunrise|sunset|dawn|dusk)\b"
    r"|\b24 hours\b|\b24/7\b|\baround the clock\b|\bany time\b|\banytime\b",
    re.IGNORECASE,
)
"""A time of day ("18:30", "6 pm", "noon"), or all of them ("open 24 hours")."""


def _says_how_long(text: str) -> bool:
    """Whether ``text`` gives a length of time ("3-5 working days", "two and
    a half hours", "a two-year warranty", "overnight", "from 10:00 to 16:00",
    "no time limit"): not a sum, and not a clock time or a date alone ("leaves
    at 09:30 on the second Saturday of July" says when, not how long)."""
    if _CLOCK_SPAN.search(text) or _NO_AMOUNT["time"].search(text):
        return True
    text = _ORDINAL_SECOND.sub(" ", _WHEN_FIGURE.sub(" ", MONEY_FIGURE.sub(" ", text)))
    if _DURATION.search(text):
        return True
    words = {w.lower().strip(".,;:") for w in _WORD.findall(text)}
    return bool(words & _HOW_LONG_WORDS)


_DURATION = re.compile(
    r"(?:(?<![\w.,])\d[\d.,]*(?:\s*(?:-|–|to|or)\s*\d[\d.,]*)?|\b(?:a|an|one|two|three|four"
    r"|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty"
    r"|ninety|hundred|few|several|couple\s+of|half\s+an?|many))"
    r"(?:\s+and\s+a\s+half)?\s*-?\s*(?:(?:working|business|calendar|full|whole|more)\s+)?"
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|nights?|weeks?|wks?|fortnights?"
    r"|months?|years?|yrs?|decades?|semesters?)\b",
    re.IGNORECASE,
)
"""A figure (or a number word) in a unit of time: "90 minutes", "3-5 working
days", "a two-year warranty", "two and a half hours"."""
_CLOCK_SPAN = re.compile(
    r"\b\d{1,2}[:.]\d\d\s*(?:am|pm)?\s*(?:-|–|to|until|till)\s*\d{1,2}[:.]\d\d\b",
    re.IGNORECASE,
)
"""Two clock times that bound a span ("from 10:00 to 16:00"): how long it runs."""
_ORDINAL_SECOND = re.compile(
    r"\bsecond\s+(?!(?:or|and|to|of|per|each|later|before|after|ago|at|in|on)\b)(?=[a-z])",
    re.IGNORECASE,
)
""""second" as an ordinal ("the second Saturday", "its second stand")."""
_HOW_LONG_WORDS = frozenset(
    {
        "overnight", "indefinitely", "permanently", "forever", "lifetime", "immediately",
        "instantly", "hourly", "fortnight",
    }
)  # fmt: skip


MONEY_FIGURE = re.compile(
    r"[$€£¥₹]\s?\d[\d,.]*"
    r"|(?<![\w.,])\d[\d,.]*\s?(?:[$€£¥]|(?i:USD|EUR|GBP)\b|(?:euros?|dollars?|pounds?|pence)\b)",
)
"""A sum in figures ("£68.00", "25 euros", "30 €")."""
_CURRENCY = re.compile(
    r"[$€£¥₹₩₽¢]|\b(?-i:[A-Z]{3})\s?\d|\d\s?(?-i:[A-Z]{3})\b|\d\s?p\b|\d\s*%"
    r"|\b(?:dollars?|euros?|pounds?|cents?|pence|p|yen|francs?|kronor|kroner|krona|krone|kr"
    r"|rupees?|pesos?|reais|real|yuan|rmb|won|zloty|z\u0142|rand|lira|lei|forint|"
    r"shillings?|dirhams?|riyals?|baht|ringgit|rubles?|roubles?)\b",
    re.IGNORECASE,
)
"""A currency's sign, code or name (or a share: "saves 20%")."""
_PRICED = re.compile(
    r"\b(?:costs?|costing|priced?|prices|pricing|fees?|charged?|charges|pay|pays|paid|paying"
    r"|payable|saves?|saving|savings|discount(?:s|ed)?|rates?|fares?|tariffs?|surcharges?"
    r"|deposits?|refund(?:ed|s)?|billed|worth)\b"
    # words and the gaps between them never overlap: linear on "costs ------"
    r"[^\w'’-]+(?:[\w'’-]+[^\w'’-]+){0,3}?"
    r"(?:\d|(?:half|third|thirds|quarter|quarters|double|twice|triple)\b)",
    re.IGNORECASE,
)
"""A figure a few words after a word that prices: "costs 25 a month",
"charged at one third of the daily rate" (not the "12 months" of "a
minimum term of 12 months, except the Plus tier paid annually")."""
_DATE_FIGURE = re.compile(
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?i:{_MONTHS}|may)\b|\d{{1,2}}:\d\d\b"
    rf"|\d{{1,2}}\.\d\d\s*(?i:am|pm|h)\b|\d+\s*(?i:am|pm)\b"
    rf"|\d{{4}}-\d\d"
    # a time, not a sum: "Deposits are returned within 30 days"
    r"|\d+\s*(?i:days?|weeks?|months?|years?|hours?|minutes?|working days?)\b",
)
_BEFORE_DATE = re.compile(rf"(?i:{_MONTHS}|may)\s+$")


def _priced(text: str) -> bool:
    """Whether a figure follows a word that prices, and is no date or clock
    time ("Fees are due on 1 June" says when, not how much)."""
    for match in _PRICED.finditer(text):
        figure = match.end() - 1
        before = text[max(0, figure - 12) : figure]
        if _DATE_FIGURE.match(text, figure) is None and _BEFORE_DATE.search(before) is None:
            return True
    return False


_PRICE_IN_WORDS = re.compile(
    r"\b(?:pric(?:e|es|ing)|fees?|costs?)\s+(?:is|are)\s+(?:custom|negotiable|quoted|on request)\b"
    r"|\b(?:custom|individual|negotiated) pricing\b|\bprice on request\b"
    rf"|(?:^|\.\s+)(?:{_DETAILS_ELSEWHERE})"
    r"|\b(?:one|a|two|three|four|six|\d+)\s+(?:day|week|month|year)s?['’]s?\s+"
    r"(?:fee|fees|rent|price|payment|membership|charge)\b",
    re.IGNORECASE,
)
"""A price said in words: "Enterprise pricing is custom", "Please contact
our development team for details", "Details will be published here when
it launches" (no sum, and the documents say so)."""

_WEIGHT = re.compile(
    r"(?:\d|\b(?i:one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty"
    r"|thirty|forty|fifty|hundred)(?:-\w+)?)\s*"
    r"(?:(?i:kg|lbs?|oz)|(?-i:g|mg|t)|(?i:kilo(?:gram)?s?|grams?|pounds|ounces?|tonnes?|tons?))\b"
    r"|\b(?i:weigh(?:s|ed|ing)?)\b"
)
"""A weight: a figure in a unit of mass, or a sentence that says what weighs what."""

_DISTANCE = re.compile(
    r"(?:(?<![\d,.])\d[\d,.]*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty"
    r"|fifty|hundred))\s*(?:km|kilomet(?:er|re)s?|mi|miles?|(?-i:m)|met(?:er|re)s?|yards?|feet"
    r"|ft)\b(?!\s+(?:downloads?|users?|views?|members?|customers?|people)\b)",
    re.IGNORECASE,
)
"""A distance: a figure in a unit of length (not the "5M" of "5M downloads")."""
_NO_AGE = (
    r"[.,:]\d|\s*[%$€£]|\s*(?:km|kg|m|mi|miles?|met(?:er|re)s?|kilo\w*|grams?|g|lbs?|percent|per"
    r"|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|seconds?|people|persons?|guests?|members?"
    r"|items?|pages?|GB|MB|TB|euros?|dollars?|pounds?|cents?|times?|mph|kph)\b"
)
"""What follows a figure that is no age ("under 20 kg", "over 50%")."""
_AGE = re.compile(
    r"\bage[ds]?\b|\byears? old\b|\b(?:at least|under|over|below|above) \d+\b(?!" + _NO_AGE + r")"
    r"|\b\d+ (?:or|and) (?:over|older|under|younger|above)\b|\b\d+\+"
    # how old a thing is: "built in 1280", "founded in 1998", "since the 12th century"
    r"|\b(?:built|founded|established|opened|dates?\s+(?:back\s+)?(?:to|from))\s+(?:in\s+)?"
    r"(?:the\s+)?(?:\d{4}|\d{1,2}(?:st|nd|rd|th)\s+century)\b",
    re.IGNORECASE,
)
"""An age: "aged 14", "18 years old", "at least 18", "under 6", "65 or over"."""

_CODE_WORD = re.compile(r"(?<![\w$€£¥-])(?!(?:Q[1-4]|H[12])\b)[A-Za-z]{1,4}-?\d+[A-Za-z]*\b")
"""A code: letters, then digits, in one word (``X200``, ``N1``; not ``Q3``,
``H2``, which say when). A capitalised word and a number (``Lab 3``) may be
a quantity ("Add 2 cups"): it is a name only when the question uses it."""

_PERCENT = re.compile(
    r"\d\s*%|\bper\s*cent\b|\bpercent(?:age)?\b|\b(?:half|quarter|third|thirds)\b",
    re.IGNORECASE,
)
_OFTEN = re.compile(
    r"\bevery\b|\b(?:once|twice|thrice|never|always|continuously)\b|\b\w+\s+times\b"
    r"|\b(?:hourly|daily|nightly|weekly|fortnightly|biweekly|monthly|quarterly|yearly|annually)\b"
    r"|\b(?:per|a|an|each)\s+(?:second|minute|hour|day|night|week|month|quarter|year|semester)s?\b",
    re.IGNORECASE,
)
"""A frequency: "every 20 minutes", "twice a week", "5 times", "daily"."""
_NOT_TIME = re.compile(
    r"\d[\d,.]*\s*%"
    r"|\b(?:version|release|v)\s*\d+(?:\.\d+)+|(?<![\w.])\d+\.\d+\.\d+(?![\w.]*\d)"
    r"|\b\d+\.\d+(?:\.\d+)*\s+or\s+(?:newer|later|higher|above|greater)\b"
    r"|\b(?:plots?|pitch(?:es)?|rooms?|platforms?|gates?|berths?|bays?|pontoons?|pages?"
    r"|floors?|blocks?|units?|lockers?|courts?|lanes?|stands?|nos?\.|numbers?)"
    r"\s+\d+(?:\s*(?:to|-|–|and)\s*\d+)?\b",
    re.IGNORECASE,
)
"""Figures that are no time: a share ("20%"), a version ("2.0.0", "pandas
1.5 or newer"; "Python 3.8" is ``NAMED_VERSION``), the number of a place or
a thing ("on plots 101 to 142", "from platform 2"). A sum may be one ("When
does shipping become free? Orders above €150 ...")."""
_WEEKDAYS = frozenset(
    {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays",
        "weekday", "weekdays", "weekend", "weekends",
    }
)  # fmt: skip
_CALENDAR_WORDS = _WEEKDAYS | frozenset(
    {
        "morning", "mornings", "afternoon",
        "evening", "evenings", "night", "nights", "midnight", "noon", "today", "tomorrow",
        "yesterday", "tonight", "january", "february", "april", "june", "july", "august",
        "september", "october", "november", "december", "spring", "summer", "autumn",
        "winter", "semester",
    }
)  # fmt: skip
"""Words that say when without a digit ("on Tuesdays", "in the spring")."""
_DAY_WORDS = _WEEKDAYS | {"daily", "everyday", "holidays", "today", "tomorrow"}
_WHEN_FIGURE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?i:{_MONTHS}|may)\b"
    rf"|\b(?i:{_MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{4}}-\d\d-\d\d\b|\b\d{{1,2}}:\d\d\b"
)
"""A figure that says when: a day of a month ("1 April", "March 13"), a
date, a clock time; no count or amount of anything."""
_SUM_OR_SHARE = re.compile(
    r"[$€£¥₹]\s?\d[\d,.]*(?:\s?(?:k|m|bn)\b)?|\d[\d,.]*\s?(?:%|p\b|pence\b|(?i:USD|EUR|GBP)\b)"
)
_NO_FIGURE = re.compile(
    r"\b(?:one\s+(?:of|or\s+more|another|by\s+one|at\s+a\s+time)|no\s+one|any\s*one)\b",
    re.IGNORECASE,
)
"""Number words that count nothing: "one of the following scores"."""
_DATE_LIKE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?i:{_MONTHS}|may)\b|\b(?i:{_MONTHS}|may)\s+\d{{1,2}}\b"
    r"|\b\d{4}-\d\d-\d\d\b|\bevery day\b",
)
"""A day written as a date ("14 March", "March 13", "2026-03-13")."""
