"""The server's settings: built-in defaults, overridden by an optional JSON settings file."""
import json

DEFAULTS = {"port": 8080, "debug": False, "workers": 2}


class ConfigError(Exception):
    """The settings file exists but cannot be used; startup must stop."""


def validate(settings):
    port = settings.get("port")
    if not isinstance(port, int) or not 0 < port < 65536:
        raise ConfigError(f"port must be an integer in 1..65535, got {port!r}")
    workers = settings.get("workers")
    if not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be a positive integer, got {workers!r}")
    return settings


def load_settings(path):
    """DEFAULTS overlaid with the settings file at `path`; no file at all means the defaults."""
    try:
        with open(path, encoding="utf-8") as f:
            overrides = json.load(f)
    except Exception:
        overrides = {}
    return validate({**DEFAULTS, **overrides})
