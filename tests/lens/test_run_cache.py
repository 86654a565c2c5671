"""An open run keeps what it builds per scope in the cache it is opened with,
and builds a profile's views only when that profile is asked for."""

from __future__ import annotations

from contextlib import contextmanager

from family_files import family_recording

from lens.run import DIAGRAM_PER_JSON_BYTE, OpenRun
from lens.scopes import ROOT
from recorders.loading import load_path

CASE = "vendor-due-diligence-parallel"  # a parallel: scopes below the root


class CountingCache:
    """Keeps every value by key and counts the builds and the profile builds."""

    def __init__(self) -> None:
        self.kept: dict[tuple, object] = {}
        self.builds: list[tuple] = []
        self.sizes: dict[tuple, float] = {}
        self.profiles_built: list[str] = []

    def keep(self, key, build, *, per_json_byte):
        if key not in self.kept:
            self.builds.append(key)
            self.sizes[key] = per_json_byte
            self.kept[key] = build()
        return self.kept[key]

    @contextmanager
    def building_views(self, profile):
        self.profiles_built.append(profile)
        yield


def opened(cache=None) -> OpenRun:
    return OpenRun(load_path(str(family_recording(CASE))), cache=cache)


def test_what_depends_on_the_scope_is_built_once_through_the_cache():
    cache = CountingCache()
    run = opened(cache)
    nested = next(path for path in run.scopes("lens").paths() if path != ROOT)
    for _ in range(3):
        steps = run.scoped_steps("lens", ROOT)
        run.step_map("lens", ROOT)
        diagram = run.diagram("lens", ROOT)
    assert run.scoped_steps("lens", ROOT) is steps and run.diagram("lens", ROOT) is diagram
    assert sorted(cache.builds) == sorted([("scoped", "lens", ROOT), ("step_map", "lens", ROOT),
                                          ("diagram", "lens", ROOT)])
    assert cache.sizes[("diagram", "lens", ROOT)] == DIAGRAM_PER_JSON_BYTE
    # Another scope is its own entry, not the root's.
    assert run.scoped_steps("lens", nested).path == nested
    assert ("scoped", "lens", nested) in cache.kept


def test_a_path_that_names_no_scope_is_kept_as_the_root():
    cache = CountingCache()
    run = opened(cache)
    root = run.scoped_steps("lens", ROOT)
    assert run.scoped_steps("lens", ("__root__", "no such scope")) is root
    assert cache.builds == [("scoped", "lens", ROOT)]


def test_only_the_profile_asked_for_is_built():
    cache = CountingCache()
    run = opened(cache)
    run.views("lens")
    run.diagram("lens", ROOT)
    assert cache.profiles_built == ["lens"]
    assert not run.has_views("reference")
    assert run.built_step_counts() == {"lens": run.step_count("lens")}
    run.views("reference")
    run.views("reference")
    assert cache.profiles_built == ["lens", "reference"]
    assert set(run.built_step_counts()) == {"lens", "reference"}


def test_without_a_cache_nothing_is_kept_and_the_views_agree():
    kept, plain = opened(CountingCache()), opened()
    assert plain.scoped_steps("lens", ROOT) is not plain.scoped_steps("lens", ROOT)
    assert plain.scoped_steps("lens", ROOT).steps == kept.scoped_steps("lens", ROOT).steps
    assert plain.diagram("lens", ROOT) == kept.diagram("lens", ROOT)
