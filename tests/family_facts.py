"""The ground truth of each family case, copied next to its recording.

``tests/data/families/<case>/facts.json`` is a byte-for-byte copy of
``../shared/recordings/families/<case>/facts.json``: what the framework's own
API says about the run (its story, ``whatWentWrong``, the ``expected`` facts a
viewer must be able to show), taken from the script, never from Lens. Copied
so the tests that check Lens against it pass on a fresh clone.
"""

from __future__ import annotations

import json
from typing import Any

from family_files import FAMILIES_DIR


def family_facts(case: str) -> dict[str, Any]:
    return json.loads((FAMILIES_DIR / case / "facts.json").read_text(encoding="utf-8"))
