"""ActorArrowClassifier: which actor hands to which on each model call edge."""

from __future__ import annotations

USER_TO_LLM = "user→llm"
TOOL_TO_LLM = "tool→llm"
LLM_TO_TOOL = "llm→tool"
LLM_TO_USER = "llm→user"


class ActorArrowClassifier:
    """Owns one flag: did the previous model call end asking for tools?

    A model call start after a call that asked for tools is ``tool→llm``,
    otherwise ``user→llm``; the start consumes the flag. A model call end is
    ``llm→tool`` when it asked for tools, otherwise ``llm→user``.

    Does not own: which scope or branch a call belongs to. One flag serves the
    whole run, so interleaved parallel branches share it (a reference fault the
    lens projection corrects with one classifier per scope).
    """

    __slots__ = ("_previous_end_asked_for_tools",)  # the lens keeps one per scope execution

    def __init__(self) -> None:
        self._previous_end_asked_for_tools = False

    def classify_start(self) -> str:
        arrow = TOOL_TO_LLM if self._previous_end_asked_for_tools else USER_TO_LLM
        self._previous_end_asked_for_tools = False
        return arrow

    def classify_end(self, tool_call_count: float) -> str:
        asked = tool_call_count > 0
        self._previous_end_asked_for_tools = asked
        return LLM_TO_TOOL if asked else LLM_TO_USER

    def clear(self) -> None:
        self._previous_end_asked_for_tools = False
