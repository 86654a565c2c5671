"""Where a run comes from: one protocol, one class per kind of source.

A run on screen comes from a :class:`RunSource`: a sample shipped with Lens
(:class:`SampleSource`), an upload (:class:`UploadSource`), a file of the
follow folder (:class:`FollowSource`), all here, or a run file of an archive
folder (:class:`lens_ui.archive_source.ArchiveSource`, beside the archive's
reading). Each says, for itself:

- ``key``: its identity in the session (where the view was in it is
  remembered by it);
- ``digest``: its identity in the server's store: the sha256 of the file's
  bytes and, for a file with several runs, which of them;
- :meth:`RunSource.link_params`: the run page's query parameters that reopen it
  (``?run=``, ``?upload=``, ``?archive=``, ``?follow=``, and ``?runid=`` for a
  run of a file with several);
- ``ref``: how a Compare link names it as one side (``sample:<name>``, …);
- ``words``, ``label``, :meth:`RunSource.compare_label`: what the pages call it
  (app text, or recording text already clipped to one line);
- :meth:`RunSource.read`: the file's bytes now, or None when they are gone or
  changed since it was chosen (the open run is the bytes that were chosen).

A link names a source by its parameter: ``lens_ui/source_links.py`` hands
the value to the class that owns the parameter, which checks it against what
exists (the sample allow-list, the uploads the server holds, the archive
index, the follow folder) and refuses with :class:`LinkRefused`, one
app-written sentence that never quotes the link. Adding a kind of source is a
class (here, or in its own module when it needs more than this does), a line
in ``source_links.SOURCES``, and its parameter's syntax in ``lens/link.py``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

import streamlit as st

from lens.link import (FOLLOW as FOLLOW_PARAM, RUN as RUN_PARAM, RUN_ID, UPLOAD as UPLOAD_PARAM,
                       make_ref)
from archive.beneath import GONE, NOT_REGULAR, SYMLINK, TOO_LARGE
from lens_ui.folder_read import FolderFileRefused, read_in_folder
from lens_ui.follow_config import follow_folders
from lens_ui.held import server_store, session_id
from lens_ui.samples import opened_files, sample_catalog

SAMPLE, UPLOAD, ARCHIVE, FOLLOW = "sample", "upload", "archive", "follow"


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class LinkRefused(Exception):
    """A link's source that cannot be opened: one app-written sentence that
    never quotes the link. ``keeps_position``: the link's step and scope
    still apply to the run opened instead (a sample asked for by a wrong name)."""

    def __init__(self, sentence: str, keeps_position: bool = False) -> None:
        super().__init__(sentence)
        self.keeps_position = keeps_position


class UploadGone(LinkRefused):
    """A link names an upload the server no longer holds (it may be uploaded again)."""

    def __init__(self, digest: str) -> None:
        super().__init__("The link names an uploaded run the server no longer has; upload "
                         "the same file again to open it.")
        self.digest = digest


@dataclass(frozen=True)
class Linked:
    """What a link opened, and what to say once about it (None: nothing)."""

    source: "RunSource"
    notice: str | None = None


@dataclass(frozen=True)
class RunSource:
    """Where one run comes from; see the module doc. Subclasses set the
    class-level ``kind``, ``link_key`` and ``words`` and implement :meth:`read`
    and :meth:`from_link`."""

    name: str  # the sample's name, the upload's file name (untrusted), or "<label>/<path>"
    file_digest: str  # sha256 of the file's bytes
    run_index: int = 0  # which run of the file, in file order
    run_selector: str | None = None  # how a link names it (lens.link.run_selectors)
    # How the run is told apart in lists (app text and clipped, one-line
    # recording text); not part of its identity.
    label: str = field(default="", compare=False)

    kind: ClassVar[str] = ""
    link_key: ClassVar[str] = ""
    words: ClassVar[str] = ""  # "sample", "uploaded file", …: app text

    @property
    def ident(self) -> str:
        """What the link parameter carries."""
        return self.name

    @property
    def digest(self) -> str:
        """The run's key in the server's store: the file's digest, with the
        run's place after it for any run of a file but the first."""
        return self.file_digest if self.run_index == 0 else \
            f"{self.file_digest}#{self.run_index + 1}"

    @property
    def file_key(self) -> str:
        """The file's identity in the session, whichever of its runs is shown."""
        return f"{self.kind}:{self.ident}"

    @property
    def key(self) -> str:
        return self.file_key if self.run_index == 0 else f"{self.file_key}#{self.run_index + 1}"

    @property
    def ref(self) -> str:
        """How a Compare link names this run."""
        return make_ref(self.kind, self.ident, self.run_selector)

    def link_params(self) -> dict[str, str]:
        params = {self.link_key: self.ident}
        if self.run_selector is not None:
            params[RUN_ID] = self.run_selector
        return params

    def compare_label(self) -> str:
        """A selectbox label (shown as text, never markup): what the source is
        in words (an operator's file is not called a sample), then its name."""
        return f"{self.words} · {self.name}" + self._run_part()

    def _run_part(self) -> str:
        return "" if self.run_selector is None else f" · run {self.run_index + 1}"

    def in_file(self, index: int, selector: str | None, label: str | None = None) -> "RunSource":
        """The run ``index`` of the same file."""
        return replace(self, run_index=index, run_selector=selector,
                       label=self.label if label is None else label)

    def read(self) -> bytes | None:
        raise NotImplementedError

    @classmethod
    def from_link(cls, value: str) -> Linked:
        raise NotImplementedError


