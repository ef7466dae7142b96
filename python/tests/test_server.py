"""start_mock_server and connect_mock_server against the real CLI: the handle they give, the
admin token, and the errors of a mock that does not start or does not answer."""

from __future__ import annotations

import socket
import subprocess
import sys
from typing import List

import pytest

from cloud_browser_mock import MockControl, MockControlError, MockServer, MockStartError, connect_mock_server, start_mock_server


def test_start_mock_server_gives_the_handle_and_close_stops_the_mock(cli_command: List[str]) -> None:
    with start_mock_server(command=cli_command, scenario="empty") as server:
        assert isinstance(server, MockServer) and isinstance(server, MockControl)
        assert server.url == f"http://127.0.0.1:{server.port}"
        assert server.workspace("user:dev@example.com")["sessions"] == []  # the empty scenario
    with pytest.raises(ConnectionError, match="did not answer"):
        server.coverage()
    server.close()  # a second close does nothing


def test_a_command_line_string_is_split_like_a_shell(cli_command: List[str]) -> None:
    import shlex

    with start_mock_server(command=shlex.join(cli_command)) as server:
        assert server.clock.now()["frozen"] is False


def test_with_an_admin_token_every_call_carries_it_and_a_call_without_it_is_refused(cli_command: List[str]) -> None:
    with start_mock_server(command=cli_command, admin_token="s3cret") as server:
        assert server.faults.list() == []
        for token in (None, "wrong"):
            with pytest.raises(MockControlError) as raised:
                MockControl(server.url, token).faults.list()
            assert raised.value.status == 401
        assert connect_mock_server(server.url, admin_token="s3cret").faults.list() == []


def test_admin_token_defaults_to_cbm_admin_token_which_the_cli_reads_too(cli_command: List[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CBM_ADMIN_TOKEN", "from-env")
    with start_mock_server(command=cli_command) as server:
        assert server.coverage()["exercised"] == 0
        monkeypatch.delenv("CBM_ADMIN_TOKEN")
        with pytest.raises(MockControlError) as raised:
            connect_mock_server(server.url).coverage()
        assert raised.value.status == 401


def test_a_mock_that_cannot_start_raises_the_cli_own_one_line_error(cli_command: List[str]) -> None:
    with pytest.raises(MockStartError) as raised:
        start_mock_server(command=cli_command, scenario="no-such-scenario")
    message = str(raised.value)
    assert message.startswith("cloud-browser-mock: ") and "no-such-scenario" in message
    assert "(exit code 2:" in message and "\n" not in message


def test_a_command_that_does_not_exist_raises_naming_it() -> None:
    with pytest.raises(MockStartError, match="cannot run no-such-command-cbm"):
        start_mock_server(command="no-such-command-cbm --flag")


def test_without_a_way_to_start_it_raises_naming_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("CBM_COMMAND", "CBM_PACKAGE", "CBM_TARBALL", "CBM_IMAGE"):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(MockStartError, match="pass command= .* package= .* image= .* CBM_COMMAND, CBM_PACKAGE or CBM_IMAGE"):
        start_mock_server()


def test_connect_mock_server_raises_naming_a_url_that_does_not_answer() -> None:
    with socket.socket() as s:  # a port nobody listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
        with pytest.raises(MockStartError, match=f"cloud-browser-mock at {url}: /health did not answer 200"):
            connect_mock_server(url, timeout=0.5)


def test_a_fixed_port_is_the_one_listened_on(cli_command: List[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with start_mock_server(command=cli_command, port=port) as server:
        assert server.port == port


def test_a_mock_left_open_is_stopped_when_the_interpreter_exits(cli_command: List[str]) -> None:
    script = "import sys; from cloud_browser_mock import start_mock_server; print(start_mock_server(command=sys.argv[1:]).url)"
    done = subprocess.run([sys.executable, "-c", script, *cli_command], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    url = done.stdout.strip()
    assert url.startswith("http://127.0.0.1:")
    with pytest.raises(ConnectionError, match="did not answer"):
        MockControl(url).coverage()
