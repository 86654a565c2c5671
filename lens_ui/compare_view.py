"""The Compare page: two runs side by side, from the first point where they part.

Everything shown from a recording goes through ``st.text``, ``st.code`` or
``st.dataframe``; labels written here are app text.
"""

from __future__ import annotations

import streamlit as st

from lens.compare import RunComparison, compare_runs
from lens.compare.alignment import AlignedRow
from lens.compare.outcome import RunEnding
from lens.placement import StepRow
from lens.compare.words import comparison_sentences
from lens.text import visible
from lens_ui import compare_state, navigation, session
from lens_ui.runs import LoadedRun, RunSource

ROW = "lens.compare.row"
ROW_FOR = "lens.compare.row_for"  # the pair the row belongs to
STATUS_TEXT = {"same": "", "changed": "changed", "only-a": "only in A", "only-b": "only in B"}
FIRST_MARK = "◆ first difference"


# A comparison, per byte of the two runs' JSON (measured 0.008-0.044 comparing
# each large corpus run with itself).
COMPARISON_PER_JSON_BYTE = 0.05


def _compared(run_a: LoadedRun, run_b: LoadedRun) -> RunComparison:
    """Kept with run A, and dropped when either run is."""
    def build() -> RunComparison:
        with st.spinner("Comparing the runs…"):
            return compare_runs(run_a.run, run_b.run)
    return run_a.derived(("compared with", run_b.source.digest), build,
                         per_json_byte=COMPARISON_PER_JSON_BYTE,
                         with_runs=(run_b.source.digest,))


def compare_page() -> None:
    runs = compare_state.available()
    for text in compare_state.apply_entry_points(runs):
        st.info(text, icon=":material/info:")
    st.title("Compare two runs", anchor=False)
    if not runs:
        st.info("No runs to compare: upload a recording in the sidebar.")
        return
    refs = list(runs)
    left, right = st.columns(2)
    left.selectbox("Run A", refs, key=compare_state.SELECT_A,
                   format_func=lambda ref: compare_state.label(runs[ref]))
    right.selectbox("Run B", refs, key=compare_state.SELECT_B,
                    format_func=lambda ref: compare_state.label(runs[ref]))
    choice_a = runs[st.session_state[compare_state.SELECT_A]]
    choice_b = runs[st.session_state[compare_state.SELECT_B]]
    run_a, run_b = compare_state.open_choice(choice_a), compare_state.open_choice(choice_b)
    if run_a is None or run_b is None:
        st.warning("One of the runs is no longer held by this session; upload it again.")
        return
    compare_state.write_compare_link(choice_a, choice_b)
    result = _compared(run_a, run_b)
    _summary(result)
    _aligned_steps(result, choice_a, choice_b)
    _served(result)
    _routes_and_answers(result)
    st.caption("This page's link reopens the same comparison: samples by name, uploads "
               "by digest while the server still holds them, archive runs by folder and "
               "path while the server's index holds them.")


def _summary(result: RunComparison) -> None:
    for note in result.notes:
        st.warning(note)
    sentences = comparison_sentences(result)
    if result.identical:
        st.success(sentences[0])  # app text only
        return
    first = result.first_difference
    st.subheader("First difference", anchor=False)
    for sentence in sentences:  # recorded words in them: shown as text, never Markdown
        st.text(sentence)
    if first is not None:
        with st.expander("The differing events"):
            st.text(f"field: {first.field}")
            for name, side in (("A", first.a), ("B", first.b)):
                if side.typed_index is None:
                    st.text(f"{name}: no event here (its stream ended)")
                else:
                    where = "/".join(side.subflow_path or ()) or "(root)"
                    st.text(f"{name}: event #{side.typed_index} {side.type} · at {where}")


def _step_text(row: StepRow | None, steps: int) -> str:
    if row is None:
        return "—"
    scope = "/".join(row.path[1:]) or "root"
    return f"{scope} · step {row.index + 1} · {row.label}"


