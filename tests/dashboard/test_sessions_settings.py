"""Operator settings: which server paths the Score page may read (dashboard/settings.py)."""

from __future__ import annotations

import os

import pytest

from dashboard.settings import (
    ENV_ALLOWED,
    ENV_CACHE,
    ENV_CONFIG,
    PathNotAllowed,
    load_settings,
    resolve_path,
)


@pytest.fixture
def tree(tmp_path):
    allowed = tmp_path / "allowed"
    (allowed / "models").mkdir(parents=True)
    (allowed / "texts.csv").write_text("item_id,split,text\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.csv").write_text("item_id,split,text\n")
    (allowed / "link").symlink_to(outside / "secret.csv")
    return allowed, outside


def test_default_on_localhost_is_home_and_working_directory(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "work"
    home.mkdir(), cwd.mkdir()
    for address in ("localhost", "127.0.0.1", "::1"):
        settings = load_settings(environ={}, address=address, cwd=cwd, home=home)
        assert settings.allowed_dirs == (cwd.resolve(), home.resolve()) and settings.scoring_cache_dir is None
    (cwd / "texts.csv").write_text("text\nx\n")
    assert resolve_path("texts.csv", settings, what="texts") == (cwd / "texts.csv").resolve()  # as the CLI reads it


@pytest.mark.parametrize("address", [None, "", "0.0.0.0", "192.168.1.5"])
def test_default_served_to_others_reads_no_path(tmp_path, address):
    settings = load_settings(environ={}, address=address, cwd=tmp_path, home=tmp_path)
    assert not settings.paths_allowed
    with pytest.raises(PathNotAllowed, match="reads no server paths; upload"):
        resolve_path(str(tmp_path), settings, what="texts")


def test_environment_overrides_the_default(tree, tmp_path):
    allowed, outside = tree
    env = {ENV_ALLOWED: os.pathsep.join([str(allowed), str(outside)]), ENV_CACHE: str(tmp_path / "cache")}
    settings = load_settings(environ=env, address="0.0.0.0", cwd=tmp_path)
    assert settings.allowed_dirs == (allowed.resolve(), outside.resolve())
    assert settings.scoring_cache_dir == (tmp_path / "cache").resolve()
    for word in ("none", "", "uploads-only"):
        assert not load_settings(environ={ENV_ALLOWED: word}, address="localhost", cwd=tmp_path).paths_allowed


def test_toml_file(tree, tmp_path):
    allowed, _ = tree
    config = tmp_path / "ops.toml"
    config.write_text(f'[paths]\nallowed_dirs = ["{allowed}"]\nscoring_cache_dir = "{tmp_path}"\n')
    settings = load_settings(environ={ENV_CONFIG: str(config)}, address="0.0.0.0", cwd=tmp_path)
    assert settings.allowed_dirs == (allowed.resolve(),) and settings.scoring_cache_dir == tmp_path.resolve()
    config.write_text('[paths]\nallowed_dirs = "not a list"\n')
    with pytest.raises(ValueError, match="allowed_dirs must be a list"):
        load_settings(environ={ENV_CONFIG: str(config)}, cwd=tmp_path)
    (tmp_path / "jecs-dashboard.toml").write_text("[paths]\nallowed_dirs = []\n")  # the default file name
    assert not load_settings(environ={}, address="localhost", cwd=tmp_path).paths_allowed


def test_paths_inside_are_resolved_outside_refused_alike(tree):
    allowed, outside = tree
    settings = load_settings(environ={ENV_ALLOWED: str(allowed)})
    assert resolve_path(str(allowed / "texts.csv"), settings, what="texts") == (allowed / "texts.csv").resolve()
    assert resolve_path("models", settings, what="model 'a'") == (allowed / "models").resolve()  # relative: first dir
    with pytest.raises(ValueError, match="was not found") as missing_inside:
        resolve_path(str(allowed / "nope.csv"), settings, what="texts")
    assert not isinstance(missing_inside.value, PathNotAllowed)

    def refusal(text: str) -> str:
        with pytest.raises(PathNotAllowed) as info:
            resolve_path(text, settings, what="texts")
        return str(info.value).replace(text, "<path>")

    existing, missing = refusal(str(outside / "secret.csv")), refusal(str(outside / "missing.csv"))
    assert existing == missing == "texts: <path> is not inside a directory this dashboard allows"
    # Neither a symbolic link nor '..' leads out.
    assert refusal(str(allowed / "link")) == existing
    assert refusal(str(allowed / ".." / "outside" / "secret.csv")) == existing
    assert refusal("../outside/secret.csv") == existing
    assert refusal("~/../../../../etc/passwd") == existing


def test_empty_path_is_a_plain_error(tree):
    settings = load_settings(environ={ENV_ALLOWED: str(tree[0])})
    with pytest.raises(ValueError, match="give a path"):
        resolve_path("  ", settings, what="texts")
