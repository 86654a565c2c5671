"""Lens view models: RunSteps and events in, figures, tables and text out.

Pure Python over ``recorders/``: nothing here imports streamlit, so every
view model is testable without a UI and the app stays a thin shell.
"""
