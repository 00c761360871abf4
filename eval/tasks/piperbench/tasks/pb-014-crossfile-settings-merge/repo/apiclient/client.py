"""A thin HTTP client that builds requests from its settings; the transport is injected."""
from .settings import merge_settings


class Client:
    def __init__(self, transport, **settings):
        self.settings = merge_settings(settings)
        self.transport = transport

    def url(self, path):
        return self.settings["base_url"].rstrip("/") + "/" + path.lstrip("/")

    def get(self, path):
        s = self.settings
        return self.transport(
            method="GET",
            url=self.url(path),
            timeout=s["timeout"],
            retries=s["retries"],
            headers={"User-Agent": s["user_agent"]},
        )
