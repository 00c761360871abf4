"""Query strings: "a=1&b=two" <-> {"a": "1", "b": "two"}."""
from urllib.parse import quote, unquote_plus


def parse_query(qs):
    """The parameters of a query string; a leading "?" is ignored and a bare key maps to ""."""
    params = {}
    for pair in qs.lstrip("?").split("&"):
        if not pair:
            continue
        if "=" in pair:
            key, value = pair.split("=")
        else:
            key, value = pair, ""
        params[unquote_plus(key)] = unquote_plus(value)
    return params


def build_query(params):
    """The query string of a dict, in insertion order, keys and values percent-encoded."""
    return "&".join(f"{quote(str(k), safe='')}={quote(str(v), safe='')}" for k, v in params.items())
