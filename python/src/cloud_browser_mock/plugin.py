"""The pytest plugin (entry point ``pytest11``): installing the package is enough.

Fixtures: ``cloud_browser_mock`` (session scope: starts or connects once) and ``mock`` (the same
handle, reset to the scenario before each test). Options, each with its environment variable:
``--cbm-url`` (CBM_URL), ``--cbm-command`` (CBM_COMMAND), ``--cbm-package`` (CBM_TARBALL),
``--cbm-image`` (CBM_IMAGE), ``--cbm-scenario`` (CBM_SCENARIO), ``--cbm-admin-token``
(CBM_ADMIN_TOKEN). Under pytest-xdist each worker starts a mock of its own; with ``--cbm-url``
they all share that one.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from typing import Any, Iterator, List, Optional, Tuple

import pytest

from ._control import MockControl
from ._server import MockServer, connect_mock_server, start_mock_server

__all__ = ["cloud_browser_mock", "mock"]

_OPTIONS = (
    ("--cbm-url", "CBM_URL", "URL of a running mock to use (a sidecar, npx in another shell); every xdist worker shares it"),
    ("--cbm-command", "CBM_COMMAND", "command line that runs the CLI, e.g. 'node path/to/dist/bin/cli.js'; the plugin appends --port 0 and its flags"),
    ("--cbm-package", "CBM_TARBALL", "npm package spec or packed .tgz to run with npx (under xdist installed once, then run by each worker)"),
    ("--cbm-image", "CBM_IMAGE", "Docker image to run with the docker CLI, one container per session (per xdist worker)"),
    ("--cbm-scenario", "CBM_SCENARIO", "scenario for a mock the plugin starts: a built-in name or a scenario file"),
    ("--cbm-admin-token", "CBM_ADMIN_TOKEN", "the mock's admin token: given to a mock the plugin starts, sent on every control-plane call"),
)

NO_WAY = (
    "cloud-browser-mock: no way to reach or start the mock is configured; give one of --cbm-url URL (CBM_URL), "
    "--cbm-command 'node path/to/dist/bin/cli.js' (CBM_COMMAND), --cbm-package SPEC_OR_TGZ (CBM_TARBALL) or --cbm-image IMAGE (CBM_IMAGE)"
)

_INSTALLED = "cbm_installed_command"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cloud-browser-mock")
    for flag, variable, help_text in _OPTIONS:
        group.addoption(flag, dest=flag[2:].replace("-", "_"), default=None, help=f"{help_text} (env {variable})")


def _option(config: pytest.Config, flag: str) -> Optional[str]:
    variable = next(v for f, v, _ in _OPTIONS if f == flag)
    value = config.getoption(flag[2:].replace("-", "_"))
    return (str(value) if value else None) or os.environ.get(variable) or None


_WAYS = ("--cbm-url", "--cbm-command", "--cbm-package", "--cbm-image")


def _way(config: pytest.Config) -> Tuple[Optional[str], Optional[str]]:
    """How to reach the mock: the first of the options given on the command line, else the first
    of their environment variables; (None, None) when none is."""
    for flag in _WAYS:
        value = config.getoption(flag[2:].replace("-", "_"))
        if value:
            return flag, str(value)
    for flag in _WAYS:
        variable = next(v for f, v, _ in _OPTIONS if f == flag)
        if os.environ.get(variable):
            return flag, os.environ[variable]
    return None, None


def _distributed(config: pytest.Config) -> bool:
    return getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    # Several workers running npx of one package at once race in npm's cache (npm < 11.6): the
    # controller installs it once, and each worker runs the installed CLI (pytest_configure_node).
    way, package = _way(config)
    if not _distributed(config) or way != "--cbm-package" or package is None or config.getoption("collectonly"):
        return
    where = tempfile.mkdtemp(prefix="cbm-pytest-")
    config.stash[_where_key] = where
    spec = os.path.abspath(package) if os.path.isfile(package) else package
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        raise pytest.UsageError(f"cloud-browser-mock: --cbm-package {package} needs node and npm on PATH")
    run = subprocess.run([npm, "install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel", "error", "--prefix", where, spec], capture_output=True, text=True)
    if run.returncode != 0:
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        raise pytest.UsageError(f"cloud-browser-mock: npm install {package} failed: {lines[-1] if lines else f'exit code {run.returncode}'}")
    root = os.path.join(where, "node_modules", "cloud-browser-mock")
    with open(os.path.join(root, "package.json"), encoding="utf-8") as f:
        bin_field: Any = json.load(f)["bin"]
    script = bin_field if isinstance(bin_field, str) else bin_field["cloud-browser-mock"]
    config.stash[_command_key] = [node, os.path.join(root, script)]


_where_key = pytest.StashKey[str]()
_command_key = pytest.StashKey[List[str]]()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist, in the controller: hands each worker the installed command."""
    command = node.config.stash.get(_command_key, None)
    if command is not None:
        node.workerinput[_INSTALLED] = command


def pytest_unconfigure(config: pytest.Config) -> None:
    where = config.stash.get(_where_key, None)
    if where is not None:
        shutil.rmtree(where, ignore_errors=True)


def pytest_report_header(config: pytest.Config) -> str:
    way, value = _way(config)
    if way is None:
        return "cloud-browser-mock: not configured (--cbm-url, --cbm-command, --cbm-package or --cbm-image)"
    installed = config.stash.get(_command_key, None)
    if installed is not None:
        return f"cloud-browser-mock: {way} {value}, installed once for the xdist workers, each of which runs {shlex.join(installed)}"
    return f"cloud-browser-mock: {way} {value}"


@pytest.fixture(scope="session")
def cloud_browser_mock(pytestconfig: pytest.Config) -> Iterator[MockControl]:
    """The mock for this test session (for this xdist worker): connected to with --cbm-url, else
    started with --cbm-command, --cbm-package or --cbm-image and stopped at the end. Not reset:
    use ``mock`` for that."""
    config = pytestconfig
    admin_token = _option(config, "--cbm-admin-token")
    way, value = _way(config)
    if way == "--cbm-url" and value is not None:
        yield connect_mock_server(value, admin_token)
        return
    if way is None or value is None:
        pytest.fail(NO_WAY, pytrace=False)
    installed: Optional[List[str]] = getattr(config, "workerinput", {}).get(_INSTALLED)
    server: MockServer = start_mock_server(
        command=installed or (value if way == "--cbm-command" else None),
        package=value if way == "--cbm-package" and not installed else None,
        image=value if way == "--cbm-image" else None,
        scenario=_option(config, "--cbm-scenario"),
        admin_token=admin_token,
    )
    with server:
        yield server


@pytest.fixture
def mock(cloud_browser_mock: MockControl) -> MockControl:
    """The session's mock, reset before the test: clock, every workspace, journal, faults and
    coverage back to the scenario. With --cbm-url under xdist the workers share one mock, and
    this reset wipes what the other workers' running tests hold there too."""
    cloud_browser_mock.reset()
    return cloud_browser_mock

