"""A small CommonMark reader for tests: which characters of a document are code.

Only fenced code blocks (backtick fences) and code spans are recognised, which
is all the backtrack report uses for recording content. Text inside them is
shown literally by any CommonMark renderer; everything else may be markup.
"""

from __future__ import annotations

import re

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
