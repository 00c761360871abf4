"""URL slugs for blog post titles."""
import re
import unicodedata

_NOT_WORD = re.compile(r"[^a-z0-9]+")


def slugify(title, max_length=60):
    """Lower-case ASCII words joined by "-": "Crème Brûlée!" -> "creme-brulee"."""
    ascii_text = unicodedata.normalize("NFKC", title).encode("ascii", "ignore").decode("ascii")
    slug = _NOT_WORD.sub("-", ascii_text.lower()).strip("-")
    return slug[:max_length].rstrip("-")


def unique_slug(title, taken):
    """slugify(title), with "-2", "-3", ... appended until it is not in `taken`."""
    base = slugify(title)
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    return slug
