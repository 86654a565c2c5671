"""Build small boundary-event logs by hand, shaped like BoundaryRecorder output."""

from __future__ import annotations

from typing import Any


class BoundaryLog:
    """Appends boundary events with increasing ``ts`` (or a fixed one)."""

    def __init__(self, start_ts: int = 1000) -> None:
        self.events: list[dict[str, Any]] = []
        self.ts = start_ts

    def _add(self, type_: str, path: list[str], stage: str, ts: int | None = None,
             **fields: Any) -> "BoundaryLog":
        if ts is None:
            self.ts += 1
            ts = self.ts
        self.events.append({"type": type_, "runtimeStageId": stage,
                            "subflowPath": ["__root__", *path], "depth": len(path),
                            "ts": ts, **fields})
        return self

    def run_entry(self) -> "BoundaryLog":
        return self._add("run.entry", [], "seed#0", isRoot=True)

    def run_exit(self) -> "BoundaryLog":
        return self._add("run.exit", [], "final#99", isRoot=True)

    def enter(self, subflow_id: str, kind: str | None, path: list[str] | None = None,
              stage: str | None = None, internal: bool | None = None) -> "BoundaryLog":
        path = path if path is not None else subflow_id.split("/")
        fields: dict[str, Any] = {"subflowId": subflow_id}
        if kind is not None:
            fields["description"] = f"{kind}: {subflow_id}"
        if internal is not None:
            fields["isAgentInternal"] = internal
        return self._add("subflow.entry", path, stage or f"{subflow_id}#0", **fields)

    def composition(self, kind: str, path: list[str] | None = None, end: bool = False,
                    stage: str = "seed#0") -> "BoundaryLog":
        return self._add("composition.end" if end else "composition.start", path or [], stage,
                         kind=kind, compositionId=kind.lower(), name=kind)

    def tool(self, path: list[str], stage: str, name: str, call_id: str,
             error: bool = False) -> "BoundaryLog":
        self._add("tool.start", path, stage, toolName=name, toolCallId=call_id)
        extra = {"error": True} if error else {}
        return self._add("tool.end", path, stage, toolCallId=call_id, **extra)

    def exit(self, subflow_id: str, path: list[str] | None = None,
             stage: str | None = None) -> "BoundaryLog":
        path = path if path is not None else subflow_id.split("/")
        return self._add("subflow.exit", path, stage or f"{subflow_id}#9", subflowId=subflow_id)

    def fork(self, parent: str, children: list[str], stage: str = "fork#1",
             path: list[str] | None = None) -> "BoundaryLog":
        self.ts += 1
        for child in children:
            self._add("fork.branch", path or [], stage, ts=self.ts,
                      parentSubflowId=parent, childName=child)
        return self

    def decide(self, chosen: str, rationale: str | None = None, stage: str = "decide#2",
               path: list[str] | None = None) -> "BoundaryLog":
        extra = {"rationale": rationale} if rationale else {}
        return self._add("decision.branch", path or [], stage, decider="decide",
                         chosen=chosen, **extra)

    def loop(self, target: str, iteration: int, stage: str = "loop#3") -> "BoundaryLog":
        return self._add("loop.iteration", [], stage, target=target, iteration=iteration)

    def llm(self, path: list[str], stage: str, tool_calls: int = 0) -> "BoundaryLog":
        self._add("llm.start", path, stage, model="m", provider="p")
        return self._add("llm.end", path, stage, toolCallCount=tool_calls)

    def leaf(self, subflow_id: str, kind: str = "LLMCall", tool_calls: int = 0) -> "BoundaryLog":
        self.enter(subflow_id, kind)
        self.llm(subflow_id.split("/"), f"{subflow_id}/call-llm#5", tool_calls)
        return self.exit(subflow_id)
