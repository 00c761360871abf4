import pytest

from appcfg import DEFAULTS, ConfigError, load_settings


def write(tmp_path, text):
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_syntax_error_stops_startup(tmp_path):
    path = write(tmp_path, '{"port": 9000,}\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    assert str(path) in str(info.value)


def test_missing_file_gives_defaults(tmp_path):
    assert load_settings(tmp_path / "absent.json") == DEFAULTS


def test_overrides_apply(tmp_path):
    path = write(tmp_path, '{"port": 9000, "debug": true}')
    assert load_settings(path) == {"port": 9000, "debug": True, "workers": 2}


def test_bad_port_is_rejected(tmp_path):
    path = write(tmp_path, '{"port": "9000"}')
    with pytest.raises(ConfigError, match="port"):
        load_settings(path)
