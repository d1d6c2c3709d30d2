"""Model-id parser: every form users type -> ModelSpec, in microseconds.

Steps: routing prefixes (provider/, org/, hf.co/, ft:, bedrock's "anthropic.") ->
":tag" -> quantization and dates cut out -> the family found at a word boundary ->
the words after it classified one by one (size, version, snapshot, descriptive tag).
Every regex is anchored or bounded, so no input makes them backtrack badly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from agentcli.models.families import (
    ALIASES,
    BEDROCK_VENDORS,
    FINETUNE_MARKERS,
    OFFICIAL_ORGS,
    PROVIDER_PREFIXES,
    REPACKAGERS,
    V_VERSIONS,
    WRAPPERS,
)
from agentcli.models.spec import ModelSpec

UNKNOWN = "unknown"


def _by_first_letter() -> dict[str, tuple[str, ...]]:
    """First character -> the aliases that start with it, longest first."""
    table: dict[str, list[str]] = {}
    for alias in sorted(ALIASES, key=len, reverse=True):
        table.setdefault(alias[0], []).append(alias)
    return {c: tuple(aliases) for c, aliases in table.items()}


_ALIASES_AT = _by_first_letter()
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def _families_in(name: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, alias) of each family alias in `name`, left to right, never overlapping: the
    longest alias at a place no letter or digit precedes that no letter follows ("o" only before
    a digit: o3, o4-mini). The 77-way alternation regex this replaces cost ~20M instructions to
    compile, more than a run spends parsing its ids; a scan of the few places an alias can start
    is as quick per id."""
    i, n = 0, len(name)
    while i < n:
        aliases = _ALIASES_AT.get(name[i])
        if aliases and (i == 0 or name[i - 1] not in _ALNUM):
            for alias in aliases:
                if name.startswith(alias, i):
                    end = i + len(alias)
                    after = name[end:end + 1]
                    if after.isdecimal() if alias == "o" else not ("a" <= after <= "z"):
                        yield i, end, alias
                        i = end
                        break
            else:
                i += 1
            continue
        i += 1
_QUANT = re.compile(
    r"(?:^|(?<=[-_.]))(i?q[1-8](?:_[a-z0-9]{1,3}){0,2}|f16|fp16|bf16|f32|fp32|fp8|int4|int8|awq|gptq|exl2|[2-8]bit|mxfp4)"
    r"(?=$|[-_.])"
)
# 20241022, 2024-08-06 (YYYY[-]MM[-]DD) and 08-2024 (MM-YYYY), as whole words.
_DATE = re.compile(
    r"(?:^|-)((?:20\d\d)-?(?:0[1-9]|1[0-2])-?(?:[0-3]\d)|(?:0[1-9]|1[0-2])-(?:20\d\d))(?=$|-)"
)
_BEDROCK = re.compile(r"(?:(?:us|eu|apac|global)\.)?(" + "|".join(BEDROCK_VENDORS) + r")\.(.+)")
_SIZE = re.compile(r"(?:(\d{1,3})x)?(\d{1,4}(?:\.\d{1,3})?)([bm])")
_ACTIVE = re.compile(r"a(\d{1,3}(?:\.\d{1,2})?)b")
_EFFECTIVE = re.compile(r"e(\d{1,3}(?:\.\d{1,2})?)b")
_CONTEXT = re.compile(r"\d{1,4}k")
_NUM = re.compile(r"(?:0|[1-9]\d?)(?:\.\d{1,2}){0,2}")  # version-like: small components
_VNUM = re.compile(r"v((?:0|[1-9]\d?)(?:\.\d{1,2}){0,2})")
_VP = re.compile(r"v(\d{1,2})p(\d{1,2})")  # Fireworks writes 3.1 as v3p1
_NUM_WORD = re.compile(r"((?:0|[1-9]\d?)(?:\.\d{1,2}){0,2})([a-z]{1,6})")  # 4o, 2.5vl, 3n
_WORD_NUM = re.compile(r"(small|medium|large|mini|nano|tiny)((?:0|[1-9]\d?)(?:\.\d{1,2}){0,2})")  # small3.2
_WORD_SIZE = re.compile(r"([a-z]{1,8})(\d{1,4}(?:\.\d{1,3})?[bm])")  # r7b
_DIGITS = re.compile(r"\d+")
_REVISION = re.compile(r"v?\d[\d.]*k?")  # "v2", "20", "128k": never the variant

