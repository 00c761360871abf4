from .search import find

__all__ = ["find"]
