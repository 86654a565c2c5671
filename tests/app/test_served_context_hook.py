"""The step detail's hook for the served-context panel: called with the
scope's steps and position when the module exists, able to move the slider."""

from __future__ import annotations

import importlib.machinery
import sys
import types

import pytest

from app_support import caption, no_exception, open_served_context

HOOK = "lens_ui.served_context"


@pytest.fixture
def served_context_module(monkeypatch):
    calls = []

    def render_served_context(run, steps, position, on_navigate):
        import streamlit as st

        calls.append((run.choice.name, len(steps), position))
        st.text(f"served context for {steps[position].runtime_stage_id}")
        st.button("jump to the last step", key="test.hook.jump", on_click=on_navigate,
                  args=(len(steps) - 1,))

    module = types.ModuleType(HOOK)
    module.__spec__ = importlib.machinery.ModuleSpec(HOOK, None)
    module.render_served_context = render_served_context
    monkeypatch.setitem(sys.modules, HOOK, module)
    return calls


def test_without_the_module_the_step_detail_draws_no_panel(app, monkeypatch):
    from lens_ui import step_panel

    monkeypatch.setattr(step_panel, "SERVED_CONTEXT_MODULE", "lens_ui.no_such_hook_module")
    at = app.run()
    no_exception(at)
    assert "Served context" not in [s.value for s in at.subheader]


def test_the_hook_gets_the_scope_and_position_and_can_move_the_slider(app, served_context_module):
    at = app.run()
    at.button(key="lens.next").click().run()
    no_exception(at)
    assert served_context_module == []  # drawn only while its expander is open
    open_served_context(at)
    assert served_context_module[-1] == ("agent-refund-multi-tools-error", 10, 1)
    assert "served context for call-llm#18" in [t.value for t in at.text]
    at.button(key="test.hook.jump").click().run()
    assert caption(at) == "step 10 of 10 · llm→user"