# Words that describe packaging or routing, not the model.
_DROP = frozenset({"gguf", "ggml", "hf", "mlx", "onnx", "meta", "c4ai", "nous", "ibm", "open", ""})
# Words that never make a good `variant`.
_NOT_VARIANT = frozenset({"latest", "free", "nitro", "online", "floor", "versatile", "chatgpt", "exacto"}) | FINETUNE_MARKERS


_CACHE_MAX_LEN = 256  # real ids are short; do not let odd input fill the cache


def parse_model_id(model_id: str) -> ModelSpec:
    """Parse any model id users type into a ModelSpec (family "unknown" if unrecognised)."""
    if len(model_id) > _CACHE_MAX_LEN:
        return _parse.__wrapped__(model_id)
    return _parse(model_id)


@lru_cache(maxsize=4096)
def _parse(raw: str) -> ModelSpec:
    s = raw.strip()
    provider: str | None = None
    org: str | None = None
    custom = False
    snapshot: str | None = None

    # OpenAI fine-tunes: ft:<base>:<org>:<suffix>:<id>
    if s.startswith("ft:"):
        parts = s[3:].split(":")
        s, custom = parts[0], True
        org = parts[1] if len(parts) > 1 and parts[1] else None
    # Vertex AI snapshots: claude-3-5-sonnet-v2@20241022
    if "@" in s:
        s, snapshot = s.split("@", 1)

    parts = [p for p in s.split("/") if p]
    while len(parts) > 1 and parts[0].lower() in PROVIDER_PREFIXES:
        provider = provider or PROVIDER_PREFIXES[parts[0].lower()]
        parts.pop(0)
    if len(parts) >= 4 and parts[0] == "accounts" and parts[2] == "models":  # Fireworks
        provider = provider or "fireworks"
        org = None if parts[1] == "fireworks" else parts[1]
        parts = parts[3:]
    if len(parts) > 1 and parts[0] == "models":  # Gemini API names
        parts.pop(0)
    if len(parts) > 1:
        org = parts[-2]
    name = parts[-1] if parts else ""

    bedrock = _BEDROCK.fullmatch(name.lower()) if "." in name else None
    if bedrock:
        provider = provider or "bedrock"
        org = org or bedrock.group(1)
        name = name[len(name) - len(bedrock.group(2)):].split(":")[0]

    base_l, tag_l, quant, dated = _normalise(name)
    snapshot = snapshot or dated

    if org:
        low = org.lower()
        if low not in OFFICIAL_ORGS and low not in REPACKAGERS:
            custom = True

    family, prefix, rest, alias_tag = _find_family(base_l)
    tags: list[str] = [alias_tag] if alias_tag else []
    words = _Words(family)
    words.feed(rest, tags, versions=family != UNKNOWN)
    words.feed(tag_l, tags, versions=False)
    for w in prefix:
        if w in ALIASES and ALIASES[w][0] in WRAPPERS:  # "Hermes-3-Llama-3.1": a fine-tune line
            custom = True
            tags.append(ALIASES[w][0])
        elif not _DIGITS.fullmatch(w):
            words.feed(w, tags, versions=False)
    custom = custom or words.finetune

    variant = next((t for t in tags if t not in _NOT_VARIANT and not _REVISION.fullmatch(t)), None)
    return ModelSpec(
        family=family,
        version=words.version,
        variant=variant,
        size=words.size,
        size_label=words.size_label,
        active_size=words.active,
        provider=provider,
        org=org,
        custom=custom,
        quantization=quant,
        tags=tuple(tags),
        snapshot=snapshot or words.snapshot,
        raw=raw,
    )


