"""The entry script ``footprint-lens view`` starts: the same app as the
checkout's ``lens_app.py``, carried by the package. Its ``.streamlit/config.toml``
holds the app's settings (the checkout's is a link to it)."""

from lens_ui.navigation import run_app

run_app()
