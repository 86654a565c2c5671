"""Shared helpers for the comparison tests: open a pair's runs, run the CLI."""

from __future__ import annotations

import json
from functools import lru_cache

from corpus_files import pair_run_path, read_bytes
from lens_cli.main import main
from lens.run import OpenRun, open_run


@lru_cache(maxsize=None)
def pair_run(pair: str, side: str) -> OpenRun:
    return open_run(read_bytes(pair_run_path(pair, side)))


def cli_json(capsys, *args: str) -> dict:
    capsys.readouterr()
    status = main(["compare", *args])
    out = capsys.readouterr().out
    assert status == 0
    return json.loads(out)
