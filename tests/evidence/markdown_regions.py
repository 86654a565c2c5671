"""A small CommonMark reader for tests: which characters of a document are code.

Only fenced code blocks (backtick fences) and code spans are recognised, which
is all the backtrack report uses for recording content. Text inside them is
shown literally by any CommonMark renderer; everything else may be markup.
"""

from __future__ import annotations

import re
import string
import unicodedata

_FENCE_OPEN = re.compile(r"^(`{3,})([^`]*)$")


def split_code(document: str) -> tuple[list[str], list[str]]:
    """(code pieces, prose pieces) of a Markdown document."""
    code: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    block: list[str] = []
    for line in document.split("\n"):
        if fence is not None:
            stripped = line.strip()
            if stripped and set(stripped) == {"`"} and len(stripped) >= len(fence):
                code.append("\n".join(block))
                fence, block = None, []
            else:
                block.append(line)
            continue
        opened = _FENCE_OPEN.match(line)
        if opened:
            fence = opened.group(1)
            continue
        _split_spans(line, code, prose)
    if fence is not None:  # an unclosed fence runs to the end of the document
        code.append("\n".join(block))
    return code, prose


def _split_spans(line: str, code: list[str], prose: list[str]) -> None:
    at, text_start = 0, 0
    while at < len(line):
        if line[at] != "`":
            at += 1
            continue
        backslashes = len(line[:at]) - len(line[:at].rstrip("\\"))
        if backslashes % 2 == 1:  # an escaped backtick is a literal
            at += 1
            continue
        run = len(line[at:]) - len(line[at:].lstrip("`"))
        closing = re.compile(rf"(?<!`)`{{{run}}}(?!`)")
        end = closing.search(line, at + run)
        if end is None:
            at += run
            continue
        prose.append(line[text_start:at])
        code.append(line[at + run:end.start()])
        at = text_start = end.end()
    prose.append(line[text_start:])


# ─── Inline markup (CommonMark 2.4 escapes, 6.2 emphasis flanking) ─────


def _punct(char: str) -> bool:
    return unicodedata.category(char)[0] in "PS"


def markup_of(markdown: str) -> list[tuple[int, str]]:
    """(position, run) of every unescaped ASCII punctuation run: what CommonMark
    may read as markup."""
    found, at = [], 0
    while at < len(markdown):
        char = markdown[at]
        if char == "\\" and at + 1 < len(markdown) and markdown[at + 1] in string.punctuation:
            at += 2
            continue
        if char in string.punctuation:
            end = at
            while end < len(markdown) and markdown[end] == char:
                end += 1
            found.append((at, markdown[at:end]))
            at = end
            continue
        at += 1
    return found


def flanking(markdown: str, at: int, length: int) -> tuple[bool, bool]:
    """(left-flanking, right-flanking) of the delimiter run at ``at`` (CommonMark 6.2)."""
    before = markdown[at - 1] if at > 0 else " "
    after = markdown[at + length] if at + length < len(markdown) else " "
    left = not after.isspace() and (not _punct(after) or before.isspace() or _punct(before))
    right = not before.isspace() and (not _punct(before) or after.isspace() or _punct(after))
    return left, right


def assert_only_bold_matches(markdown: str, matches: int | None = None) -> None:
    """The only markup is ``**`` pairs (``matches`` of them when given), each
    able to open and close emphasis where it stands."""
    runs = markup_of(markdown)
    assert all(run == "**" for _, run in runs), f"unescaped markup in {markdown!r}"
    assert len(runs) % 2 == 0 and (matches is None or len(runs) == 2 * matches)
    for n, (at, run) in enumerate(runs):
        left, right = flanking(markdown, at, len(run))
        role = "open" if n % 2 == 0 else "close"
        assert (left if role == "open" else right), f"** at {at} cannot {role} in {markdown!r}"


def unescaped_text(markdown: str) -> str:
    """What a highlight line shows: escapes resolved, bold markers and hair spaces gone."""
    text = markdown.replace("\u200a", "")
    text = re.sub(r"(?<!\\)\*\*", "", text)
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
