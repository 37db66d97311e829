"""A Ray cluster address nobody answers at: one line naming where it came from, in seconds, not minutes of retries."""

from __future__ import annotations

import socket

import pytest

from scoring.ray_engine import _check_reachable


def _closed_port() -> int:
    with socket.socket() as probe:  # a port just freed: nothing listens there
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("given_by", ["--address", "RAY_ADDRESS"])
def test_an_address_nobody_answers_at_is_refused_naming_its_source(given_by):
    address = f"127.0.0.1:{_closed_port()}"
    with pytest.raises(ValueError) as caught:
        _check_reachable(address, given_by)
    message = str(caught.value)
    assert message.startswith(f"{given_by}: no Ray cluster answers at {address} (") and "ray start --head" in message
    assert "\n" not in message


def test_a_listening_address_and_the_ones_ray_resolves_pass():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        _check_reachable(f"127.0.0.1:{server.getsockname()[1]}", "--address")
    for address in ("auto", "ray://head:10001", "head"):  # Ray's own to resolve
        _check_reachable(address, "--address")


def test_jecs_score_with_an_unreachable_address_stops_before_any_model_work(tmp_path, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("ray", reason="the Ray engine needs the distributed extra (ray)")
    from jecs_cli import main
    from scoring.testing import save_tiny_model

    model = save_tiny_model(tmp_path / "tiny")
    texts = tmp_path / "t.csv"
    texts.write_text("item_id,split,text\nq0,calibration,hello there\nq1,test,world again\n", encoding="utf-8")
    address = f"127.0.0.1:{_closed_port()}"
    code = main(["score", "--engine", "ray", "--address", address, "--texts", str(texts), "--model", f"a={model}",
                 "--out", str(tmp_path / "o.csv"), "--cache-dir", str(tmp_path / "cache"), "--no-progress"])
    assert code == 2 and f"--address: no Ray cluster answers at {address}" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.ray
def test_more_workers_than_the_default_local_ray_cpus_start_a_ray_that_can_place_them(tmp_path):
    # A local Ray of two CPUs could never place three one-CPU actors: the job failed on any machine.
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("ray", reason="the Ray engine needs the distributed extra (ray)")
    import subprocess
    import sys

    import pandas as pd

    from scoring.testing import save_tiny_model

    model = save_tiny_model(tmp_path / "tiny")
    texts = tmp_path / "t.csv"
    texts.write_text("item_id,split,text\nq0,calibration,hello there\nq1,test,world again\nq2,test,more words\n",
                     encoding="utf-8")
    out = tmp_path / "o.csv"
    run = subprocess.run([sys.executable, "-m", "jecs_cli", "score", "--engine", "ray", "--workers", "3", "--texts",
                          str(texts), "--model", f"a={model}", "--out", str(out), "--cache-dir", str(tmp_path / "c"),
                          "--no-progress"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert pd.read_csv(out)["item_id"].tolist() == ["q0", "q1", "q2"]


def test_an_ipv6_address_in_brackets_is_probed_without_them():
    try:
        server = socket.create_server(("::1", 0), family=socket.AF_INET6)
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with server:
        _check_reachable(f"[::1]:{server.getsockname()[1]}", "--address")