# An operator's file (--open, FOOTPRINT_LENS_OPEN) is offered beside the samples, by
# name like them, and is not one: this is what the pages call it.
OPERATORS_FILE_WORDS = "file Lens was started with"


class SampleSource(RunSource):
    """A run the server offers by name: a bundled sample, or a file the
    operator started Lens with (:func:`lens_ui.samples.sample_catalog`)."""

    kind, link_key = SAMPLE, RUN_PARAM

    @property
    def words(self) -> str:  # type: ignore[override]
        return OPERATORS_FILE_WORDS if self.name in opened_files() else "sample"

    def read(self) -> bytes | None:
        path = sample_catalog().get(self.name)
        return None if path is None else _sample_bytes(str(path))[1]

    @classmethod
    def named(cls, name: str) -> tuple["SampleSource", bytes]:
        """The allow-listed sample ``name`` and its bytes (KeyError for any other name)."""
        digest, data = _sample_bytes(str(sample_catalog()[name]))
        return cls(name, digest), data

    @classmethod
    def from_link(cls, value: str) -> Linked:
        if value not in sample_catalog():
            raise LinkRefused("The link names a run that is not one of the samples; opened "
                              "the default sample.", keeps_position=True)
        return Linked(cls.named(value)[0])


class UploadSource(RunSource):
    kind, link_key, words = UPLOAD, UPLOAD_PARAM, "uploaded file"

    @property
    def ident(self) -> str:
        return self.file_digest

    def read(self) -> bytes | None:
        return server_store().upload_bytes(session_id(), self.file_digest)

    def compare_label(self) -> str:
        return f"{self.words} · {self.name} · {self.file_digest[:10]}" + self._run_part()

    @classmethod
    def from_link(cls, value: str) -> Linked:
        # The rule of run links: an upload the server still holds opens for
        # whoever has its full digest.
        held = server_store().find_upload(session_id(), value)
        if held is None:
            raise UploadGone(value)
        return Linked(held.info)


class FollowSource(RunSource):
    """A file of the follow folder as it is when chosen (the Follow page
    follows it as it grows; this is what the run page and Compare open)."""

    kind, link_key, words = FOLLOW, FOLLOW_PARAM, "followed file"

    def read(self) -> bytes | None:
        label, _, file = self.name.partition("/")
        try:
            data = read_in_folder(follow_folders(), label, file)
        except (KeyError, OSError):
            return None
        return data if digest_of(data) == self.file_digest else None

    @classmethod
    def now(cls, label: str, file: str) -> tuple["FollowSource", bytes]:
        """The file as it is now (KeyError, OSError as :func:`read_in_folder`)."""
        data = read_in_folder(follow_folders(), label, file)
        return cls(f"{label}/{file}", digest_of(data)), data

    @classmethod
    def from_link(cls, value: str) -> Linked:
        label, _, file = value.partition("/")
        if label not in follow_folders():
            raise LinkRefused("The link names a follow folder this server does not offer; "
                              "opened the default sample.")
        try:
            return Linked(cls.now(label, file)[0])
        except KeyError:
            raise LinkRefused("The link's followed file leads outside its folder; opened the "
                              "default sample.") from None
        except FolderFileRefused as refused:
            raise LinkRefused(FOLDER_REFUSALS.get(refused.kind, _GONE)
                              .format(what="followed file")) from None


_GONE = "The linked {what} is no longer in its folder; opened the default sample."
# Why a file of a configured folder was not read, for a link to it.
FOLDER_REFUSALS = {
    GONE: _GONE,
    SYMLINK: ("The linked {what} is now a symlink, which Lens does not follow inside a "
              "configured folder; opened the default sample."),
    NOT_REGULAR: ("The linked {what} is not a regular file any more; opened the default "
                  "sample."),
    TOO_LARGE: ("The linked {what} is now larger than this server opens "
                "(LENS_MAX_EXPANDED_MB); opened the default sample."),
}

@st.cache_resource(max_entries=32, show_spinner=False)
def _sample_bytes(path: str) -> tuple[str, bytes]:
    data = Path(path).read_bytes()
    return digest_of(data), data
