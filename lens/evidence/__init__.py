"""The evidence views: pure view models over :class:`recorders.evidence.EvidenceIndex`.

One module a purpose: where a link leads (:mod:`.nav`), what a call was
served (:mod:`.served`), what changed since the previous call (:mod:`.delta`),
the walk back from an output (:mod:`.backtrack`), that walk as a Markdown
report (:mod:`.report`), and search (:mod:`.search`). No Streamlit here;
``lens_ui/evidence_panel.py`` renders these.
"""
