"""The check of LLM prose against the result it was written from (PURE).

Every number in the prose must match a number of the result, allowing
rounding to the digits shown (``61 %`` for a share of 0.6053, ``87,000`` for
87,210), percent formatting (a fraction x may appear as 100·x) and byte
units (kB, MB, GB, KiB, MiB, GiB). Every route the prose names (a token
starting with ``/``, or anything in backticks that looks like one) must be
a key of the result. The digits of a key are part of its name; numbers in
backticks are numbers all the same. A number said of a key must be that key's
own or one of the whole result (``misattributed``). Keys that are not paths (components,
error templates: later issues) belong in ``known_names`` and ``_named``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from logagent.report.mask import mask
from logagent.result import Result

# A number not glued to a word before it (v1, qwen2); "5xx" is a status class, not a number.
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!xx)")
# A number with a scale glued to it: "3M", "40k", "1e6". Only its leading digits had been
# checked (3 of "3M" is in any result); the check cannot tell what they scale. ("5x" is left:
# the report's own "1x CONTINUE" counts so.)
_SCALED = re.compile(r"(?<![\w.])\d[\d,.]*(?:[eE][+-]?\d+|[kKMB](?![a-zA-Z]))")  # 10m: minutes
# Numbers in words are not checked against anything: they are named as a problem.
_NUMBER_WORDS = re.compile(
    r"\b(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|"
    r"billion|dozens?)\b",
    re.IGNORECASE,
)
_CODE = re.compile(r"`([^`]*)`")
_PATH = re.compile(r"(?<![\w:/.<])/[\w{}\-./%~:]*[\w{}\-%~]")
MAX_WORDS = 300  # the prompt asks for 150; a rambling reply is not a short report
_BYTE_SCALES = (1e3, 1e6, 1e9, 2.0**10, 2.0**20, 2.0**30)
_BYTE_FIELDS = {"bytes_total", "bytes_read", "bytes", "peak_rss_bytes", "unit_size"}


def problems(prose: str, result: Result) -> list[str]:
    """What in ``prose`` does not match ``result``; empty when it is grounded."""
    if not prose.strip():
        return ["the text is empty"]
    allowed = allowed_numbers(result)
    names = known_names(result)
    found = [f"route {n} is not in the result" for n in _named(prose) if n not in names]
    if len(prose.split()) > MAX_WORDS:
        found.append(f"the text is longer than {MAX_WORDS} words")
    bare = _without_names(prose, names)
    found += [f"the number {m.group(0)} is not checkable" for m in _SCALED.finditer(bare)]
    found += [
        f"the number word {m.group(0)!r} is not checkable" for m in _NUMBER_WORDS.finditer(bare)
    ]
    for match in _NUMBER.finditer(bare):
        text = match.group(0)
        if not matches(text, allowed):
            found.append(f"the number {text} is not in the result")
    found += misattributed(prose, result)
    return list(dict.fromkeys(found))


def misattributed(prose: str, result: Result) -> list[str]:
    """Numbers said of one key that only another key holds ("`/a` has 402 errors" where 402
    is `/b`'s count). A sentence is cut into clauses (at ", ", "; ", " and ", " while ", ...);
    a number in a clause that names keys must be one of theirs or of the result as a whole
    (the total, the share read, a rank). A clause that names no key binds nothing ("with
    1,834 and 402 errors respectively"), and a form that stands for several keys (``<ip>``,
    the prompt's mask) stands for each of them. Keys are named masked in the problems (the
    retry sends them back to the model)."""
    owned = _numbers_by_key(result)
    if len(owned) < 2:
        return []
    shared = [*allowed_numbers(_without_keys(result)), *range(len(result.answer.top) + 1)]
    forms: dict[str, list[str]] = {}
    for key in owned:
        for form in dict.fromkeys((key, mask(key))):
            forms.setdefault(form, []).append(key)
    marked, named = _marked(prose, forms)
    found = []
    for sentence in _SENTENCE.split(marked):
        for clause in _clauses(sentence):
            keys = [k for i in _MARK.findall(clause) for k in named[int(i)]]
            if not keys:
                continue
            for match in _NUMBER.finditer(_MARK.sub(" ", clause).replace("`", " ")):
                text = match.group(0)
                if matches(text, shared) or any(matches(text, owned[k]) for k in keys):
                    continue
                others = [k for k in owned if k not in keys and matches(text, owned[k])]
                if others:
                    said, owner = mask(keys[0]), mask(others[0])
                    found.append(f"the number {text} is said of {said} but is {owner}'s")
    return found


#: Where a sentence ends: its stop and a blank, or a line break (a table's row is one).
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
#: Where a clause ends inside a sentence (not at the comma of 1,834).
_CLAUSE = re.compile(r",\s+|;\s+|\s+(?:and|while|but|whereas|against|vs\.?|versus)\s+")
#: A key's mention once marked (``_marked``): its index between two private-use characters.
_MARK = re.compile("\ue000([0-9]+)\ue001")


def _clauses(sentence: str) -> list[str]:
    """``sentence``'s clauses; a clause that is a key's mention alone is a list's item, and
    joins the clauses on both sides ("`/a` and `/b` lead with 1,834 and 402", "the routes
    are `/a` and `/b`, with 1,834 and 402": either key may own either number)."""
    out: list[str] = []
    held = ""
    for clause in _CLAUSE.split(sentence):
        if not _MARK.sub("", clause).strip(" `"):
            if out:  # the list's head: its keys are the next clause's too
                out[-1] += " " + clause
                held = " ".join(m.group(0) for m in _MARK.finditer(out[-1])) + " "
            else:
                held += clause + " "
            continue
        out.append(held + clause)
        held = ""
    return [*out, held] if held and not out else out


def _marked(prose: str, forms: dict[str, list[str]]) -> tuple[str, list[list[str]]]:
    """``prose`` with each mention of a key's form replaced by a mark (so a key holding a
    clause's word, "no live upstreams while", is not cut), and the keys of each mark."""
    named: list[list[str]] = []
    for form in sorted(forms, key=len, reverse=True):
        # not inside a mark made before (a key "1" in the mark of key number 1)
        pattern = rf"(?<![\w.,\ue000]){re.escape(form)}(?![\w/\ue001])"
        if re.search(pattern, prose):
            prose = re.sub(pattern, f"\ue000{len(named)}\ue001", prose)
            named.append(forms[form])
    return prose, named


def _numbers_by_key(result: Result) -> dict[str, list[float]]:
    """Each ranked key's own numbers (count, interval, share, breakdown, rate), as
    ``allowed_numbers`` gives a result's."""
    out: dict[str, list[float]] = {}
    for entry in result.answer.top:
        values: set[float] = set()
        for _, value in _walk(entry.model_dump(mode="json", exclude={"key"}), ""):
            if isinstance(value, str):
                values.update(float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(value))
            else:
                values.add(value)
        values.update([v * 100 for v in values if 0 < abs(v) <= 1])
        out.setdefault(entry.key, []).extend(v for v in values if math.isfinite(v))
    return out


def _without_keys(result: Result) -> Result:
    """``result`` without its ranked entries: the numbers of the result as a whole."""
    answer = result.answer.model_copy(update={"top": []})
    return result.model_copy(update={"answer": answer})


def matches(text: str, allowed: list[float]) -> bool:
    """Whether the number ``text`` is some allowed value, rounded to the digits shown."""
    value = float(text.replace(",", ""))
    tolerance = _half_unit(text) + 1e-9 * max(1.0, value)
    return any(abs(value - v) <= tolerance for v in allowed)


def allowed_numbers(result: Result) -> list[float]:
    """Every number of the result, in every form the prose may use."""
    data = result.model_dump(mode="json", exclude={"report"})
    values: set[float] = set()
    for key, value in _walk(data, ""):
        if isinstance(value, str):
            values.update(float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(value))
            continue
        values.add(value)
        if key in _BYTE_FIELDS:
            values.update(value / s for s in _BYTE_SCALES)
    timeline = result.answer.timeline
    if timeline is not None:  # "buckets of 15 min", "from 21:45 on": a time's parts are numbers
        values.update(timeline.bucket_s / s for s in (1, 60, 3600, 86400))
        for bucket in timeline.buckets:
            values.update(float(p) for p in re.findall(r"\d+", bucket.start))
    confidence = 1 - result.question.delta
    values.update({confidence, *range(len(result.answer.top) + 1)})
    values.update([v * 100 for v in values if 0 < abs(v) <= 1])
    return sorted(v for v in values if math.isfinite(v))


def known_names(result: Result) -> set[str]:
    """The routes (and other keys) the prose may name."""
    keys = {e.key for e in result.answer.top}
    keys.update(k for group in result.answer.ties for k in group)
    keys.update(result.input.paths)
    return keys | {mask(k) for k in keys}


def _without_names(prose: str, names: set[str]) -> str:
    """The prose with the result's keys blanked out (their digits are names, not numbers),
    each only where it stands as a token: the key 500 inside 95003 had left "9 3", two small
    numbers any result holds. Anything else in backticks, such as `97 %`, is still checked
    as a number."""
    for name in sorted(names, key=len, reverse=True):
        prose = re.sub(rf"(?<![\w.,]){re.escape(name)}(?![\w/])", " ", prose)
    return prose.replace("`", " ")


def _named(prose: str) -> Iterator[str]:
    for span in _CODE.findall(prose):
        if "/" in span or "{" in span:
            yield span.strip()
    for match in _PATH.finditer(_CODE.sub(" ", prose)):
        yield match.group(0)


def _half_unit(text: str) -> float:
    """Half the unit of the last digit shown; trailing zeros of a whole number are rounding,
    but at least two significant digits count (so "100" is not "anything from 50 to 150")."""
    digits = text.replace(",", "")
    if "." in digits:
        return 0.5 * 10.0 ** -len(digits.split(".")[1])
    zeros = len(digits) - len(digits.rstrip("0"))
    significant = len(digits.lstrip("0")) - zeros
    zeros = min(zeros, max(0, len(digits.lstrip("0")) - 2)) if significant < 2 else zeros
    return 0.5 * 10.0**zeros


def _walk(data: Any, key: str) -> Iterator[tuple[str, Any]]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield "", str(k)  # keys such as the statuses of a breakdown are numbers too
            yield from _walk(v, str(k))
    elif isinstance(data, list):
        for item in data:
            yield from _walk(item, key)
    elif isinstance(data, str) or (isinstance(data, int | float) and not isinstance(data, bool)):
        yield key, data
