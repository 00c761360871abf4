from webutil.query import build_query, parse_query


def test_value_containing_equals_signs():
    assert parse_query("?token=YWJjZA==&next=%2Fhome") == {"token": "YWJjZA==", "next": "/home"}


def test_simple_pairs():
    assert parse_query("a=1&b=two") == {"a": "1", "b": "two"}


def test_bare_key_and_empty_pairs():
    assert parse_query("?debug&&page=2") == {"debug": "", "page": "2"}


def test_plus_means_space():
    assert parse_query("q=hello+world%21") == {"q": "hello world!"}


def test_round_trip():
    params = {"q": "a&b=c", "lang": "de"}
    assert parse_query(build_query(params)) == params
