"""Build a recording with hostile strings in every field the app displays.

Takes a real corpus recording and rewrites it so that skill ids, tool names,
composition child ids, composition names, model and provider names, run ids,
producer versions, decision rationales, route captions (the ``label`` of
``context.evaluated`` routing entries and of skill-graph edges), skill
descriptions, model content, tool arguments and results, context summaries and
reasons all carry markup, script, remote images and ``javascript:`` links.

The structure stays valid: an identifier is replaced by the same hostile
identifier everywhere it occurs (whole values, ``/``-separated path segments,
the stage name before ``#`` in runtime stage ids, dict keys), and hostile
identifiers contain no ``/``, ``#`` or ``@``, the separators the projections
split on. Engine-internal names the projections match on (``sf-*`` slot
subflows, ``selector-temp``, the context fork's ``System Prompt`` /
``Messages`` / ``Tools`` children, ``read_skill``, the ``route`` / ``final``
stages) are left alone, so the rebuilt run projects to the same steps.

Pure Python, no browser: the fixture writes the result to a temporary file.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
from pathlib import Path
from typing import Any

# Hosts that content points at. Any request to one of them means content loaded.
HOSTILE_HOSTS = ("attacker.example", "example.test", "hostile.lens-test.invalid")

# Identifier payloads: markup that executes if inserted as HTML, with none of
# the separators the projections split ids on ("/", "#", "@").
ID_PAYLOADS = (
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    '"><iframe src=javascript:alert(1)>',
    "<script>alert(1)",
    "{{7*7}}${7*7}<%= 7*7 %>",
    "<details open ontoggle=alert(1)>",
    "<input autofocus onfocus=alert(1)>",
    "[x](javascript:alert(1))",
    "\u202eevil\u202c<b onmouseover=alert(1)>",
    "<video><source onerror=alert(1)>",
)

HOSTILE_TEXT = "\n".join((
    "# Heading <script>alert(1)</script>",
    "<img src=x onerror=alert(1)> <svg/onload=alert(1)> <svg onload=alert(1)>",
    '"><iframe src="javascript:alert(1)"></iframe>',
    '<iframe src="http://hostile.lens-test.invalid/frame"></iframe>',
    "[click me](javascript:alert(1)) <a href=\"javascript:alert(1)\">link</a>",
    "![pixel](https://attacker.example/p.gif?c=lens) ![x](http://hostile.lens-test.invalid/x.png)",
    '<link rel="stylesheet" href="http://hostile.lens-test.invalid/s.css">',
    "<style>@import url(http://hostile.lens-test.invalid/i.css)</style>",
    '<meta http-equiv="refresh" content="0;url=http://hostile.lens-test.invalid/">',
    '<object data="http://hostile.lens-test.invalid/o"></object>',
    '<base href="http://hostile.lens-test.invalid/">',
    "</div></td></tr></table><h1 style=\"position:fixed;top:0;left:0;background:red\">BREAKOUT</h1>",
    "$$\\href{javascript:alert(1)}{katex}$$ :red[colour] {{7*7}} ${7*7} <%= 7*7 %> {% raw %}",
    "\u202egnp.exe\u202c Z\u0337\u031b\u034ea\u0334\u0330l \u200b\u200d\ufeff bell\x07 cr\r tab\t \u2028 \u2029 </script> -->",
))

# Descriptions are parsed for a "<Kind>:" prefix; a colon-free variant keeps
# text that had no prefix from growing one.
HOSTILE_TEXT_NO_COLON = HOSTILE_TEXT.replace(":", "\uff1a")

LONG_LINE_CHARS = 50_000

# Keys whose string values are free text shown to the user.
_TEXT_KEYS = frozenset({
    "content", "result", "rationale", "contentSummary", "reason", "label",
    "description", "userPrompt", "finalContent", "message", "detail", "error",
})
_VERSION_KEYS = frozenset({"agentfootprintVersion", "footprintjsVersion"})
# Framework names the projections match on: never renamed.
_KEEP = frozenset({
    "read_skill", "__root__", "selector-temp", "System Prompt", "Messages", "Tools",
    "route", "final", "merge", "tool-calls", "BoundaryEvents", "",
})
_KIND_PREFIX = re.compile(r"^([A-Za-z][A-Za-z0-9]*):")


def hostile_identifier(index: int) -> str:
    """A unique hostile identifier; unique so two ids never collapse into one."""
    return f"{ID_PAYLOADS[index % len(ID_PAYLOADS)]}\u00b7{index}"


def _boundary_log(recording: dict) -> list[dict]:
    for row in recording.get("snapshot", {}).get("recorders", []):
        if isinstance(row, dict) and row.get("name") == "BoundaryEvents":
            return row["data"]
    raise ValueError("recording has no BoundaryEvents log")


def collect_identifiers(document: dict) -> list[str]:
    """User-chosen names in a recording (or envelope), in a stable order."""
    recording = document.get("recording", document)
    found: dict[str, None] = {}

    def add(value: Any) -> None:
        if isinstance(value, str) and value not in _KEEP:
            found.setdefault(value)

    config = document.get("configuration")
    if isinstance(config, dict):
        add(config.get("agentId"))
    for event in recording.get("events", []):
        payload = event.get("payload") or {}
        add((event.get("meta") or {}).get("runId"))
        etype = event.get("type", "")
        if etype.endswith("skill.graph_declared"):
            for node in payload.get("nodes", []):
                add(node.get("id"))
        if etype.endswith("context.evaluated"):
            for item in payload.get("skillCatalog", []):
                add(item.get("id"))
        if etype.endswith("stream.llm_start"):
            for tool in payload.get("tools") or []:
                add(tool.get("name"))
            add(payload.get("model"))
            add(payload.get("provider"))
        if etype.endswith("stream.tool_start"):
            add(payload.get("toolName"))
        if etype.endswith("composition.enter"):
            add(payload.get("id"))
    for event in _boundary_log(recording):
        etype = event.get("type")
        if etype == "subflow.entry" and not event.get("isAgentInternal"):
            local = event.get("localSubflowId", "")
            if not local.startswith("sf-"):
                add(local)
        if etype == "tool.start":
            add(event.get("toolName"))
        if etype == "llm.start":
            add(event.get("model"))
            add(event.get("provider"))
        if etype in ("composition.start", "composition.end"):
            add(event.get("compositionId"))
    _collect_structure_children(recording.get("structure"), add)
    run = document.get("run")
    if isinstance(run, dict):
        add(run.get("runId"))
    return list(found)


def _collect_structure_children(node: Any, add) -> None:
    """Composition branches that never ran still appear in the structure."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            sid = item.get("subflowId")
            if item.get("isSubflowRoot") and isinstance(sid, str) and not sid.startswith("sf-") \
                    and "/" not in sid:
                add(sid)
            for key in ("next", "children", "subflowStructure"):
                if key in item:
                    stack.append(item[key])


