"""What ``footprint-lens info`` says of how a run ended, and every ``causes``
headline, is a person's sentence, over every recording the project holds.

Every corpus case, every pair side and every family recording and envelope
(copies of ``../shared/recordings``) is read through the commands' own
``run`` (as the CLI calls them): the outcome's sentence, and the outcome's
headline and detail (which Run details and the HTML export show), for each
run the file holds, and each cause's headline. Their own words (what they
quote from the recording taken out) hold no event type name (the
catalogue's, long or short, and the boundary log's), no ``key=value`` or
``key: value`` field list, no JSON brace, no ``None``, no float noise, no
``(s)`` plural and no "1 calls"."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from corpus_files import PAIRS_DIR, case_names, recording_path
from family_files import family_files
from lens_cli import causes_command, info_command
from recorders import boundary_names
from recorders.catalogue import EVENT_TYPES
from recorders.loading import load_path_file
from recorders.profiles import DEFAULT_PROFILE

# Longest first, so ``composition.exit`` is not found inside a longer name first.
_TYPE_NAMES = sorted({t.name for t in EVENT_TYPES} | {t.short for t in EVENT_TYPES}
                     | set(boundary_names.ALL_NAMES), key=len, reverse=True)
TYPE_NAME = re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, _TYPE_NAMES)) + r")(?![\w])")
KEY_EQUALS = re.compile(r"\b[A-Za-z_]\w*=\S")
# ``reason: budget; iteration: 3``: a field name (lower case first, as payload
# keys are; a sentence's "Crashed: …" is not one) opening the text or a clause.
KEY_COLON = re.compile(r"(?:^|[;(]\s*|,\s)[a-z_][A-Za-z0-9_]*: ")
# More than two decimals; money below a cent is said to its first figures on purpose.
FLOAT_NOISE = re.compile(r"(?<![\d.])(?!(?<=\$)0\.00)\d+\.\d{3,}(?![\d.])")
# "1 calls", "1 model calls", "1 entries": one, then a plural noun (not an ordinal
# such as "model call 1 was", nor a unit).
ONE_PLURAL = re.compile(
    r"(?<![\w.,$])(?<!call )(?<!step )(?<!pass )(?<!attempt )(?<!turn )(?<!iteration )"
    r"1 (?:[a-z]+ )?(?!(?:was|is|has|does|ms)\b)(?:[a-z]+ies|[a-z]*[^s\W]s)\b")


def _files() -> list[tuple[str, Path]]:
    found = [(f"corpus/{case}", recording_path(case)) for case in case_names()]
    found += [(f"pairs/{path.relative_to(PAIRS_DIR)}", path)
              for path in sorted(PAIRS_DIR.glob("*/*/*.json*"))]
    found += [(f"families/{path.parent.name}/{path.name}", path) for path in family_files()]
    return found


FILES = _files()


def own_words(text: str) -> str:
    """The text's own words: what it quotes from the recording taken out."""
    return re.sub(r"“[^”]*”", "“”", text)


def word_faults(text: str) -> list[str]:
    own = own_words(text)
    faults = [f"event type name {m.group(0)!r}" for m in TYPE_NAME.finditer(own)]
    faults += [f"key=value {m.group(0)!r}" for m in KEY_EQUALS.finditer(own)]
    faults += [f"field list {m.group(0)!r}" for m in KEY_COLON.finditer(own)]
    faults += [f"JSON brace {c!r}" for c in "{}[]" if c in own]
    faults += ["None"] if re.search(r"\bNone\b", own) else []
    faults += ["(s) plural"] if "(s)" in own else []
    faults += [f"float noise {m.group(0)!r}" for m in FLOAT_NOISE.finditer(own)]
    faults += [f"one with a plural {m.group(0)!r}" for m in ONE_PLURAL.finditer(own)]
    return faults


def run_endings(path: Path) -> list[tuple[str, str]]:
    """(what, text) of every run ending ``info`` reports for the file's runs."""
    said = []
    runs = len(load_path_file(str(path)).runs)
    for number in range(1, runs + 1):
        outcome = info_command.run(argparse.Namespace(file=str(path), run=number))["outcome"]
        said.append((f"run {number} sentence", outcome["sentence"]))
        open_outcome = _open_outcome(path, number)
        said += [(f"run {number} headline", open_outcome.headline)]
        if open_outcome.detail is not None:
            said.append((f"run {number} detail", open_outcome.detail))
    return said


def _open_outcome(path: Path, number: int):
    """The outcome ``info`` reported, with the headline and detail it does not put
    on the wire (Run details and the HTML export show them)."""
    from recorders import cli as recorder_cli
    from lens.run import OpenRun
    from lens.run_facts import runs_held

    loaded = load_path_file(str(path))
    return OpenRun(recorder_cli.chosen_run(loaded, number),
                   runs_in_file=runs_held(loaded.runs)).facts.outcome


@pytest.mark.parametrize("name,path", FILES, ids=[name for name, _ in FILES])
def test_the_run_ending_and_every_cause_headline_are_plain_words(name, path):
    said = run_endings(path)
    causes = causes_command.run(argparse.Namespace(file=str(path), profile=DEFAULT_PROFILE))
    said += [(f"cause {c['kind']}", c["headline"]) for c in causes]
    faults = [f"{what}: {fault}: {text!r}" for what, text in said for fault in word_faults(text)]
    assert not faults, f"{name}:\n" + "\n".join(faults)
    for what, text in said:
        assert text.strip() == text != "" and "\n" not in text, f"{name}: {what}: {text!r}"


@pytest.mark.parametrize("text", [
    "Cut short by a budget (composition.iteration_exit)", "reason: budget; iteration: 3",
    "Before it, agent.output_schema_validation_failed said message: x", "kind=max_cost",
    "it ran {\"a\": 1}", "limit None", "3 call(s)", "after 1 model calls", "$0.27449999999999997",
    "tool.end arrived", "at 0.853 of the budget", "at $0.274"])
def test_the_check_finds_what_it_is_for(text):
    assert word_faults(text)


@pytest.mark.parametrize("text", [
    "The run answered after 1 model call: “{\"a\": 1} reason: x=1 None 0.2744999”.",
    "Crashed: model produced the same error", "model call 1 was retried", "after 1 ms",
    "its cost limit of $0.25 was crossed at $0.0042", "2 pieces of context"])
def test_the_check_leaves_plain_words_and_quotations_alone(text):
    assert not word_faults(text)
