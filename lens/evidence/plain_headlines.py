"""The headline of a framework verdict or warning, in a support engineer's words.

``permission.check: result=deny, target=x`` becomes "A permission check
denied x (rule TRS-04): “…”". Types with a sentence of their own are in
``_SENTENCES``; any other type is said by the first clause of the
catalogue's meaning, then the event's own words quoted. The type name and the
payload stay on the cause (its ``kind`` and ``detail``), one click down.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from recorders.evidence import EvidenceIndex, Finding
from lens.wording import and_words, money, number, plural, quoted, times
from lens.text import one_line

NAME_CHARS = 60


def finding_headline(index: EvidenceIndex, alike: Sequence[Finding]) -> str:
    """One sentence for ``alike`` (findings of one type, the first told)."""
    first = alike[0]
    say = _SENTENCES.get(first.short)
    sentence = say(index, alike) if say is not None else None
    if sentence is None:
        sentence = _generic(index, first)
        if len(alike) > 1:
            sentence += f" ({times(len(alike))} in the run; the first shown)"
    return sentence


def _p(finding: Finding) -> dict[str, Any]:
    return finding.payload if isinstance(finding.payload, dict) else {}


def _text(finding: Finding, *names: str) -> str | None:
    """The first of the named payload fields that holds a non-empty text."""
    payload = _p(finding)
    for name in names:
        value = payload.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _name(value: object) -> str:
    return one_line(value if isinstance(value, str) else "(no name recorded)", NAME_CHARS)


def _tool(index: EvidenceIndex, finding: Finding, *fields: str) -> str | None:
    if finding.tool is not None and isinstance(index.tool_calls[finding.tool].name, str):
        return _name(index.tool_calls[finding.tool].name)
    named = _text(finding, *fields, "toolName", "tool", "target")
    return _name(named) if named else None


def _call(index: EvidenceIndex, finding: Finding, word: str = "at") -> str:
    if finding.call is None or not 0 <= finding.call < len(index.calls):
        return ""
    return f" {word} model call {finding.call + 1}"


def _often(alike: list) -> str:
    """The " (3 times)" tail of a headline whose finding recurs; empty when it is once."""
    return f" ({times(len(alike))})" if len(alike) > 1 else ""


def _said(text: str | None) -> str:
    return f": {quoted(text)}" if text else ""


def _generic(index: EvidenceIndex, finding: Finding) -> str:
    meaning = finding.meaning.strip()
    clause = meaning.split(":")[0].split(". ")[0].split(" (")[0].rstrip(".") \
        or f"The framework reported {finding.short.replace('.', ' ').replace('_', ' ')}"
    tool = _tool(index, finding)
    head = f"Tool {tool}: {clause[:1].lower() + clause[1:]}" if tool else clause
    texts = [text for _, text in finding.words
             if not text.startswith(("{", "[")) and not _plain_value(text)]
    return head + (_said(texts[0]) if texts else "")


def _plain_value(text: str) -> bool:
    """A bare number, boolean or null as JSON: not words worth quoting."""
    return text in ("true", "false", "null") or text.replace(".", "", 1).lstrip("-").isdigit()


# ─── Types with a sentence of their own ────────────────────────────────


def _permission_check(index, alike):
    f = alike[0]
    result = _text(f, "result") or "decided on"
    verb = {"deny": "denied", "halt": "halted the run at", "allow": "allowed"}.get(result, result)
    rule = _text(f, "policyRuleId", "ruleId", "rule")
    why = _text(f, "rationale", "reason", "why")
    return (f"A permission check {verb} {_tool(index, f) or 'a tool call'}"
            + (f" (rule {one_line(rule, NAME_CHARS)})" if rule else "") + _said(why))


def _permission_halt(index, alike):
    f = alike[0]
    return (f"A permission check stopped the run at {_tool(index, f) or 'a tool call'}"
            + _said(_text(f, "reason", "rationale")))


def _fallback(index, alike):
    f = alike[0]
    primary = _text(f, "primary") or "The primary provider"
    backup = _text(f, "fallback")
    reasons = list(dict.fromkeys(r for r in (_text(a, "reason") for a in alike) if r))
    said = " (" + "; then ".join(quoted(r) for r in reasons[:2]) + ")" if reasons else ""
    failed = "failed" + ("" if len(alike) == 1 else f" {times(len(alike))}")
    instead = f" and {backup} answered instead" if backup else " and its fallback answered"
    return f"{_name(primary)} {failed}{said}{instead}"


def _circuit(index, alike):
    f = alike[0]
    provider = _text(f, "providerName", "provider")
    state = _text(f, "state") or "changed"
    verb = {"open": "opened", "closed": "closed again", "half_open": "let one probe through",
            "half-open": "let one probe through"}.get(state, f"turned {state}")
    return (f"The circuit breaker{' of ' + _name(provider) if provider else ''} {verb}"
            + _said(_text(f, "reason")))


def _cost_limit(index, alike):
    f = alike[0]
    p = _p(f)
    limit, actual = p.get("limit"), p.get("actual", p.get("spent", p.get("value")))
    if not isinstance(limit, (int, float)) or isinstance(limit, bool):
        return None
    fmt = money if p.get("kind") in (None, "max_cost") else number
    what = "cost limit" if p.get("kind") in (None, "max_cost") else "limit"
    at = (f" at {fmt(actual)}" if isinstance(actual, (int, float)) and not isinstance(actual, bool)
          else "")
    return f"The run’s {what} of {fmt(limit)} was crossed{at}{_call(index, f, 'after')}"


def _retried(index, alike):
    f = alike[0]
    error = _text(f, "lastError", "errorMessage", "error")
    return (f"A call was retried {times(len(alike))}" if len(alike) > 1
            else "A call was retried") + (f" after {quoted(error)}" if error else "")


def _recovered(index, alike):
    f = alike[0]
    attempt = _p(f).get("attempt")
    at = f" on attempt {number(attempt)}" if isinstance(attempt, int) else ""
    return f"A retried call succeeded{at}" + _often(alike)


def _repeated(index, alike):
    f = alike[0]
    tools = list(dict.fromkeys(t for t in (_tool(index, a) for a in alike) if t))
    if len(alike) > 1:
        return (f"The model repeated {plural(len(alike), 'tool call')} with the same arguments"
                + (f" ({and_words(tools)})" if tools else ""))
    n = _p(f).get("occurrences")
    count = f" {times(n)}" if isinstance(n, int) and not isinstance(n, bool) else " again"
    return f"The model called {_tool(index, f) or 'a tool'} with the same arguments{count}"


def _contract(index, alike):
    f = alike[0]
    return "The answer did not meet its output schema" + _said(_text(f, "error", "message"))


def _schema_failed(index, alike):
    f = alike[0]
    return "The answer failed its output schema" + _said(_text(f, "message", "error"))


def _schema_retry(index, alike):
    f = alike[0]
    return "The model was asked again because its answer did not parse" \
        + _said(_text(f, "error", "message"))


def _fail_fast(index, alike):
    f = alike[0]
    return ("The run failed fast" + _said(_text(f, "label"))
            + (f" after {quoted(_text(f, 'errorMessage'))}" if _text(f, "errorMessage") else ""))


def _fatal(index, alike):
    f = alike[0]
    return "The run stopped on an error" + _said(_text(f, "error", "message"))


def _credential(index, alike):
    f = alike[0]
    service = _text(f, "service")
    tool = _tool(index, f, "service")
    return (f"{tool or 'A tool'} could not get its credentials"
            + (f" for {_name(service)}" if service else "") + _said(_text(f, "reason", "error")))


def _authorization(index, alike):
    f = alike[0]
    service = _text(f, "service")
    return (f"{_tool(index, f) or 'A tool'} needs someone to authorize it"
            + (f" for {_name(service)}" if service else ""))


def _middleware(index, alike):
    """Each distinct decision of the chain once (which middleware, what it did,
    to what): a mask and a pause for a person are two findings, not one twice."""
    decisions: dict[tuple, list[Finding]] = {}
    for finding in alike:
        key = (_text(finding, "middleware"), _text(finding, "outcome"),
               _p(finding).get("changed") is True, _middleware_target(index, finding))
        decisions.setdefault(key, []).append(finding)
    told = [_decision(index, same) for same in decisions.values()]
    more = len(told) - 2
    return ("A middleware " + told[0] + "".join(f"; another {t}" for t in told[1:2])
            + (f"; and {plural(more, 'more decision')}" if more > 0 else ""))


def _middleware_target(index, finding: Finding) -> str:
    tool = _tool(index, finding)
    if tool:
        return tool
    return "a message" if _text(finding, "at") == "message" else "a model call"


def _decision(index, same: list) -> str:
    f = same[0]
    outcome = _text(f, "outcome") or "decided"
    if outcome == "allow" and _p(f).get("changed") is True:
        verb = "changed"
    else:
        verb = {"deny": "denied", "allow": "let through", "block": "blocked",
                "ask": "paused to ask a person about"}.get(outcome, outcome)
    return (f"{verb} {_middleware_target(index, f)}{_often(same)}"
            + _said(_text(f, "why", "reason")))


def _tool_end(index, alike):
    f = alike[0]
    status = _text(f, "status")
    return (f"Tool {_tool(index, f) or '(no name recorded)'} answered"
            + (f" with status {status}" if status else "") + _said(_text(f, "result")))


def _result_refused(index, alike):
    f = alike[0]
    size = _p(f).get("sizeChars")
    chars = f" ({plural(size, 'character')})" if isinstance(size, int) else ""
    return f"The result of {_tool(index, f) or 'a tool'} was refused as too large{chars}"


def _shadowed(index, alike):
    tools = list(dict.fromkeys(t for t in (_tool(index, a) for a in alike) if t))
    source = _text(alike[0], "schemaFrom")
    named = (f"a tool named {tools[0]}" if len(tools) == 1 else
             f"tools named {and_words(tools)}" if tools else "a tool of the same name")
    return (f"Two sources offer {named}"
            + (f"; the model read the {source}’s description" if source else ""))


def _absent(index, alike):
    """A tool's honest "found nothing", once per search: the same search asked
    again (a repeated call, told by its own cause) is not a second finding."""
    f = alike[0]
    searches = list(dict.fromkeys((_tool(index, a), _text(a, "lookedFor")) for a in alike))
    looked = _text(f, "lookedFor")
    missing = _p(f).get("notChecked")
    unchecked = [item.get("what") for item in missing if isinstance(item, dict)
                 and isinstance(item.get("what"), str)] if isinstance(missing, list) else []
    return (f"{_tool(index, f) or 'A tool'} found nothing"
            + (f" for {quoted(looked)}" if looked else "")
            + (f" and did not check {quoted(unchecked[0])}" if unchecked else "")
            + (f" ({plural(len(searches) - 1, 'other search')} found nothing too)"
               if len(searches) > 1 else ""))


def _coverage(index, alike):
    f = alike[0]
    missing = _p(f).get("notChecked")
    whats = [item.get("what") for item in missing if isinstance(item, dict)] \
        if isinstance(missing, list) else []
    whats = [quoted(w) for w in whats if isinstance(w, str)]
    return (f"{_tool(index, f) or 'A tool'} said what it did not check"
            + (f": {and_words(whats)}" if whats else ""))


def _args_invalid(index, alike):
    f = alike[0]
    issues = _p(f).get("issues")
    paths = [i.get("path") for i in issues if isinstance(i, dict)] if isinstance(issues, list) else []
    paths = [p for p in paths if isinstance(p, str)]
    return (f"The model called {_tool(index, f) or 'a tool'} with invalid arguments"
            + (f" ({plural(len(paths), 'field')}: {and_words(paths)})" if paths else ""))


def _code_run(index, alike):
    f = alike[0]
    ok = _p(f).get("ok")
    return f"Code run by {_tool(index, f) or 'a tool'} " + ("succeeded" if ok else "failed")


def _thinking_parse_failed(index, alike):
    """Names the reasoning that was lost: the pass (iteration) and its model
    call, the provider that sent it, and the parser's own words."""
    f = alike[0]
    iteration = _p(f).get("iteration")
    which = (f" of pass {number(iteration)}" if isinstance(iteration, (int, float))
             and not isinstance(iteration, bool) else "")
    provider = _text(f, "providerName")
    return (f"The reasoning block{which}{_call(index, f, 'of')} could not be read"
            + (f" from {_name(provider)}" if provider else "") + ", so it was dropped"
            + _said(_text(f, "error", "errorName")) + _often(alike))


