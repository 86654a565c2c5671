"""A link's or a Compare reference's source, of whichever kind it names.

The one place that knows every kind of :class:`lens_ui.sources.RunSource`:
the kinds that need nothing beyond a file read (``lens_ui/sources.py``) and
the archive's, which checks a link against the folder's index
(``lens_ui/archive_source.py``). Each kind checks its own value
(``from_link``); this only picks the kind, so neither module imports the
other's neighbour and no kind is missing because a page was not imported yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from lens.link import is_archive_path, parse_ref
from lens_ui.archive_source import ArchiveSource
from lens_ui.sources import (ARCHIVE, FOLLOW, FollowSource, Linked, LinkRefused, RunSource,
                             SampleSource, UploadSource)

# Every kind of source, by the link parameter that names it and by its kind
# (a Compare reference's prefix).
SOURCES: tuple[type[RunSource], ...] = (SampleSource, UploadSource, ArchiveSource, FollowSource)
BY_LINK_KEY = {cls.link_key: cls for cls in SOURCES}
BY_KIND = {cls.kind: cls for cls in SOURCES}


def from_link(key: str, value: str) -> Linked:
    """The source a run-page link parameter names; :class:`LinkRefused` when none."""
    return BY_LINK_KEY[key].from_link(value)


@dataclass(frozen=True)
class Side:
    """A Compare side a reference names: the file's source, and the run it
    asks for in a file with several (its selector; None for the first)."""

    linked: Linked
    run_selector: str | None


def from_ref(ref: str) -> Side:
    """The comparison side a reference names (``<kind>:<value>[#runid=<selector>]``),
    checked as a run-page link of that kind is; :class:`LinkRefused` when none."""
    parsed = parse_ref(ref)
    if parsed is None or parsed[0] not in BY_KIND:
        raise LinkRefused("The link does not name a run as Lens writes one; opened the "
                          "default sample.")
    kind, value, selector = parsed
    if kind in (ARCHIVE, FOLLOW) and not is_archive_path(value):
        what = "archive run" if kind == ARCHIVE else "followed file"
        raise LinkRefused(f"The link's {what} is not a folder name and a plain path inside "
                          "that folder; ignored it.")
    return Side(BY_KIND[kind].from_link(value), selector)
