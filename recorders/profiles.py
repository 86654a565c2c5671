"""The names of the two projections, apart from the projections themselves, so
that a command line can offer them without importing the replay code."""

PROFILES = ("lens", "reference")
DEFAULT_PROFILE = "lens"