def _aligned_steps(result: RunComparison, choice_a: RunSource, choice_b: RunSource) -> None:
    rows = result.alignment
    if not rows:
        return
    st.subheader("Steps side by side", anchor=False)
    if result.alignment_fallback is not None:  # app text: counts and row numbers only
        st.info(result.alignment_fallback.sentence(), icon=":material/info:")
    first_row = result.first_difference_row
    pair = (choice_a.key, choice_b.key)
    if st.session_state.get(ROW_FOR) != pair:  # a new pair opens on its first difference
        st.session_state[ROW_FOR] = pair
        st.session_state[ROW] = (first_row or 0) + 1
    position = 1
    if len(rows) > 1:
        position = st.slider("aligned row (both runs move together)", 1, len(rows), key=ROW)
    row = rows[position - 1]
    mark = FIRST_MARK if position - 1 == first_row else STATUS_TEXT[row.status]
    st.text(f"row {position} of {len(rows)}" + (f" · {mark}" if mark else ""))
    left, right = st.columns(2)
    for column, name, step, choice in ((left, "A", row.a, choice_a), (right, "B", row.b, choice_b)):
        with column:
            st.text(f"{name}: {_step_text(step, len(rows))}")
            if step is not None:
                st.button(f"Open this step in run {name}", key=f"lens.compare.open_{name}",
                          on_click=_open_step, args=(choice, step.path, step.index))
    st.dataframe(_table(rows, first_row), hide_index=True, width="stretch", height=320)


def _table(rows: tuple[AlignedRow, ...], first_row: int | None) -> dict[str, list]:
    table: dict[str, list] = {"row": [], "mark": [], "A step": [], "B step": []}
    for number, row in enumerate(rows):
        table["row"].append(number + 1)
        table["mark"].append(FIRST_MARK if number == first_row else STATUS_TEXT[row.status])
        table["A step"].append(_step_text(row.a, 0))
        table["B step"].append(_step_text(row.b, 0))
    return table


def _open_step(choice: RunSource, path: tuple[str, ...], index: int) -> None:
    session.choose_run(choice)
    session.move_to(tuple(path), index)
    # The step is what was asked for: show it in the Steps view, whichever view was last.
    st.session_state[session.TAB] = session.STEPS_TAB
    st.session_state["lens.compare.go_to_run"] = True


def _served(result: RunComparison) -> None:
    if st.session_state.pop("lens.compare.go_to_run", False):
        navigation.switch_to(navigation.RUN)
    served = result.served_difference
    st.subheader("What the model was served differently", anchor=False)
    if served is None:
        st.text("Every model call was served the same context in both runs.")
        return
    calls = [f"A call {served.call_index_a + 1}" if served.call_index_a is not None
             else "A: no such call",
             f"B call {served.call_index_b + 1}" if served.call_index_b is not None
             else "B: no such call"]
    st.text(f"first model call served differently: {' · '.join(calls)}; "
            f"slots: {', '.join(served.slots)}")
    for slot in served.pieces:
        with st.expander(f"{slot.slot}: {len(slot.changed)} changed, {len(slot.added)} added, "
                         f"{len(slot.removed)} removed, {slot.unchanged} unchanged",
                         expanded=True):
            for changed in slot.changed:
                st.text(f"changed: {changed.a.who or 'piece'}")
                st.code(visible("\n".join(changed.diff)) or "(texts differ only in whitespace)",
                        language="diff")
            for name, pieces in (("added in B", slot.added), ("removed from A", slot.removed)):
                for piece in pieces:
                    st.text(f"{name}: {piece.who or 'piece'}")
                    st.code(visible(piece.content or "(no text recorded)"), language=None)


def _ending(ending: RunEnding) -> None:
    # How it ended in the run page's sentence; then the whole answer it returned,
    # unless the sentence quotes it whole already.
    st.text(ending.sentence)
    if ending.answer is not None and f"“{ending.answer}”" not in ending.sentence:
        st.code(visible(ending.answer), language=None, wrap_lines=True)


def _routes_and_answers(result: RunComparison) -> None:
    left, right = st.columns(2)
    if result.route_a or result.route_b:
        st.subheader("Route", anchor=False)
        left, right = st.columns(2)
        left.text("A: " + (" → ".join(result.route_a) or "(no skills)"))
        right.text("B: " + (" → ".join(result.route_b) or "(no skills)"))
    st.subheader("Final answers", anchor=False)
    left, right = st.columns(2)
    with left:
        st.text("A")
        _ending(result.ending_a)
    with right:
        st.text("B")
        _ending(result.ending_b)
