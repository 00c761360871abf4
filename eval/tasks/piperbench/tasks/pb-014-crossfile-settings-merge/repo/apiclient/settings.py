"""Client settings: the built-in defaults, with what the caller set on top."""

DEFAULTS = {
    "base_url": "https://api.example.invalid",
    "timeout": 30,
    "retries": 2,
    "user_agent": "apiclient/1.4",
}


def merge_settings(user):
    """The effective settings: every default, overridden by the settings the caller gave."""
    unknown = set(user) - set(DEFAULTS)
    if unknown:
        raise KeyError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    return {**user, **DEFAULTS}
