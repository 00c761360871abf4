"""Splitting a list of results into numbered pages (page numbers start at 1)."""


def page_count(total, per_page):
    """How many pages `total` items fill at `per_page` items a page."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    return total // per_page


def page(items, number, per_page):
    """The items on page `number`; an empty list past the last page."""
    if number < 1:
        raise ValueError("page numbers start at 1")
    start = (number - 1) * per_page
    return items[start:start + per_page]


def iter_pages(items, per_page):
    """Every page in order, as (number, items) pairs."""
    for number in range(1, page_count(len(items), per_page) + 1):
        yield number, page(items, number, per_page)
