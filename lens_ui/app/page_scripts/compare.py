"""The Compare page: where two runs part, and what the model was served differently."""

from lens_ui.compare_view import compare_page
from lens_ui.shell import open_page

open_page("Compare")
compare_page()
