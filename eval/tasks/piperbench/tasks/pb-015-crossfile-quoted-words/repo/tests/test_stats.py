from wordfreq.stats import top_words


def test_quoted_word_counts_as_the_word():
    assert top_words("The 'quick' fox is quick, very quick.", n=1) == [("quick", 3)]


def test_quotes_at_sentence_start():
    assert top_words("'Hello,' she said. Hello again, hello!", n=2) == [("hello", 3), ("again", 1)]


def test_stopwords_are_skipped():
    assert top_words("the cat and the hat", n=2) == [("cat", 1), ("hat", 1)]
    assert top_words("the cat and the hat", n=1, skip_stopwords=False) == [("the", 2)]


def test_ties_are_alphabetical():
    assert top_words("b a c b a c", n=3, skip_stopwords=False) == [("a", 2), ("b", 2), ("c", 2)]
