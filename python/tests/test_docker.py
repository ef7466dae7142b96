"""start_mock_server's Docker mode, against the image named by CBM_IMAGE: .ci/run's docker-smoke
step runs this file with the image it built (a private Docker engine); elsewhere it is skipped."""

from __future__ import annotations

import os

import pytest

from cloud_browser_mock import MockControl, MockControlError, MockStartError, start_mock_server

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
