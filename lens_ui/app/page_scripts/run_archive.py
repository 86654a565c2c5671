"""The Archive page: a folder of saved runs, filtered, charted, opened or compared."""

from lens_ui.archive_page import archive_page
from lens_ui.shell import open_page

open_page("Archive")
archive_page()