def _session_close(index, alike):
    f = alike[0]
    return "A tool session could not be closed" + _said(_text(f, "error"))


def _discovery(index, alike):
    f = alike[0]
    return "The tool list could not be fetched" + _said(_text(f, "error"))


def _iteration_exit(index, alike):
    f = alike[0]
    p = _p(f)
    reason = _text(f, "reason")
    it = p.get("iteration")
    after = f" after {plural(it, 'iteration')}" if isinstance(it, int) else ""
    return ("A loop stopped" + after
            + (" because its budget ran out" if reason == "budget" else _said(reason)))


def _exit(index, alike):
    f = alike[0]
    name = _text(f, "name")
    status = _text(f, "status")
    what = f"The composition {_name(name)}" if name else "A composition"
    if status == "budget_exhausted":
        how = " ran out of its budget"
    else:
        how = f" ended with status {status}" if status else " ended"
    return what + how + _often(alike)


def _branch(index, alike):
    f = alike[0]
    branch = _text(f, "branchId")
    status = _text(f, "status")
    return (f"Branch {_name(branch)}" if branch else "A branch") + (
        " ended with an error" if status == "err" else
        f" ended with status {status}" if status else " ended")


def _threshold(index, alike):
    f = alike[0]
    metric = _text(f, "metricId") or "an evaluation"
    direction = _text(f, "direction")
    p = _p(f)
    score, bar = p.get("score", p.get("value")), p.get("threshold")
    nums = ""
    if isinstance(score, (int, float)) and isinstance(bar, (int, float)):
        nums = f" ({number(score)} against {number(bar)})"
    return (f"The score of {_name(metric)} went "
            + (direction if direction in ("below", "above") else "past") + f" its threshold{nums}"
            + _said(_text(f, "actionTaken")))


