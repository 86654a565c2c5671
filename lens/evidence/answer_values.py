"""The values an answer states that a reader can check: ids, numbers, amounts.

Owns: picking out of a model's answer the values distinctive enough that
finding (or not finding) them in a served text says where they came from,
and looking one up in a text. Conservative on purpose: an id must start with a
letter and hold a digit past a separator (``TOLD-2025-44871``, ``INV-7731``), a number
must carry at least three digits and not be a year standing alone (``17,143``,
``42.9%``, ``$12,450``), since "1", "2 days" or "2025" turn up in any text.
:func:`quantities` is looser (a number and the word it counts: "4 weeks") and
serves only comparisons between remembered entries, where the unit says two
figures speak of the same thing.

Does not own: which texts were served or returned (the evidence index), or
what a cause makes of a value (:mod:`lens.evidence.ungrounded`,
:mod:`lens.evidence.memory_repeated`).
"""

from __future__ import annotations

import re
from typing import Iterable, NamedTuple

# Led by a letter, joined by - / _ and holding a digit; a timestamp is not one.
_ID = re.compile(r"(?<![\w-])(?=[\w/-]*\d)[A-Za-z][A-Za-z0-9]*(?:[-/_][A-Za-z0-9]+)+(?![\w-])")
# A number with optional thousands separators, decimals and a percent sign;
# never a piece of a dotted address ("10.4.8.21").
_NUMBER = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![.,]?\d)%?")
_QUANTITY = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)*)\s+([A-Za-z]{3,})")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
DISTINCT_DIGITS = 3
_YEARS = range(1900, 2100)
_DECIMALS = 6
# Cents and units, thousands and units: one quantity written at two scales.
_UNIT_SCALES = (100, 0.01, 1000, 0.001)


class Quantity(NamedTuple):
    """A number and the word after it, as written ("4 weeks"), and both normalised."""

    text: str
    number: str
    unit: str


def distinctive_values(answer: str) -> tuple[str, ...]:
    """The ids and numbers of ``answer`` worth tracing, as written, once each,
    in order. A number inside an id is the id's, not a value of its own."""
    found: dict[str, None] = {}
    taken: list[range] = []
    for match in _ID.finditer(answer):
        found[match.group()] = None
        taken.append(range(match.start(), match.end()))
    for match in _NUMBER.finditer(answer):
        if any(match.start() in span for span in taken):
            continue
        if _distinctive_number(match.group()):
            found[match.group()] = None
    return tuple(found)


def _distinctive_number(text: str) -> bool:
    digits = _number(text)
    if sum(ch.isdigit() for ch in digits.lstrip("0.")) < DISTINCT_DIGITS:
        return False
    return not (digits.isdigit() and int(digits) in _YEARS)


def _number(text: str) -> str:
    """A number as compared: no thousands separators, no percent sign, no
    trailing zeros after the decimal point ("310.50" is "310.5")."""
    number = _THOUSANDS.sub("", text).rstrip("%")
    return number.rstrip("0").rstrip(".") if "." in number else number


def numbers(text: str) -> set[float]:
    """Every number ``text`` states, as a value (rounded, so that sums compare)."""
    return {_value(match.group()) for match in _NUMBER.finditer(text)}


def _value(text: str) -> float:
    return round(float(_number(text)), _DECIMALS)


def holds(text: str, value: str) -> bool:
    """Whether ``text`` states ``value``: an id in any case, a number with or
    without thousands separators, never as part of a longer number or word."""
    if _ID.fullmatch(value):
        return re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text, re.IGNORECASE) \
            is not None
    return _value(value) in numbers(text)


class Texts:
    """Many texts searched for values at once: joined, their numbers read once."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.text = "\n\x00\n".join(texts)  # apart, so no value spans two texts
        self.numbers = numbers(self.text)

    def hold(self, value: str) -> bool:
        if _ID.fullmatch(value):
            return holds(self.text, value)
        return _value(value) in self.numbers

    def derive(self, value: str) -> bool:
        """Whether a number is one the texts hold in other units (84.20 from
        ``priceCents: 8420``) or the sum or the difference of two they hold
        (the $12,200 left of a $12,450 order after a $250 refund): arithmetic
        over what the run was given, not a value from nowhere."""
        if _ID.fullmatch(value):
            return False
        number = _value(value)
        if any(round(number * scale, _DECIMALS) in self.numbers for scale in _UNIT_SCALES):
            return True
        return any(round(number + other, _DECIMALS) in self.numbers
                   or round(other - number, _DECIMALS) in self.numbers
                   for other in self.numbers)


def quantities(text: str) -> tuple[Quantity, ...]:
    """Every number followed by a word ("4 weeks", "12 months"), in order."""
    return tuple(Quantity(match.group(), _number(match.group(1)), _unit(match.group(2)))
                 for match in _QUANTITY.finditer(text))


def _unit(word: str) -> str:
    """A unit as compared: lower case, without a plural s ("weeks" is "week")."""
    word = word.lower()
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word
