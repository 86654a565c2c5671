"""lens.run: an open run without widgets, built once and shared."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from corpus_files import case_names, read_bytes, recording_path
from lens.run import PROFILES, open_run
from recorders import RecordingError, build_projection, load_recording


def _imports_after(statement: str) -> set[str]:
    """Top-level modules loaded by ``statement`` in a fresh interpreter."""
    code = f"import sys; {statement}; print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_lens_run_and_the_command_line_import_no_ui_library():
    loaded = _imports_after("import lens.run, lens_cli.main, recorders")
    assert not loaded & {"streamlit", "plotly", "pandas"}, loaded & {"streamlit", "plotly", "pandas"}


def test_a_bad_file_raises_the_loaders_one_error():
    with pytest.raises(RecordingError, match="not valid JSON"):
        open_run(b"{not json")


@pytest.mark.parametrize("case", case_names())
def test_every_profile_projects_as_the_library_does(case):
    data = read_bytes(recording_path(case))
    run = open_run(data)
    recording = load_recording(data)
    for profile in PROFILES:
        expected = build_projection(recording, profile)
        assert [s.to_wire() for s in run.root_steps(profile)] == \
            [s.to_wire() for s in expected.get_steps()]
        assert run.projection(profile).notes == expected.notes


def test_a_profile_is_built_on_first_use_and_only_once():
    run = open_run(read_bytes(recording_path("parallel-3-reviewers")))
    assert not run.has_views("reference")
    first = run.views("reference")
    assert run.has_views("reference") and run.views("reference") is first


def test_sessions_asking_at_once_share_one_build():
    run = open_run(read_bytes(recording_path("nested-sequence-with-parallel")))
    seen, barrier = [], threading.Barrier(4)

    def ask() -> None:
        barrier.wait()
        seen.append(run.views("lens"))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 4 and all(views is seen[0] for views in seen)


def test_an_unknown_profile_is_refused():
    run = open_run(read_bytes(recording_path("llmcall-single")))
    with pytest.raises(ValueError, match="unknown profile"):
        run.views("mystery")


def test_every_position_of_a_scopes_list_places_back_into_that_scope():
    run = open_run(read_bytes(recording_path("nested-sequence-with-parallel")))
    for path in run.scopes("lens").paths():
        scoped = run.scoped_steps("lens", path)
        for position, step in enumerate(scoped.steps):
            place = run.place("lens", path, position)
            assert run.scope("lens", place.path).steps[place.index] == step
        assert run.place("lens", path, len(scoped.steps)) is None


def test_an_unknown_scope_means_the_root():
    run = open_run(read_bytes(recording_path("parallel-3-reviewers")))
    assert run.scope("lens", ("__root__", "nowhere")).path == ("__root__",)
    assert run.diagram("lens", ("__root__", "nowhere")) == run.diagram("lens", ("__root__",))


def test_no_layer_below_the_command_line_imports_it():
    """lens_cli sits above lens/, archive/, recorders/ and the app; none of them
    imports it (the CLI used to live in lens/ and import archive, which imports lens)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    offenders = []
    for folder in ("recorders", "lens", "archive", "lens_ui"):
        for source in (root / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(name == "lens_cli" or name.startswith("lens_cli.") for name in names):
                    offenders.append(str(source.relative_to(root)))
    assert offenders == []
    assert not (root / "lens" / "cli.py").exists()
