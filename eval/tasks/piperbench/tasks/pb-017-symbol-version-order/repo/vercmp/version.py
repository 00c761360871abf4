"""Release versions such as "1.4.2" (missing parts count as 0) and how they compare."""
from functools import total_ordering


@total_ordering
class Version:
    def __init__(self, text):
        parts = text.strip().lstrip("v").split(".")
        if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
            raise ValueError(f"not a version: {text!r}")
        self.parts = tuple(parts + ["0"] * (3 - len(parts)))

    def __str__(self):
        return ".".join(self.parts)

    def __repr__(self):
        return f"Version({str(self)!r})"

    def __eq__(self, other):
        return self.parts == other.parts

    def __lt__(self, other):
        return self.parts < other.parts

    def __hash__(self):
        return hash(self.parts)


def latest(versions):
    """The highest of some version strings, normalized to three parts."""
    return str(max(Version(v) for v in versions))
