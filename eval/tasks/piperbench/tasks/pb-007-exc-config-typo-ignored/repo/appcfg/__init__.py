from .loader import DEFAULTS, ConfigError, load_settings

__all__ = ["DEFAULTS", "ConfigError", "load_settings"]
