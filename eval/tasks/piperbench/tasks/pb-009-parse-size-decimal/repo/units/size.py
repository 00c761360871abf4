"""Human-readable byte sizes: "512", "10KB", "1.5 GiB" and back."""
import re

MULTIPLIERS = {
    "": 1,
    "B": 1,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "TB": 1000**4,
    "KIB": 1024,
    "MIB": 1024**2,
    "GIB": 1024**3,
    "TIB": 1024**4,
}

_SIZE = re.compile(r"^\s*(\d+)\s*([A-Za-z]*)\s*$")


def parse_size(text):
    """Bytes in a size such as "512", "10 KB" or "1.5GiB"; units are case-insensitive."""
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"invalid size: {text!r}")
    number, unit = match.groups()
    try:
        factor = MULTIPLIERS[unit.upper()]
    except KeyError:
        raise ValueError(f"unknown unit in size: {text!r}") from None
    return int(float(number) * factor)


def format_size(n, binary=False):
    """The size in the largest unit that keeps the number at least 1, with one decimal."""
    step, names = (1024, ["B", "KiB", "MiB", "GiB", "TiB"]) if binary else (1000, ["B", "KB", "MB", "GB", "TB"])
    value = float(n)
    for name in names:
        if value < step or name == names[-1]:
            return f"{int(value)} B" if name == "B" else f"{value:.1f} {name}"
        value /= step
