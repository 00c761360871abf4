"""Word-frequency statistics of a document."""
from collections import Counter

from .tokenize import words

STOPWORDS = frozenset({"the", "a", "an", "and", "of", "to", "in", "is", "it", "she", "very"})


def top_words(text, n=3, skip_stopwords=True):
    """The n most frequent words with their counts, most frequent first (ties alphabetically)."""
    counts = Counter(w for w in words(text) if not (skip_stopwords and w in STOPWORDS))
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
