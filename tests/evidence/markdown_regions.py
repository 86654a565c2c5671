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


# ─── A search highlight line ──────────────────────────────────────────


def _span_text(code: str) -> str:
    """A code span's text: CommonMark strips one space each side when both are there."""
    if len(code) >= 2 and code.startswith(" ") and code.endswith(" ") and code.strip(" "):
        return code[1:-1]
    return code


def assert_only_bold_matches(markdown: str, matches: int | None = None) -> None:
    """Recording text only inside code spans; outside them nothing but ``**``
    pairs (``matches`` of them when given) and ellipses."""
    assert "\n" not in markdown
    code, prose = split_code(markdown)
    for piece in prose:
        assert set(piece) <= {"*", "…"}, f"text outside a code span: {piece!r} in {markdown!r}"
        assert all(len(run) == 2 for run in re.findall(r"\*+", piece)), markdown
    bold = sum(len(re.findall(r"\*\*", piece)) for piece in prose)
    assert bold % 2 == 0 and (matches is None or bold == 2 * matches), markdown


def unescaped_text(markdown: str) -> str:
    """What a highlight line shows, without its ellipses: the code spans' text."""
    code, _ = split_code(markdown)
    return "".join(_span_text(piece) for piece in code)