def _map_parked(index, alike):
    f = alike[0]
    idle = _p(f).get("idleCalls")
    after = f" after {plural(idle, 'model call')} without using its tools" if isinstance(
        idle, int) else ""
    return f"The skill map {_name(_text(f, 'mapId'))} was set aside{after}"


def _memory_detached(index, alike):
    f = alike[0]
    reason = _text(f, "reason")
    return (f"Memory entry {_name(_text(f, 'memoryId'))} was taken out of the context"
            + (f" as {reason}" if reason else ""))


def _risk(index, alike):
    f = alike[0]
    category = _text(f, "category")
    severity = _text(f, "severity")
    return ("A guardrail flagged " + (f"a {severity}-severity " if severity else "a ")
            + (f"{category} risk" if category else "risk")
            + _often(alike))


def _canned(index, alike):
    f = alike[0]
    return "The run gave a canned answer" + (
        f" after {quoted(_text(f, 'fallbackErrorMessage'))}" if _text(f, "fallbackErrorMessage")
        else "")


def _output_fallback(index, alike):
    f = alike[0]
    return "The answer was replaced by its fallback" + (
        f" after {quoted(_text(f, 'primaryErrorMessage'))}" if _text(f, "primaryErrorMessage")
        else "")


def _checkin(index, alike):
    f = alike[0]
    p = _p(f)
    by = _text(f, "by")
    verb = "approved" if p.get("approved") is True else "declined" if p.get("approved") is False \
        else "answered"
    return f"{_name(by) if by else 'A person'} {verb} the check-in" + _said(
        _text(f, "reason", "note", "comment"))


