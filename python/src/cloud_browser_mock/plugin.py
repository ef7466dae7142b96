"""The pytest plugin (entry point ``pytest11``): installing the package is enough.

Fixtures: ``cloud_browser_mock`` (session scope: starts or connects once) and ``mock`` (the same
handle, reset to the scenario before each test). Options, each with its environment variable:
``--cbm-url`` (CBM_URL), ``--cbm-command`` (CBM_COMMAND), ``--cbm-package`` (CBM_PACKAGE, or its
former name CBM_TARBALL), ``--cbm-image`` (CBM_IMAGE); for a mock the plugin starts,
``--cbm-scenario`` (CBM_SCENARIO), ``--cbm-auth`` (CBM_AUTH), ``--cbm-seed`` (CBM_SEED) and
``--cbm-spec`` (CBM_SPEC); and ``--cbm-admin-token`` (CBM_ADMIN_TOKEN). Under pytest-xdist each
worker starts a mock of its own; with ``--cbm-url`` they all share that one.
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
from ._server import MockServer, MockStartError, connect_mock_server, start_mock_server

__all__ = ["cloud_browser_mock", "mock"]

# Each option with its environment variables, the first one set winning (CBM_TARBALL: the former name).
_OPTIONS: Tuple[Tuple[str, Tuple[str, ...], str], ...] = (
    ("--cbm-url", ("CBM_URL",), "URL of a running mock to use (a sidecar, npx in another shell); every xdist worker shares it"),
    ("--cbm-command", ("CBM_COMMAND",), "command line that runs the CLI, e.g. 'node path/to/dist/bin/cli.js'; the plugin appends --port 0 and its flags"),
    ("--cbm-package", ("CBM_PACKAGE", "CBM_TARBALL"), "npm package spec or packed .tgz to run with npx (under xdist installed once, then run by each worker)"),
    ("--cbm-image", ("CBM_IMAGE",), "Docker image to run with the docker CLI, one container per session (per xdist worker)"),
    ("--cbm-scenario", ("CBM_SCENARIO",), "scenario for a mock the plugin starts: a built-in name or a scenario file"),
    ("--cbm-auth", ("CBM_AUTH",), "auth mode of a mock the plugin starts: open (any bearer token) or strict (issued tokens and the scenario's API keys)"),
    ("--cbm-seed", ("CBM_SEED",), "seed of a mock the plugin starts: the ids it makes and which probabilistic faults fire"),
    ("--cbm-spec", ("CBM_SPEC",), "OpenAPI document whose other operations a mock the plugin starts serves too (Docker: mounted read-only)"),
    ("--cbm-admin-token", ("CBM_ADMIN_TOKEN",), "the mock's admin token: given to a mock the plugin starts, sent on every control-plane call"),
)

NO_WAY = (
    "cloud-browser-mock: no way to reach or start the mock is configured; give one of --cbm-url URL (CBM_URL), "
    "--cbm-command 'node path/to/dist/bin/cli.js' (CBM_COMMAND), --cbm-package SPEC_OR_TGZ (CBM_PACKAGE) or --cbm-image IMAGE (CBM_IMAGE)"
)

# What only a mock the plugin starts is given. On the command line beside --cbm-url they are an
# error; their variables are the CLI's own too (a sidecar's configuration may set them), so there
# they are left alone.
_STARTING_ONLY = ("--cbm-scenario", "--cbm-auth", "--cbm-seed", "--cbm-spec")

_INSTALLED = "cbm_installed_command"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cloud-browser-mock")
    for flag, variables, help_text in _OPTIONS:
        group.addoption(flag, dest=_dest(flag), default=None, help=f"{help_text} (env {' or '.join(variables)})")


def _dest(flag: str) -> str:
    return flag[2:].replace("-", "_")


def _from_environment(flag: str) -> Optional[str]:
    variables = next(v for f, v, _ in _OPTIONS if f == flag)
    return next((os.environ[v] for v in variables if os.environ.get(v)), None)


def _option(config: pytest.Config, flag: str) -> Optional[str]:
    value = config.getoption(_dest(flag))
    return (str(value) if value else None) or _from_environment(flag)


_WAYS = ("--cbm-url", "--cbm-command", "--cbm-package", "--cbm-image")


def _way(config: pytest.Config) -> Tuple[Optional[str], Optional[str]]:
    """How to reach the mock: the first of the options given on the command line, else the first
    of their environment variables; (None, None) when none is."""
    for flag in _WAYS:
        value = config.getoption(_dest(flag))
        if value:
            return flag, str(value)
    for flag in _WAYS:
        found = _from_environment(flag)
        if found:
            return flag, found
    return None, None


def _distributed(config: pytest.Config) -> bool:
    return getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    way, package = _way(config)
    given = [flag for flag in _STARTING_ONLY if config.getoption(_dest(flag))]
    if way == "--cbm-url" and given:
        one = len(given) == 1
        raise pytest.UsageError(
            f"cloud-browser-mock: {', '.join(given)} {'is' if one else 'are'} for a mock the plugin starts, and with --cbm-url it starts none: "
            f"give {'it' if one else 'them'} to the mock you run"
        )
    # Several workers running npx of one package at once race in npm's cache (npm < 11.6): the
    # controller installs it once, and each worker runs the installed CLI (pytest_configure_node).
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
    problem: Optional[str] = None
    try:
        server: MockServer = start_mock_server(
            command=installed or (value if way == "--cbm-command" else None),
            package=value if way == "--cbm-package" and not installed else None,
            image=value if way == "--cbm-image" else None,
            scenario=_option(config, "--cbm-scenario"),
            auth=_option(config, "--cbm-auth"),
            seed=_option(config, "--cbm-seed"),
            spec=_option(config, "--cbm-spec"),
            admin_token=admin_token,
        )
    except MockStartError as e:
        problem = str(e)
    if problem is not None:
        # The CLI's own one-line error (a bad --cbm-seed, a missing scenario), not a traceback.
        pytest.fail(problem, pytrace=False)
    with server:
        yield server


@pytest.fixture
def mock(cloud_browser_mock: MockControl) -> MockControl:
    """The session's mock, reset before the test: clock, every workspace, journal, faults and
    coverage back to the scenario. With --cbm-url under xdist the workers share one mock, and
    this reset wipes what the other workers' running tests hold there too."""
    cloud_browser_mock.reset()
    return cloud_browser_mock