def _normalise(name: str) -> tuple[str, str, str | None, str | None]:
    """(base, tag, quantization, date snapshot) of "name:tag", lower-cased, with the quantization
    and the date taken out so they cannot be read as versions or sizes."""
    base, _, tag = name.partition(":")
    base_l, tag_l = base.lower(), tag.lower()
    quant = None
    for text in (tag_l, base_l):
        q = _QUANT.search(text)
        if q:
            quant = quant or q.group(1)
    if quant:
        base_l = _QUANT.sub("", base_l)
        tag_l = _QUANT.sub("", tag_l)
    base_l = base_l.replace("_", "-").replace(" ", "-")
    tag_l = tag_l.replace("_", "-")
    d = _DATE.search(base_l)
    dated = None
    if d:
        dated = d.group(1)
        base_l = base_l[: d.start()] + base_l[d.end():]
    return base_l, tag_l, quant, dated


def _find_family(name: str) -> tuple[str, list[str], str, str | None]:
    """(family, words before it, text after it, tag the alias adds). Wrapper lines
    such as Hermes yield to a base family named later in the id."""
    first = None
    for m in _families_in(name):
        fam = ALIASES[m[2]][0]
        if fam not in WRAPPERS:
            first = m
            break
        first = first or m
    if first is None:
        return UNKNOWN, [], name, None
    start, end, alias = first
    family, alias_tag = ALIASES[alias]
    prefix = [w for w in name[:start].strip("-.").split("-") if w]
    return family, prefix, name[end:], alias_tag


class _Words:
    """Classifies the words after the family name; keeps what it learns."""

    __slots__ = ("family", "version", "size", "size_label", "active", "snapshot", "finetune", "_last_version")

    def __init__(self, family: str) -> None:
        self.family = family
        self.version: tuple[int, ...] = ()
        self.size: float | None = None
        self.size_label: str | None = None
        self.active: float | None = None
        self.snapshot: str | None = None
        self.finetune = False
        self._last_version = False

    def feed(self, text: str, tags: list[str], *, versions: bool) -> None:
        for w in text.split("-"):
            if w in _DROP:
                continue
            was_version, self._last_version = self._last_version, False
            self._word(w, tags, versions, was_version)

    def _set_version(self, s: str) -> None:
        self.version = tuple(int(p) for p in s.split("."))
        self._last_version = True

    def _word(self, w: str, tags: list[str], versions: bool, after_version: bool) -> None:
        if m := _SIZE.fullmatch(w):
            if self.size is None:
                experts, n, unit = m.groups()
                size = float(n) / (1000.0 if unit == "m" else 1.0)
                self.size = size * int(experts) if experts else size
                self.size_label = w
            return
        if m := _ACTIVE.fullmatch(w):
            self.active = float(m.group(1))
            return
        if m := _EFFECTIVE.fullmatch(w):
            if self.size is None:
                self.size, self.size_label = float(m.group(1)), w
            return
        if _CONTEXT.fullmatch(w):
            tags.append(w)
            return
        if versions and _NUM.fullmatch(w):
            if not self.version:
                self._set_version(w.lstrip("."))
            elif after_version and len(self.version) == 1 and "." not in w:
                self.version += (int(w),)  # claude-3-5-sonnet, claude-opus-4-1
            else:
                tags.append(w)
            return
        if m := _VNUM.fullmatch(w):
            if versions and not self.version and not self.finetune and self.family in V_VERSIONS:
                self._set_version(m.group(1))
            else:
                tags.append(w)  # a fine-tune's own revision ("-v2") is not the model version
            return
        if m := _VP.fullmatch(w):
            if versions and not self.version:
                self.version = (int(m.group(1)), int(m.group(2)))
            return
        if _DIGITS.fullmatch(w):
            if self.snapshot is None:
                self.snapshot = w  # 0613, 2411, 8192: snapshot or context stamps
            return
        if versions and not self.version and (m := _NUM_WORD.fullmatch(w)):
            self._set_version(m.group(1))
            tags.append(m.group(2))
            return
        if m := _WORD_NUM.fullmatch(w):
            tags.append(m.group(1))
            if versions and not self.version:
                self._set_version(m.group(2))
            return
        if (m := _WORD_SIZE.fullmatch(w)) and self.size is None:
            tags.append(m.group(1))
            self._word(m.group(2), tags, versions, False)
            return
        if w in FINETUNE_MARKERS:
            self.finetune = True
        tags.append(w)
