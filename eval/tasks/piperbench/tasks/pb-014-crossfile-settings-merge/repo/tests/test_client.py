import pytest

from apiclient import Client


def recorder():
    sent = []

    def transport(**request):
        sent.append(request)
        return 200

    return transport, sent


def test_timeout_given_by_caller_is_used():
    transport, sent = recorder()
    Client(transport, timeout=5).get("/items")
    assert sent[0]["timeout"] == 5


def test_base_url_given_by_caller_is_used():
    transport, sent = recorder()
    Client(transport, base_url="http://staging:8000/").get("items")
    assert sent[0]["url"] == "http://staging:8000/items"


def test_defaults_when_nothing_is_set():
    transport, sent = recorder()
    assert Client(transport).get("/items") == 200
    assert sent[0]["timeout"] == 30
    assert sent[0]["retries"] == 2
    assert sent[0]["url"] == "https://api.example.invalid/items"


def test_unknown_setting_is_rejected():
    transport, _ = recorder()
    with pytest.raises(KeyError, match="timout"):
        Client(transport, timout=5)
