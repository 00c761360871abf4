import pytest

from units import format_size, parse_size


def test_decimal_sizes():
    assert parse_size("1.5GiB") == 1610612736
    assert parse_size("2.5 MB") == 2500000


def test_formatted_size_parses_back():
    assert parse_size(format_size(1500000)) == 1500000


def test_integer_sizes():
    assert parse_size("512") == 512
    assert parse_size("10 kb") == 10000
    assert parse_size(" 2MiB ") == 2 * 1024 * 1024


def test_unknown_unit_is_rejected():
    with pytest.raises(ValueError, match="unknown unit"):
        parse_size("3 parsecs")


def test_garbage_is_rejected():
    for text in ["", "MB", "1.2.3 MB", "-5 KB"]:
        with pytest.raises(ValueError):
            parse_size(text)


def test_format_size():
    assert format_size(999) == "999 B"
    assert format_size(1500000) == "1.5 MB"
    assert format_size(3 * 1024**3, binary=True) == "3.0 GiB"
