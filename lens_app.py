"""Lens: open a recorded agentfootprint run, scrub it step by step, drill into
compositions and ask why a skill was chosen.

Run from a checkout with ``streamlit run lens_app.py`` (an installed Lens:
``footprint-lens view``). The pages and their sidebar titles are in
``lens_ui/navigation.py``; the run page is ``lens_ui/app/page_scripts/run.py``.
"""

from lens_ui.navigation import run_app

run_app()