def _composition_names(document: dict) -> set[str]:
    recording = document.get("recording", document)
    names = set()
    for event in _boundary_log(recording):
        if event.get("type") in ("composition.start", "composition.end"):
            if isinstance(event.get("name"), str):
                names.add(event["name"])
    for event in recording.get("events", []):
        if event.get("type", "").startswith("agentfootprint.composition."):
            name = (event.get("payload") or {}).get("name")
            if isinstance(name, str):
                names.add(name)
    return names - _KEEP


class _Rewriter:
    def __init__(self, identifiers: list[str], composition_names: set[str]):
        self.ids = {name: hostile_identifier(i) for i, name in enumerate(identifiers)}
        self.names = {name: f"{HOSTILE_TEXT.splitlines()[0]} {n}"
                      for n, name in enumerate(sorted(composition_names))}

    def ident(self, value: str) -> str:
        if value in self.ids:
            return self.ids[value]
        if value in self.names:
            return self.names[value]
        if "/" not in value and "#" not in value:
            return value
        segments = []
        for segment in value.split("/"):
            head, hash_, tail = segment.partition("#")
            segments.append(self.ids.get(head, head) + hash_ + tail)
        return "/".join(segments)

    @staticmethod
    def text(key: str, value: str) -> str:
        if key == "description":
            prefix = _KIND_PREFIX.match(value)
            return f"{prefix.group(1)}: {HOSTILE_TEXT}" if prefix else HOSTILE_TEXT_NO_COLON
        return HOSTILE_TEXT

    def walk(self, node: Any, key: str | None = None) -> Any:
        # Iterative enough for this corpus' depth (< 100); the large files are not used here.
        if isinstance(node, dict):
            out = {}
            for k, v in node.items():
                if k == "args":
                    out[k] = {hostile_identifier(0): HOSTILE_TEXT,
                              "nested": {hostile_identifier(1): [HOSTILE_TEXT, 7]}}
                else:
                    out[self.ident(k) if isinstance(k, str) else k] = self.walk(v, k)
            return out
        if isinstance(node, list):
            return [self.walk(v, key) for v in node]
        if isinstance(node, str):
            if key in _TEXT_KEYS and node:
                return self.text(key, node)
            if key in _VERSION_KEYS:
                return f"{node}{ID_PAYLOADS[0]}"
            return self.ident(node)
        return node


