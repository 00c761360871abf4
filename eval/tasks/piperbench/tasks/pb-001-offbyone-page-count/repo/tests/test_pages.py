import pytest

from pager import iter_pages, page, page_count


def test_exact_multiple():
    assert page_count(10, 5) == 2


def test_no_items_no_pages():
    assert page_count(0, 5) == 0


def test_partial_last_page_is_counted():
    assert page_count(11, 5) == 3
    assert page_count(1, 5) == 1


def test_iter_pages_shows_every_item():
    items = list(range(11))
    pages = list(iter_pages(items, 5))
    assert [n for n, _ in pages] == [1, 2, 3]
    assert [x for _, chunk in pages for x in chunk] == items


def test_page_slices():
    items = list(range(12))
    assert page(items, 2, 5) == [5, 6, 7, 8, 9]
    assert page(items, 4, 5) == []


def test_rejects_bad_arguments():
    with pytest.raises(ValueError):
        page_count(3, 0)
    with pytest.raises(ValueError):
        page([1], 0, 5)
