"""Exporting address-book records as a JSON document that people also edit by hand."""
import json

FIELDS = ("name", "city", "email")


def record_to_dict(record):
    """Only the exported fields, in a fixed order; a missing field becomes an empty string."""
    return {field: record.get(field, "") for field in FIELDS}


def to_json(records, indent=2, ensure_ascii=True):
    """The records as a JSON document: readable UTF-8 text, one field per line."""
    rows = [record_to_dict(r) for r in records]
    return json.dumps(rows, indent=indent, ensure_ascii=ensure_ascii)


def write_json(records, path):
    """Write to_json(records) to `path`, encoded as UTF-8."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(to_json(records))
        f.write("\n")
