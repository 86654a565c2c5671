"""Small builders for RunSteps and boundary events, so each test states its input inline."""

from __future__ import annotations

from recorders.run_step import Anchor, RunStep, Transition, is_path_prefix, renumber

ROOT = ("__root__",)


def step(kind, label, *transitions, path=ROOT, rid="stage#1", ts=0.0, meta=None, seq=0):
    return RunStep(seq, kind, tuple(Transition(*t) for t in transitions), Anchor(rid, path),
                   label, ts, meta)


def boundary(kind, rid, ts, path=ROOT, **fields):
    return {"type": kind, "runtimeStageId": rid, "subflowPath": list(path), "depth": len(path) - 1,
            "ts": ts, **fields}


class PrefixProjection:
    """Steps filtered by path prefix (so the root shows every step, renumbered)."""

    def __init__(self, steps):
        self.steps = steps

    def get_steps(self, path=None):
        prefix = tuple(path or ())
        return renumber([s for s in self.steps if is_path_prefix(prefix, s.anchor.subflow_path)])
