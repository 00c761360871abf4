"""Notes are kept in fixed-width records: a title field of TITLE_BYTES bytes of UTF-8, then the body."""

TITLE_BYTES = 32


def clip_utf8(text, limit):
    """The longest prefix of `text` whose UTF-8 encoding fits in `limit` bytes."""
    return text.encode("utf-8")[:limit].decode("utf-8")


def encode_record(title, body):
    """One record: the title, clipped to fit and padded with NUL bytes, then the body."""
    raw_title = clip_utf8(title, TITLE_BYTES).encode("utf-8")
    return raw_title.ljust(TITLE_BYTES, b"\0") + body.encode("utf-8")


def decode_record(record):
    """(title, body) of a record made by encode_record."""
    title = record[:TITLE_BYTES].rstrip(b"\0").decode("utf-8")
    return title, record[TITLE_BYTES:].decode("utf-8")
