"""The declared layers hold inside pipeline/, and each rule fails when broken on purpose."""

from __future__ import annotations

from pathlib import Path

from tests.architecture import layers

REPO = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- the repository


def test_no_import_climbs_a_layer_and_every_package_has_one() -> None:
    assert layers.climbing_imports(REPO) == []


def test_no_two_packages_import_each_other_at_module_level() -> None:
    assert layers.mutual_packages(REPO) == []


def test_no_modules_import_each_other_round_a_loop() -> None:
    assert layers.import_cycles(REPO) == []


def test_no_private_name_is_imported_from_another_module() -> None:
    assert layers.private_imports(REPO) == []


def test_function_level_imports_of_pipeline_are_few_and_each_says_why() -> None:
    assert layers.function_level_problems(REPO) == []


def test_every_declared_unit_exists() -> None:
    """A layer naming a package that was renamed away would check nothing."""
    for units in layers.LAYERS:
        for unit in units:
            base = REPO / unit.replace(".", "/")
            assert base.is_dir() or base.with_suffix(".py").is_file(), unit


# ---------------------------------------------------------------- broken on purpose


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for package in ("pipeline", "pipeline/crawl", "pipeline/db", "pipeline/phases", "web"):
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").touch()
    return root


def test_an_import_from_a_higher_layer_breaks_the_rule(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pipeline/app.py": "X = 1\n",
            "pipeline/crawl/catalog.py": "def sync():\n    from pipeline.app import X\n",
            "pipeline/phases/discover.py": "from pipeline.app import X\n",  # downward: fine
        },
    )
    assert layers.climbing_imports(root) == [
        "pipeline.crawl.catalog:2 imports pipeline.app.X (pipeline.crawl is below pipeline.app)"
    ]


def test_a_type_checking_import_from_a_higher_layer_still_climbs(tmp_path: Path) -> None:
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pipeline.app import App\n"
    )
    root = _tree(tmp_path, {"pipeline/app.py": "App = 1\n", "pipeline/db/connect.py": source})
    assert layers.climbing_imports(root) == [
        "pipeline.db.connect:3 imports pipeline.app.App (pipeline.db is below pipeline.app)"
    ]


def test_a_package_in_no_layer_breaks_the_rule(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"pipeline/newthing/__init__.py": ""})
    assert layers.climbing_imports(root) == ["pipeline.newthing is in no layer (add it to LAYERS)"]


def test_two_packages_importing_each_other_break_the_rule(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pipeline/crawl/queue.py": "from pipeline.db.connect import Database\n",
            "pipeline/db/connect.py": "Database = 1\n",
            "pipeline/db/setup.py": "from pipeline.crawl import queue\n",
        },
    )
    assert layers.mutual_packages(root) == [
        "pipeline.crawl <-> pipeline.db: pipeline.crawl.queue:1 imports "
        "pipeline.db.connect.Database; pipeline.db.setup:1 imports pipeline.crawl.queue"
    ]


def test_a_function_level_import_back_is_no_mutual_pair(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pipeline/crawl/queue.py": "from pipeline.db.connect import Database\n",
            "pipeline/db/connect.py": "def f():\n    from pipeline.crawl import queue\n",
        },
    )
    assert layers.mutual_packages(root) == []


def test_a_cycle_held_by_a_function_level_import_breaks_the_rule(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "web/app.py": "def create():\n    from web import api\n",
            "web/api.py": "from web.respond import render\n",
            "web/respond.py": "from web.app import create\n",
        },
    )
    assert layers.import_cycles(root) == ["web.api -> web.respond -> web.app -> web.api"]


def test_a_private_name_from_another_module_breaks_the_rule(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pipeline/phases/parse.py": "def _store(): ...\ndef __dunder__(): ...\n",
            "pipeline/phases/reparse.py": "from pipeline.phases.parse import _store, __dunder__\n",
            "pipeline/phases/own.py": "from pipeline.phases import _private_module\n",
            "pipeline/phases/_private_module.py": "X = 1\n",
        },
    )
    assert layers.private_imports(root) == [
        "pipeline.phases.reparse:1 imports pipeline.phases.parse._store"
    ]


def test_a_function_level_import_without_a_reason_breaks_the_rule(tmp_path: Path) -> None:
    source = (
        "def a():\n"
        "    # minio loads only for an s3:// store\n"
        "    from pipeline.db import s3\n"
        "def b():\n"
        "    from pipeline.db import connect  # the driver is heavy\n"
        "def c():\n"
        "    from pipeline.db import connect\n"
        "def d():\n"
        "    import json\n"
    )
    root = _tree(tmp_path, {"pipeline/crawl/queue.py": source, "pipeline/db/connect.py": ""})
    (root / "pipeline/db/s3.py").touch()
    assert layers.function_level_problems(root) == [
        "pipeline.crawl.queue:7 imports pipeline.db.connect: "
        "a function-level import without a comment saying why"
    ]


def test_more_function_level_imports_than_allowed_break_the_rule(tmp_path: Path) -> None:
    source = "".join(f"def f{i}():\n    from pipeline.db import connect  # why\n" for i in range(3))
    root = _tree(tmp_path, {"pipeline/crawl/queue.py": source, "pipeline/db/connect.py": ""})
    assert layers.function_level_problems(root, limit=3) == []
    assert layers.function_level_problems(root, limit=2) == [
        "3 function-level imports of pipeline modules (at most 2)"
    ]


def test_the_figures_count_each_rule(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pipeline/app.py": "from pipeline.crawl import queue\n",
            "pipeline/crawl/queue.py": "from pipeline.app import _X\ndef f():\n    import pipeline.db\n",
        },
    )
    found = layers.figures(root)
    assert found["climbing imports"] == 1
    assert found["mutual package pairs"] == 1
    assert found["import cycles"] == 1
    assert found["private names across modules"] == 1
    assert found["function-level imports of pipeline modules"] == 1
