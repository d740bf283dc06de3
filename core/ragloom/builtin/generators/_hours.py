"""Hours: what says when a thing opens or closes ("Mon–Fri 9am–5pm",
"shuts at 8pm", "Bar: 12pm–11pm"), and what a question asks of them.
"""

from __future__ import annotations

import re

from ._text import stem

_HOURS = frozenset({stem("hours")})
"""What a question about opening hours says of them."""
_OPEN = frozenset(stem(word) for word in ("open", "opens", "close", "closes", "closing"))
_OF_OPENING = re.compile(
    r"\b(?:open|opens|opening|hours|times|closes|closing|staffed|sessions?|available"
    r"|accessible|operates)\b",
    re.IGNORECASE,
)
_OPENS_OR_CLOSES = re.compile(r"\b(?:open|opens|opening|close|closes|closing)\b", re.IGNORECASE)
"""What a question asks of hours ("When is it open?", "What time does it
close?"), which a span of them says ("Mon–Fri 9am–5pm")."""
_OPENS, _REOPENS = stem("open"), stem("reopens")
_CLOCK_TIME = r"\d{1,2}(?:[:.]\d\d(?:\s*[ap]\.?m\b\.?)?|\s*[ap]\.?m\b\.?|\s*h\b)"
_HOURS_SPAN = re.compile(
    rf"\b{_CLOCK_TIME}\s*(?:-|–|—|to|until|till)\s*{_CLOCK_TIME}", re.IGNORECASE
)
"""A span of clock times ("09:00 to 18:00", "9am–5pm"): opening hours."""
_OPENING_WORDS = re.compile(
    r"\b(?:shuts?|locked|unlocked|until|till|doors|serv\w*|staffed"
    r"|last (?:entry|orders|admission))\b",
    re.IGNORECASE,
)
"""Words that say when a thing opens or closes in other words ("shuts at 8pm",
"is locked at 11pm", "Doors: 7pm", "serves food until 9pm")."""
_SHUTS = re.compile(r"\b(?:shuts?|is locked|are locked|locks?|lock up)\b", re.I)
"""Words that say when a thing closes ("The shop shuts at 8pm", "We lock the
doors at 5pm"; "Last entry is at 4pm" is before it closes)."""
_OWN_SUBJECT = re.compile(
    r"^\s*(?:the|our)\s+([a-z][\w-]*)\s+(?:is|are|opens?|closes?|shuts?)\b", re.IGNORECASE
)
"""A sentence's own subject ("*The shop* is open daily 9am–6pm")."""
_OPENED = frozenset(stem(word) for word in ("open", "opens", "opening"))
_DAYS_ONLY = re.compile(
    r"\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun|week|working\s+)days?|weekends?)\s+only\b"
    r"|\bonly\s+(?:on\s+|at\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun|week)days?|weekends?)\b",
    re.IGNORECASE,
)
_HOURS_LINE = re.compile(
    rf"{_CLOCK_TIME}|\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?s?\b"
    r"|\b(?:daily|weekdays?|weekends?|to|and|until|till|from)\b",
    re.IGNORECASE,
)
"""The times and days of a line of hours ("Mon–Sat 10am–5pm, Sun 11am–4pm")."""
_LABEL_WORDS = 3
