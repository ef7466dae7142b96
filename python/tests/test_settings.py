"""What a started mock is given besides its way in: auth=, seed= and spec= as the CLI's flags, the
environment a command inherits, and what the Docker mode passes into a container (checked with a
stand-in for the docker command here; test_docker.py runs the image itself)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from cbm_service import TOKEN, call
from cloud_browser_mock import MockStartError, start_mock_server
from cloud_browser_mock._docker import CONTAINER_SPEC_DIR, DOCKER_PASSED_VARIABLES, DOCKER_WITHHELD_VARIABLES
from cloud_browser_mock._server import package_from_environment

SECRETS = "/secrets"


def strict_answers(url: str) -> List[int]:
    """Statuses of a listing with a made-up key and with the scenario's key."""
    return [call(url, "GET", SECRETS, token="a-made-up-key")[0], call(url, "GET", SECRETS, token=TOKEN)[0]]


def test_auth_strict_refuses_a_key_the_scenario_does_not_have(cli_command: List[str]) -> None:
    with start_mock_server(command=cli_command, auth="strict") as server:
        assert strict_answers(server.url) == [401, 200]
    with start_mock_server(command=cli_command) as server:  # open, the CLI's default
        assert strict_answers(server.url) == [200, 200]


def test_a_command_inherits_the_cli_variables_of_env(cli_command: List[str]) -> None:
    with start_mock_server(command=cli_command, env={**os.environ, "CBM_AUTH": "strict"}) as server:
        assert strict_answers(server.url) == [401, 200]


def first_secret_id(cli_command: List[str], seed: Optional[int]) -> str:
    with start_mock_server(command=cli_command, seed=seed) as server:
        status, body = call(server.url, "POST", SECRETS, {"name": "SEEDED", "value": "v"})
        assert status == 201
        return str(body["id"])


def test_seed_decides_the_ids_the_mock_makes(cli_command: List[str]) -> None:
    seven = first_secret_id(cli_command, 7)
    assert first_secret_id(cli_command, 7) == seven
    assert first_secret_id(cli_command, 8) != seven


def test_a_seed_the_cli_refuses_raises_its_one_line_error(cli_command: List[str]) -> None:
    with pytest.raises(MockStartError, match=r"^cloud-browser-mock: --seed.*integer.*\(exit code 2: "):
        start_mock_server(command=cli_command, seed="seven")


@pytest.mark.parametrize(
    "env, expected",
    [({"CBM_PACKAGE": "a.tgz", "CBM_TARBALL": "b.tgz"}, "a.tgz"), ({"CBM_TARBALL": "b.tgz"}, "b.tgz"), ({"CBM_PACKAGE": ""}, None)],
)
def test_the_package_comes_from_cbm_package_or_its_former_name_cbm_tarball(env: Dict[str, str], expected: Optional[str]) -> None:
    assert package_from_environment(env) == expected


def test_every_variable_of_the_cli_is_passed_to_a_container_or_withheld_for_a_reason(cli_command: List[str]) -> None:
    helped = subprocess.run([*cli_command, "--help"], capture_output=True, text=True, check=True).stdout
    variables = set(re.findall(r"\[(CBM_[A-Z_]+)", helped))
    assert variables, helped
    assert not set(DOCKER_PASSED_VARIABLES) & set(DOCKER_WITHHELD_VARIABLES)
    assert variables - set(DOCKER_PASSED_VARIABLES) - set(DOCKER_WITHHELD_VARIABLES) == set()
    assert set(DOCKER_PASSED_VARIABLES) <= variables
    assert {"CBM_HOST", "CBM_PORT", "CBM_DATA_DIR"} <= set(DOCKER_WITHHELD_VARIABLES)


@pytest.fixture
def fake_docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `docker` first on PATH that records its arguments and fails as docker run would."""
    record = tmp_path / "docker-argv.json"
    script = tmp_path / "bin" / "docker"
    script.parent.mkdir()
    script.write_text(f"#!{sys.executable}\nimport json, sys\njson.dump(sys.argv[1:], open({str(record)!r}, 'w'))\nsys.stderr.write('no engine here\\n')\nsys.exit(125)\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    return record


def docker_run(record: Path, **kwargs: Any) -> List[str]:
    with pytest.raises(MockStartError, match=r"^docker run cbm:test: no engine here$"):
        start_mock_server(image="cbm:test", **kwargs)
    return list(json.loads(record.read_text()))


def test_docker_mode_passes_the_mock_variables_and_never_host_port_or_data_dir(fake_docker: Path) -> None:
    env = {"CBM_AUTH": "strict", "CBM_SEED": "5", "CBM_HOST": "10.0.0.1", "CBM_PORT": "1", "CBM_DATA_DIR": "/tmp/x", "CBM_URL": "http://x", "HOME": "/root"}
    argv = docker_run(fake_docker, env=env, admin_token="adm")
    passed = [argv[i + 1] for i, a in enumerate(argv) if a == "-e"]
    assert sorted(passed) == ["CBM_ADMIN_TOKEN=adm", "CBM_AUTH=strict", "CBM_SEED=5"]
    image_at = argv.index("cbm:test")
    assert argv[image_at + 1 :][:3] == ["--in-memory", "--log-level", "warn"]


def test_docker_mode_gives_auth_seed_and_a_spec_through_a_read_only_volume(fake_docker: Path, tmp_path: Path) -> None:
    spec = tmp_path / "service.openapi.json"
    spec.write_text("{}")
    argv = docker_run(fake_docker, env={}, auth="strict", seed=3, spec=str(spec))
    inside = f"{CONTAINER_SPEC_DIR}/service.openapi.json"
    assert argv[argv.index("-v") + 1] == f"{spec}:{inside}:ro"
    flags = argv[argv.index("cbm:test") + 1 :]
    for flag, value in (("--auth", "strict"), ("--seed", "3"), ("--spec", inside)):
        assert flags[flags.index(flag) + 1] == value


def test_docker_mode_refuses_a_spec_that_is_not_a_file_before_running_docker(fake_docker: Path, tmp_path: Path) -> None:
    with pytest.raises(MockStartError, match=r"^spec .*missing\.json: no such file$"):
        start_mock_server(image="cbm:test", spec=str(tmp_path / "missing.json"))
    assert not fake_docker.exists()
