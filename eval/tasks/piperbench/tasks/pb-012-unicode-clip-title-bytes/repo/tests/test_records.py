from notes.records import TITLE_BYTES, clip_utf8, decode_record, encode_record

LONG_JAPANESE = "会議メモ：第三四半期の予算見直しについて"


def test_clip_never_splits_a_character():
    assert clip_utf8("日本語のタイトル", 10) == "日本語"
    assert clip_utf8("naïve", 3) == "na"


def test_long_japanese_title_is_saved():
    record = encode_record(LONG_JAPANESE, "本文")
    title, body = decode_record(record)
    assert LONG_JAPANESE.startswith(title)
    assert len(title.encode("utf-8")) <= TITLE_BYTES
    assert body == "本文"


def test_ascii_title_is_clipped():
    assert clip_utf8("a" * 40, TITLE_BYTES) == "a" * 32


def test_short_title_is_kept():
    assert decode_record(encode_record("Einkaufsliste für Sonntag", "Brot")) == ("Einkaufsliste für Sonntag", "Brot")


def test_record_layout():
    record = encode_record("hi", "body")
    assert record[:TITLE_BYTES] == b"hi" + b"\0" * 30
    assert record[TITLE_BYTES:] == b"body"
