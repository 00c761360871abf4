from wordfreq.tokenize import words


def test_contractions_are_one_word():
    assert words("Don't stop, it's fine") == ["don't", "stop", "it's", "fine"]


def test_punctuation_is_dropped():
    assert words("Hello, world! (again)") == ["hello", "world", "again"]
