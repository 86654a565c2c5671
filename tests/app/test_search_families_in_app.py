"""The Search tab filters by family: the run's families, with counts, narrow the hits."""

from __future__ import annotations

import gzip

from app_support import no_exception
from family_files import family_recording
from lens_ui.session import SEARCH_TAB, TAB

FAMILIES = "lens.search-families"


def hit_kinds(at) -> list[str]:
    return [c.value.split(" · ")[0] for c in at.text
            if c.value.split(" · ")[0] in ("message", "tool result", "tool arguments",
                                           "model output", "user prompt")]


def test_a_family_filter_keeps_only_the_hits_of_that_family(app):
    data = gzip.decompress(family_recording("travel-desk-circuit-breaker").read_bytes())
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(("travel.json", data, "application/json"))
    at.run()
    at.session_state[TAB] = SEARCH_TAB
    at.run()
    at.text_input(key="lens.search-query").input("UA 1536").run()
    no_exception(at)
    everything = hit_kinds(at)
    assert "message" in everything and "tool result" in everything
    families = at.multiselect(key=FAMILIES)
    assert any(option.startswith("context (") for option in families.options)
    families.set_value(["context"]).run()
    no_exception(at)
    assert set(hit_kinds(at)) == {"message"}
    assert len(hit_kinds(at)) < len(everything)
