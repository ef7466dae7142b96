"""start_mock_server's Docker mode, against the image named by CBM_IMAGE: .ci/run's docker-smoke
step runs this file with the image it built (a private Docker engine); elsewhere it is skipped."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List

import pytest

from cbm_service import TOKEN, call
from cloud_browser_mock import MockControl, MockControlError, MockStartError, start_mock_server

#: The test document of issue 30 (a stand-in for the service's own; see its generate.mjs).
SPEC = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "whole-service" / "service.openapi.json"
IMAGE = os.environ.get("CBM_IMAGE", "")
pytestmark = pytest.mark.skipif(not IMAGE, reason="CBM_IMAGE is not set: the Docker mode runs in .ci/run's docker-smoke step")


def test_the_image_gives_the_handle_with_its_scenario_and_admin_token_and_close_stops_it() -> None:
    with start_mock_server(image=IMAGE, scenario="empty", admin_token="s3cret") as server:
        assert server.url == f"http://127.0.0.1:{server.port}"
        assert server.workspace("user:dev@example.com")["sessions"] == []
        with pytest.raises(MockControlError) as raised:
            MockControl(server.url).faults.list()
        assert raised.value.status == 401
    with pytest.raises(ConnectionError):
        server.coverage()


def test_an_image_that_cannot_start_raises_the_cli_own_error() -> None:
    with pytest.raises(MockStartError) as raised:
        start_mock_server(image=IMAGE, scenario="no-such-scenario")
    message = str(raised.value)
    assert message.startswith("cloud-browser-mock: --scenario: ") and "no-such-scenario" in message
    assert message.endswith(f"(docker run {IMAGE})")


def statuses_with_a_made_up_key_and_the_scenario_key(url: str) -> List[int]:
    return [call(url, "GET", "/secrets", token="a-made-up-key")[0], call(url, "GET", "/secrets", token=TOKEN)[0]]


def test_auth_strict_reaches_the_container_which_refuses_a_key_the_scenario_does_not_have() -> None:
    with start_mock_server(image=IMAGE, auth="strict") as server:
        assert statuses_with_a_made_up_key_and_the_scenario_key(server.url) == [401, 200]


def test_the_mock_variables_reach_the_container_but_not_host_port_or_data_dir() -> None:
    # CBM_PORT or CBM_HOST passed in would move the mock away from the published port 8000, and
    # CBM_DATA_DIR would point it at a directory the container does not have: it would not start.
    env = {**os.environ, "CBM_AUTH": "strict", "CBM_PORT": "1234", "CBM_HOST": "127.0.0.1", "CBM_DATA_DIR": "/nowhere"}
    with start_mock_server(image=IMAGE, env=env) as server:
        assert statuses_with_a_made_up_key_and_the_scenario_key(server.url) == [401, 200]


def test_a_spec_is_mounted_read_only_and_its_operations_are_served() -> None:
    # Needs --spec (issue 30) in the image.
    with start_mock_server(image=IMAGE, spec=str(SPEC)) as server:
        status, body = call(server.url, "POST", "/sessions/start", {})
        assert 200 <= status < 300, body
