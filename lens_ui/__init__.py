"""Streamlit glue for Lens: loading and caching runs, session and link state,
and the renderers that put lens/ view models on screen through safe elements."""
