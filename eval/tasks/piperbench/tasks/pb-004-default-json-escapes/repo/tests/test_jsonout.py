import json

from exporter.jsonout import to_json, write_json

RECORDS = [
    {"name": "Jürgen Müller", "city": "Zürich", "email": "jm@example.com"},
    {"name": "Ada Lovelace", "city": "London"},
]


def test_non_ascii_text_is_written_as_is():
    text = to_json(RECORDS)
    assert '"city": "Zürich"' in text
    assert "\\u00fc" not in text


def test_written_file_is_readable(tmp_path):
    path = tmp_path / "export.json"
    write_json(RECORDS, path)
    assert "Jürgen Müller" in path.read_text(encoding="utf-8")


def test_round_trip():
    assert json.loads(to_json(RECORDS))[0]["city"] == "Zürich"


def test_missing_fields_are_empty():
    assert json.loads(to_json(RECORDS))[1] == {"name": "Ada Lovelace", "city": "London", "email": ""}


def test_escaping_on_request():
    assert "Z\\u00fcrich" in to_json(RECORDS, ensure_ascii=True)
