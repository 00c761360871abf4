from .cart import Cart

__all__ = ["Cart"]