def _route_decided(index, alike):
    f = alike[0]
    chosen = _text(f, "chosen")
    return (f"The agent chose the route {_name(chosen)}" if chosen else "The agent chose a route") \
        + _said(_text(f, "rationale"))


def _reroute(index, alike):
    f = alike[0]
    return (f"The skill {_name(_text(f, 'volunteeredId'))} was set aside for "
            f"{_name(_text(f, 'wonId'))}")


def _conflict(index, alike):
    f = alike[0]
    p = _p(f)
    winner = p.get("winner") if isinstance(p.get("winner"), dict) else {}
    losers = [l for l in p.get("losers") or () if isinstance(l, dict)]
    won = f"{_name(winner.get('toolName'))} (to {_name(winner.get('target'))})" if winner else \
        "the first result"
    lost = and_words([f"{_name(l.get('toolName'))} (to {_name(l.get('target'))})" for l in losers])
    return f"Tool results pointed to different skills; {won} won" + (
        f" over {lost}" if lost else "")


def _skipped(index, alike):
    f = alike[0]
    step = _p(f).get("step") if isinstance(_p(f).get("step"), dict) else {}
    tool = step.get("tool")
    what = f"the {_name(tool)} step" if isinstance(tool, str) else "a procedure step"
    at, total = step.get("index"), step.get("total")
    if isinstance(at, int) and isinstance(total, int) and not isinstance(at, bool):
        what += f" ({at} of {total})"
    skill = _text(f, "skillId")
    via = _tool(index, f)
    return (f"The model skipped {what}" + (f" of the skill {_name(skill)}" if skill else "")
            + (f" by calling {via}" if via else "") + _said(_text(f, "reason")))


