"""The run page's Share menu, in the sidebar under the projection: the open run
as a file to hand someone, consent first.

A person picks what to share (an HTML page, the recording, OpenTelemetry
spans) and whether to redact it (on by default, with their own patterns if
they like). Nothing is built until they ask, and nothing is downloaded until
they have seen what will be masked (counts by kind, example masks; never the
values) and how large the file is. The building is :mod:`lens.share.share_files`;
this is the widgets around it.
"""

from __future__ import annotations

import streamlit as st

from recorders.errors import RecordingError
from lens.wording import plural
from lens.share.share_files import HTML, KIND_WORDS, OTLP, Prepared, prepare, size_text
from lens.text import one_line
from lens_ui.runs import LoadedRun

SHARE_MENU = "lens.share_menu"  # the popover; True while open
KIND = "lens.share.kind"
REDACT = "lens.share.redact"
PATTERNS = "lens.share.patterns"
CONTENT = "lens.share.content"
PREPARED = "lens.share.prepared"  # (the options it was built with, Prepared)
REDACT_HELP = ("Masks API keys and tokens, e-mail addresses, card numbers (Luhn-checked) and "
               "phone numbers wherever the file carries text; the same value gets the same "
               "mask ([email 1]), so the run still reads.")


def share_menu(run: LoadedRun, profile: str) -> None:
    with st.popover("Share this run", icon=":material/share:", key=SHARE_MENU,
                    on_change="rerun", help="An HTML page, its recording or OpenTelemetry "
                                            "spans, redacted on request") as menu:
        # Drawn only while open, as Run details: closed, it costs nothing per step.
        if menu.open:
            _menu(run, profile)


def _menu(run: LoadedRun, profile: str) -> None:
    kind = st.radio("Share as", list(KIND_WORDS), format_func=KIND_WORDS.get, key=KIND)
    redact = st.toggle("Redact before sharing", value=True, key=REDACT, help=REDACT_HELP)
    patterns = ""
    if redact:
        with st.expander("Also mask what your own patterns match"):
            patterns = st.text_area("One regular expression a line", key=PATTERNS, height=68,
                                    placeholder=r"order A-\d+")
    content = (st.checkbox("Include message and tool contents", key=CONTENT,
                           help="The OpenTelemetry conventions make contents opt-in.")
               if kind == OTLP else False)
    options = (run.source.key, profile, kind, redact, patterns, content)
    kept = st.session_state.get(PREPARED)
    if kept is None or kept[0] != options:
        st.session_state.pop(PREPARED, None)  # built for other choices: let it go
        st.caption("Nothing is written until you ask: prepare the file to see what it masks "
                   "and how large it is, then download it.")
        st.button("Prepare the file", key="lens.share.prepare", type="primary",
                  on_click=_prepare_clicked, args=(run, profile, options))
        return
    prepared = kept[1]
    if isinstance(prepared, str):  # what stopped it, in one line
        st.error(prepared, icon=":material/error:")
        return
    _consent(prepared)
    st.download_button(f"Download {prepared.file_name}", data=prepared.data,
                       file_name=prepared.file_name, mime=prepared.mime, key="lens.share.download",
                       on_click="ignore", icon=":material/download:", type="primary")


def _prepare_clicked(run: LoadedRun, profile: str, options: tuple) -> None:
    _, _, kind, redact, patterns, content = options
    try:
        prepared: Prepared | str = _prepare(run, profile, kind, redact, patterns, content)
    except (RecordingError, ValueError) as exc:  # a bad pattern comes as a ValueError
        prepared = one_line(str(exc), 300)
    st.session_state[PREPARED] = (options, prepared)


def _prepare(run: LoadedRun, profile: str, kind: str, redact: bool, patterns: str,
             content: bool) -> Prepared:
    from lens.share.redaction import RedactionError, Redactor

    redactor = None
    if redact:
        lines = [line.strip() for line in patterns.splitlines()]
        try:
            redactor = Redactor(patterns=[p for p in lines if p and not p.startswith("#")])
        except RedactionError as exc:
            raise ValueError(str(exc)) from None
    source = run.source
    needs_file = redactor is not None or kind not in (HTML, OTLP)
    return prepare(kind, run, file_bytes=source.read() if needs_file else None,
                   file_name=source.name, run_index=source.run_index, profile=profile,
                   redactor=redactor, content=content)


def _consent(prepared: Prepared) -> None:
    """What leaves, before it leaves: what is masked, and the size."""
    if prepared.masked is None:
        st.warning("Not redacted: the file carries every text the run recorded (what users "
                   "typed, what tools returned, the prompts).", icon=":material/warning:")
    elif not prepared.masked:
        st.info("Redaction found nothing to mask in this run.", icon=":material/info:")
    else:
        lines = []
        for kind, count in prepared.masked.items():
            places = (prepared.places or {}).get(kind, 0)
            shown = ", ".join((prepared.examples or {}).get(kind, []))
            lines.append(f"{kind}: {plural(count, 'value')} in {plural(places, 'place')}, shown as {shown}"
                         + (" …" if count > len(shown.split(", ")) else ""))
        st.caption("Will be masked")
        st.text("\n".join(lines))
    st.caption(f"{prepared.form} · {size_text(prepared.size)} ({prepared.size:,} bytes)")
