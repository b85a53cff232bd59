"""`jobharbor locate`: the command body the CLI wires in."""

from __future__ import annotations

import io
import json

import pytest

from pipeline.commands.locate import main


def _lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def test_one_json_object_per_argument(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["Toronto, CA", "US-CA-San Francisco"]) == 0
    rows = _lines(capsys.readouterr().out)
    assert [r["input"] for r in rows] == ["Toronto, CA", "US-CA-San Francisco"]
    assert rows[0]["countries"] == ["CA"]
    assert rows[1]["offices"][0]["city"] == "San Francisco"


def test_reads_one_string_per_stdin_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Paris\n\nHà Nội & 2 nơi khác\r\n"))
    assert main([]) == 0
    rows = _lines(capsys.readouterr().out)
    assert [r["input"] for r in rows] == ["Paris", "", "Hà Nội & 2 nơi khác"]
    assert rows[1]["countries"] == []
    assert rows[2]["more_offices"] == 2


def test_output_keeps_unicode_readable(capsys: pytest.CaptureFixture[str]) -> None:
    main(["Hà Nội"])
    assert "Hà Nội" in capsys.readouterr().out


def test_remote_hint_flag(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--remote-hint", "yes", "Austin, TX"])
    assert _lines(capsys.readouterr().out)[0]["remote"] == "yes"


def test_help_explains_the_output(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert "jobharbor locate" in text
    assert "could be in" in text
    assert "standard input" in text


def test_bad_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--remote-hint", "maybe", "Austin"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