def _effect(index, alike):
    f = alike[0]
    outcome = _text(f, "outcome")
    return (f"What {_tool(index, f) or 'a tool'} asked for was "
            + {"superseded": "outrun by another proposal", "refused": "refused",
               "accepted": "accepted"}.get(outcome or "", outcome or "not recorded"))


def _artifact_expired(index, alike):
    f = alike[0]
    reason = _text(f, "reason")
    return (f"An artifact {_tool(index, f) and 'of ' + _tool(index, f) or ''} expired".replace(
        "  ", " ") + (f" ({reason})" if reason else ""))


def _artifact_refused(index, alike):
    f = alike[0]
    return (f"{_tool(index, f) or 'A tool'} was refused an artifact"
            + _said(_text(f, "detail", "reason")))


_SENTENCES: dict[str, Callable[[EvidenceIndex, Sequence[Finding]], str | None]] = {
    "permission.check": _permission_check, "permission.halt": _permission_halt,
    "fallback.triggered": _fallback, "error.circuit_changed": _circuit,
    "cost.limit_hit": _cost_limit, "error.retried": _retried, "reliability.retried": _retried,
    "error.recovered": _recovered, "tools.repeated_call": _repeated,
    "agent.output_contract_unmet": _contract, "agent.output_schema_validation_failed":
    _schema_failed, "agent.output_schema_retry": _schema_retry,
    "reliability.fail_fast": _fail_fast, "error.fatal": _fatal,
    "credential.failed": _credential, "credential.authorization_required": _authorization,
    "middleware.decision": _middleware, "stream.tool_end": _tool_end,
    "tools.result_refused": _result_refused, "tools.shadowed": _shadowed,
    "tools.absent": _absent, "tools.coverage_declared": _coverage,
    "validation.args_invalid": _args_invalid, "tools.code_run": _code_run,
    "tools.session_close_failed": _session_close,
    "agent.thinking_parse_failed": _thinking_parse_failed, "tools.discovery_failed": _discovery,
    "composition.iteration_exit": _iteration_exit, "composition.exit": _exit,
    "composition.branch_complete": _branch, "eval.threshold_crossed": _threshold,
    "map.parked": _map_parked, "memory.detached": _memory_detached, "risk.flagged": _risk,
    "resilience.output_canned_used": _canned,
    "resilience.output_fallback_triggered": _output_fallback, "checkin.decision": _checkin,
    "agent.route_decided": _route_decided, "skill.reroute_superseded": _reroute,
    "skill.route_conflict": _conflict, "skill.step_skipped": _skipped, "tools.effect": _effect,
    "artifacts.expired": _artifact_expired, "artifacts.refused": _artifact_refused,
}
