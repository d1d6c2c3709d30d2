"""The learned-facts store: location, expiry, file mode, atomic replacement, forgetting."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from agentcli.models import LearnedStore, cache_dir, resolve_capability
from agentcli.models import learned as learned_mod
from agentcli.models.learned import DEFAULT_TTL, LearnedFact, normalize_endpoint

URL = "http://localhost:11434"


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    return tmp_path / "xdg-cache"


def test_cache_dir_honours_xdg(cache):
    assert cache_dir() == cache / "agentcli"
    assert LearnedStore().path == cache / "agentcli" / "learned.json"


def test_cache_dir_default_and_relative_xdg_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == tmp_path / ".cache" / "agentcli"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # the XDG spec says: ignore relative paths
    assert cache_dir() == tmp_path / ".cache" / "agentcli"


def test_record_then_get(cache):
    clock = Clock()
    store = LearnedStore(clock=clock)
    fact = store.record("llama3.1:8b", URL, "native_tools", False, "probe")
    assert fact == LearnedFact(False, "probe", clock.now)
    store.record("llama3.1:8b", URL, "text_dialect", "hermes", "run")
    got = store.get("llama3.1:8b", URL)
    assert set(got) == {"native_tools", "text_dialect"}
    assert got["text_dialect"].value == "hermes" and got["text_dialect"].source == "run"
    # another endpoint or model knows nothing
    assert store.get("llama3.1:8b", "http://gpu-box:11434") == {}
    assert store.get("qwen3:8b", URL) == {}
    # a new store instance reads the same file
    assert LearnedStore(clock=clock).get("llama3.1:8b", URL) == got


def test_endpoint_spellings_share_facts(cache):
    store = LearnedStore()
    store.record("m", "HTTP://LocalHost:11434/", "native_tools", True, "probe")
    assert store.get("m", "http://localhost:11434")["native_tools"].value is True
    assert normalize_endpoint("https://user:pw@api.example.com/v1/?key=abc") == "https://api.example.com/v1"


def test_no_credentials_reach_the_file(cache):
    store = LearnedStore()
    store.record("gemini-2.5-pro", "https://generativelanguage.googleapis.com/v1beta?key=AIzaSECRETSECRET", "native_tools", True, "probe")
    store.record("m", "https://alice:hunter2@example.com/v1", "native_tools", True, "probe")
    text = store.path.read_text()
    assert "AIzaSECRETSECRET" not in text and "hunter2" not in text


def test_ttl_expiry(cache):
    clock = Clock()
    store = LearnedStore(ttl=3600, clock=clock)
    store.record("m", URL, "native_tools", False, "probe")
    clock.now += 3599
    assert "native_tools" in store.get("m", URL)
    clock.now += 2
    assert store.get("m", URL) == {}
    # expired facts are pruned on the next write
    store.record("m", URL, "parallel_tools", True, "run")
    data = json.loads(store.path.read_text())
    (entry,) = data["entries"].values()
    assert set(entry["facts"]) == {"parallel_tools"}


def test_default_ttl_is_used(cache):
    clock = Clock()
    store = LearnedStore(clock=clock)
    store.record("m", URL, "native_tools", True, "probe")
    clock.now += DEFAULT_TTL - 1
    assert store.get("m", URL)
    clock.now += 2
    assert not store.get("m", URL)


def test_file_mode_0600_and_dir_created(cache):
    store = LearnedStore()
    store.record("m", URL, "native_tools", True, "probe")
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.path.parent).st_mode) & 0o077 == 0
    store.record("m", URL, "parallel_tools", True, "probe")  # rewritten, still 0600
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600


def test_write_is_atomic(cache, monkeypatch):
    store = LearnedStore()
    store.record("m", URL, "native_tools", True, "probe")
    before = store.path.read_text()

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(learned_mod.os, "replace", boom)
    with pytest.raises(OSError):
        store.record("m", URL, "parallel_tools", True, "probe")
    assert store.path.read_text() == before  # the old file is intact
    assert [p.name for p in store.path.parent.iterdir()] == ["learned.json"]  # no temp file left


def test_write_goes_through_rename(cache, monkeypatch):
    calls = []
    real = os.replace

    def spy(src, dst):
        calls.append((Path(src).parent, Path(dst)))
        return real(src, dst)

    monkeypatch.setattr(learned_mod.os, "replace", spy)
    store = LearnedStore()
    store.record("m", URL, "native_tools", True, "probe")
    assert calls == [(store.path.parent, store.path)]


def test_forget(cache):
    store = LearnedStore()
    store.record("m", URL, "native_tools", True, "probe")
    store.record("m", URL, "parallel_tools", True, "probe")
    store.record("m", "http://other:8000", "native_tools", False, "probe")
    store.record("n", URL, "native_tools", True, "probe")
    assert store.forget("m", URL) == 2
    assert store.get("m", URL) == {} and store.get("m", "http://other:8000")
    assert store.forget("m") == 1
    assert store.get("m", "http://other:8000") == {}
    assert store.get("n", URL)
    assert store.forget("never-seen") == 0


def test_corrupt_file_is_treated_as_empty(cache):
    store = LearnedStore()
    store.path.parent.mkdir(parents=True)
    store.path.write_text("{not json")
    assert store.get("m", URL) == {}
    store.record("m", URL, "native_tools", True, "probe")
    assert store.get("m", URL)["native_tools"].value is True


def test_unserialisable_value_refused_before_writing(cache):
    store = LearnedStore()
    with pytest.raises(TypeError):
        store.record("m", URL, "native_tools", object(), "probe")
    assert not store.path.exists()


def test_explicit_path(tmp_path):
    store = LearnedStore(tmp_path / "sub" / "facts.json")
    store.record("m", None, "native_tools", True, "probe")
    assert store.get("m", None)["native_tools"].value is True


def test_learned_facts_feed_resolve_capability(cache):
    store = LearnedStore()
    store.record("llama3.1:8b", URL, "native_tools", False, "probe")
    store.record("llama3.1:8b", URL, "text_dialect", "json_block", "run")
    r = resolve_capability("llama3.1:8b", learned=store.get("llama3.1:8b", URL), provider="ollama")
    assert r.capability.native_tools is False and r.sources["native_tools"] == "learned"
    assert r.capability.text_dialect == "json_block"