def make_hostile(document: dict) -> tuple[dict, dict[str, str]]:
    """The hostile copy of a recording or envelope, and the identifier map used."""
    rewriter = _Rewriter(collect_identifiers(document), _composition_names(document))
    hostile = rewriter.walk(copy.deepcopy(document))
    recording = hostile.get("recording", hostile)
    boundary = _boundary_log(recording)
    for event in boundary:
        if event.get("type") == "decision.branch":
            event["rationale"] = HOSTILE_TEXT
    _add_long_line(recording, boundary)
    _add_unknown_types(recording, boundary)
    return hostile, rewriter.ids


def _add_long_line(recording: dict, boundary: list[dict]) -> None:
    """The final answer gets a single 50,000-character line, as in hostile-strings-agent."""
    long_line = "\n" + "A" * (LONG_LINE_CHARS // 2) + "<img src=x onerror=alert(1)>" + \
        "B" * (LONG_LINE_CHARS // 2)
    for event in reversed(boundary):
        if event.get("type") == "llm.end" and isinstance(event.get("content"), str):
            event["content"] += long_line
            break
    for event in reversed(recording.get("events", [])):
        if event.get("type", "").endswith("stream.llm_end"):
            payload = event.get("payload") or {}
            if isinstance(payload.get("content"), str):
                payload["content"] += long_line
            break


def _add_unknown_types(recording: dict, boundary: list[dict]) -> None:
    """Event types this version does not know are shown raw: give them hostile names."""
    events = recording.get("events", [])
    if events:
        last = events[-1]
        events.append({"type": "agentfootprint.<img src=x onerror=alert(1)>",
                       "payload": {"note": HOSTILE_TEXT}, "meta": dict(last.get("meta") or {})})
    exit_index = next((i for i in range(len(boundary) - 1, -1, -1)
                       if boundary[i].get("type") == "run.exit"), len(boundary))
    anchor = boundary[exit_index - 1] if exit_index > 0 else {"ts": 0}
    boundary.insert(exit_index, {
        "type": "<svg onload=alert(1)>", "runtimeStageId": "__root__#0",
        "subflowPath": ["__root__"], "ts": anchor.get("ts", 0), "note": HOSTILE_TEXT,
    })


def read_document(path: Path) -> Any:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw)


def write_hostile(source: Path, target_dir: Path) -> tuple[Path, dict[str, str]]:
    """Write the hostile copy of ``source`` (gzipped) into ``target_dir``."""
    hostile, ids = make_hostile(read_document(source))
    name = source.parent.name + "-hostile.json.gz"
    target = target_dir / name
    target.write_bytes(gzip.compress(json.dumps(hostile, ensure_ascii=False).encode("utf-8")))
    return target, ids
