"""Splitting prose into lower-case words."""
import re

_WORD = re.compile(r"[\w']+")


def words(text):
    """The words of `text`, lower-cased; an apostrophe inside a word is part of it ("don't")."""
    return [w.lower() for w in _WORD.findall(text)]
