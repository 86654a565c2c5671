"""Token counts of one model call, read from its recorded ``usage`` object.

The archive reads tokens through :func:`usage_tokens` only, so every table and
figure counts them by one rule. The rule mirrors the one the run page's step
detail uses: the first number among the known spellings of the input and the
output count (agentfootprint writes ``input``/``output``; provider-shaped
usage objects say ``inputTokens``, ``prompt_tokens`` and so on).
"""

from __future__ import annotations

from typing import Any

INPUT_SPELLINGS = ("input", "inputTokens", "input_tokens", "promptTokens", "prompt_tokens")
OUTPUT_SPELLINGS = ("output", "outputTokens", "output_tokens", "completionTokens",
                    "completion_tokens")


def usage_tokens(usage: Any) -> tuple[float | None, float | None]:
    """(input tokens, output tokens) of a usage object; None where it reports none."""
    if not isinstance(usage, dict):
        return None, None
    return _first_number(usage, INPUT_SPELLINGS), _first_number(usage, OUTPUT_SPELLINGS)


def _first_number(usage: dict, names: tuple[str, ...]) -> float | None:
    for name in names:
        value = usage.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
    return None
