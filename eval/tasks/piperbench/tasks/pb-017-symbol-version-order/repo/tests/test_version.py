import pytest

from vercmp.version import Version, latest


def test_double_digit_parts_compare_as_numbers():
    assert Version("1.10.0") > Version("1.9.0")
    assert Version("2.0.10") > Version("2.0.9")


def test_latest_picks_the_highest_release():
    assert latest(["1.9.2", "1.10.0", "1.2.11"]) == "1.10.0"


def test_missing_parts_are_zero():
    assert str(Version("2.1")) == "2.1.0"
    assert Version("v3") == Version("3.0.0")


def test_single_digit_order():
    assert sorted([Version("1.2.3"), Version("0.9"), Version("1.2")]) == [Version("0.9"), Version("1.2"), Version("1.2.3")]


def test_invalid_versions_are_rejected():
    for text in ["", "1.2.3.4", "1.x", "one"]:
        with pytest.raises(ValueError):
            Version(text)
