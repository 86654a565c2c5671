"""Run the user's ``--redact-pattern`` expressions in a process of their own.

A user's regular expression can backtrack for longer than anyone waits
(``(a+)+$`` over forty ``a``'s and a ``b``). Python's ``re`` cannot be given a
time limit from another thread, and the app's Share dialog runs outside the
main thread where an alarm signal could interrupt it; so the user's patterns
run here, in a child process that :mod:`lens.share.redaction` kills when one
pattern takes longer than its budget. The built-in patterns never come here:
they are written not to backtrack (bounded or possessive repeats).

Started as a script (``python -I -S pattern_worker.py INPUT``), importing only
the standard library. INPUT is a JSON file ``{"patterns": [...], "texts":
[...]}``; for each pattern in turn one line goes to stdout as soon as it is
done: ``[[text_index, start, end], ...]``, the non-empty matches (the
``mask`` group's span when the pattern has one).
"""

from __future__ import annotations

import json
import re
import sys


def spans(pattern: re.Pattern, texts: list[str]) -> list[list[int]]:
    group = "mask" if "mask" in pattern.groupindex else 0
    found = []
    for index, text in enumerate(texts):
        for match in pattern.finditer(text):
            start, end = match.span(group)
            if end > start:
                found.append([index, start, end])
    return found


def main(path: str) -> None:
    with open(path, encoding="utf-8", errors="surrogatepass") as handle:
        job = json.load(handle)
    texts = job["texts"]
    for source in job["patterns"]:
        sys.stdout.write(json.dumps(spans(re.compile(source), texts)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
