"""Recorded text reaches the actor chart as data, exactly as recorded.

Vega draws text as text and Vega-Lite's tooltip escapes what it shows, so the
rows carry recorded characters unescaped: an escaped ``&lt;`` would be drawn
as those four characters. What must hold instead: markup is never in the
spec, and a row's text breaks lines only where the chart splits a label.
"""

from __future__ import annotations

import json

from lens_builders import ROOT, step

from lens.arrows import build_arrow_diagram
from lens.diagram_chart import DIAGRAM_SPEC, HOVER_FIELDS, LIT, actor_chart

HOSTILE = '<img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a>'
BOLD = "<b>bold</b>"
ESCAPED_LOOKING = "R&amp;D"
USER = "actor:user"
# Characters a browser or Vega could take as a line break.
LINE_BREAKS = ("\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c")


def hostile_diagram():
    steps = [step("fork", "fork (2)", (USER, HOSTILE, "fork-branch", HOSTILE),
                  (USER, "ok", "fork-branch", BOLD)),
             step("decide", "routes", (HOSTILE + "#3", "ok", "decision-branch", HOSTILE)),
             step("sequential", "stays", ("ok", "ok", "next", "a\nb<br>c\u2028d")),
             step("sequential", "answers", ("ok", USER, "next", ESCAPED_LOOKING))]
    return build_arrow_diagram(steps, ROOT, set()), len(steps)


def strings_of(rows: list[dict]) -> list[str]:
    return [value for row in rows for value in row.values() if isinstance(value, str)]


def lit_labels(chart) -> list[str]:
    return [row["text"] for row in chart.of_kind("text") if row["colour"] == LIT]


def test_recorded_markup_is_carried_as_recorded_not_escaped():
    diagram, count = hostile_diagram()
    charts = [actor_chart(diagram, index) for index in range(count)]
    hostile_label, bold = lit_labels(charts[0])
    assert bold == BOLD and hostile_label.endswith("…")
    assert HOSTILE.startswith(hostile_label.removesuffix("…"))
    assert lit_labels(charts[3]) == [ESCAPED_LOOKING]  # drawn as recorded, not as "R&D"
    for chart in charts:
        strings = strings_of(chart.rows)
        for entity in ("&lt;", "&gt;", "&quot;", "&#x27;"):
            assert not any(entity in s for s in strings), entity
        assert all(s.count("&amp;") == s.count(ESCAPED_LOOKING) for s in strings)
        [node] = [row for row in chart.of_kind("node") if row["hover0"] == HOSTILE and
                  row["hover1"] == "subflow · " + HOSTILE]
        # Labels cut to fit keep the recorded characters they show.
        for text in [row["text"] for row in chart.rows if row["text"].startswith("<img")]:
            assert HOSTILE.startswith(text.removesuffix("…")), text
        assert node["text"].startswith("<img src=x")


def test_a_name_with_markup_characters_is_cut_where_any_name_as_long_is():
    # Measured as drawn: "&" is one character wide, as "+" is (escaped it was five).
    def node_label(name: str) -> str:
        # Beside four others: the columns are narrow, so the name is cut to fit.
        names = [name, "two", "three", "four", "five"]
        steps = [step("sequential", "asks", (USER, names[0], "next", "asks"))]
        steps += [step("sequential", "on", (a, b, "next", "on")) for a, b in zip(names, names[1:])]
        chart = actor_chart(build_arrow_diagram(steps, ROOT, set()), 0)
        [node] = [r for r in chart.of_kind("node") if r["hover0"] == name]
        # The label drawn under the node.
        [label] = [r for r in chart.of_kind("text") if r["x"] == node["x"] and r["y"] > node["y"]]
        return label["text"]

    plain, marked = node_label("R+D+team+roster+for+the+quarter"), node_label(
        "R&D&team&roster&for&the&quarter")
    assert plain.endswith("…") and len(marked) == len(plain)


def test_recorded_line_breaks_and_br_tags_stay_on_one_line():
    diagram, count = hostile_diagram()
    assert lit_labels(actor_chart(diagram, 2)) == ["↻ a⏎b<br>c⏎d"]
    for index in range(count):
        for value in strings_of(actor_chart(diagram, index).rows):
            assert not any(mark in value for mark in LINE_BREAKS), repr(value)


def test_a_pass_label_breaks_once_between_its_number_and_its_output():
    passes = [step("iteration", f"iter {n}", ("body", "body", "loop-iteration", f"iter {n}"),
                   rid=f"body#{n}", meta={"kind": "iteration", "index": n, "target": "body"})
              for n in (1, 2)]
    output = HOSTILE + "\nsecond line"
    diagram = build_arrow_diagram(passes, ROOT, set(), pass_output=lambda _: output)
    chart = actor_chart(diagram, 1)
    for row in chart.rows:
        for field, value in row.items():
            if isinstance(value, str) and field != "text":
                assert not any(mark in value for mark in LINE_BREAKS), (field, value)
    for row in chart.of_kind("node") + chart.of_kind("text"):
        if row["text"].startswith("pass"):
            number, shown = row["text"].split("\n")  # exactly one break
            assert number in ("pass 1", "pass 2") and HOSTILE.startswith(shown.removesuffix("…"))
    hovers = [row[field] for row in chart.of_kind("node") for field in HOVER_FIELDS]
    assert "output: " + HOSTILE + "⏎second line" in hovers


def test_recorded_text_never_reaches_the_spec():
    before = json.dumps(DIAGRAM_SPEC, sort_keys=True)
    diagram, count = hostile_diagram()
    for index in range(count):
        actor_chart(diagram, index)
    spec = json.dumps(DIAGRAM_SPEC, sort_keys=True, ensure_ascii=False)
    assert json.dumps(DIAGRAM_SPEC, sort_keys=True) == before
    for recorded in ("<img", "onerror", "javascript", "<b>", "R&amp;D", "⏎", "a\\nb"):
        assert recorded not in spec


def test_diagram_nodes_carry_their_drill_path_for_clicks():
    steps = [step("fork", "fork (1)", (USER, "legal", "fork-branch", "legal"))]
    diagram = build_arrow_diagram(steps, ROOT, {("__root__", "legal")})
    nodes = {row["text"]: row for row in actor_chart(diagram, 0).of_kind("node")}
    assert (nodes["user"]["drill"], nodes["legal"]["drill"]) == ("", "__root__/legal")
    # A subflow one can drill into is drawn square; a plain actor round.
    assert (nodes["user"]["shape"], nodes["legal"]["shape"]) == ("circle", "square")
    assert "click to drill in" in [nodes["legal"][field] for field in HOVER_FIELDS]
