from .pages import iter_pages, page, page_count

__all__ = ["iter_pages", "page", "page_count"]
