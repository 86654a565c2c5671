"""The answer-first probe knows an upload's first screen by what the run bar shows of
the file's digest: that must be what the app's label shows, or every upload times out."""

import gzip

from benchmarks.bench_answer_first import digest_mark, outcome_words
from lens.run import open_run
from lens.run_label import upload_label
from lens_ui.sources import digest_of
from tests.family_files import family_names, family_recording


def test_digest_mark_is_what_the_run_bar_label_shows():
    data = gzip.decompress(family_recording(family_names()[0]).read_bytes())
    label = upload_label("some-run.json", open_run(data), digest_of(data), 0.0)
    assert f" · {digest_mark(data)} · " in label


def test_outcome_words_stop_before_the_first_quote():
    for name in family_names()[:5]:
        data = gzip.decompress(family_recording(name).read_bytes())
        words = outcome_words(data)
        sentence = open_run(data).facts.outcome.sentence
        assert sentence.startswith(words) and words
        assert not any(quote in words for quote in "“”\"'‘’«")
