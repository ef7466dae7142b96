"""Starting a mock from Python (the CLI by a command line, npx or the Docker image) and
connecting to one started elsewhere."""

from __future__ import annotations

import atexit
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections import deque
from types import TracebackType
from typing import IO, Callable, Deque, List, Mapping, Optional, Sequence, Tuple, Type, Union

from ._control import MockControl
from ._docker import start_docker
from ._starting import MockStartError, Settings, healthy_or_stopped, wait_for_health

__all__ = ["MockServer", "MockStartError", "connect_mock_server", "npx_argv", "package_from_environment", "start_mock_server", "wait_for_health"]

_LISTENING = re.compile(r"listening on (http://\S+)")


class MockServer(MockControl):
    """A mock this process started: the handle itself (``url``, ``reset()``, ``clock``, ``faults``,
    ...) plus ``port`` and ``close()``. A context manager; it is also stopped at interpreter exit."""

    def __init__(self, url: str, admin_token: Optional[str], stop: Callable[[], None], *, timeout: float = 30.0) -> None:
        super().__init__(url, admin_token, timeout=timeout)
        #: The port the mock listens on.
        self.port = int(url.rsplit(":", 1)[1].split("/")[0])
        self._stop: Optional[Callable[[], None]] = stop
        atexit.register(self.close)

    def close(self) -> None:
        """Stops the mock (SIGTERM to the CLI's process group, or ``docker stop``) and waits for it.
        Calling it again does nothing."""
        stop, self._stop = self._stop, None
        if stop is not None:
            atexit.unregister(self.close)
            stop()

    def __enter__(self) -> MockServer:
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()


def _admin_token(admin_token: Optional[str]) -> Optional[str]:
    # The CLI reads CBM_ADMIN_TOKEN too, so a child started without --admin-token inherits it.
    return admin_token if admin_token is not None else (os.environ.get("CBM_ADMIN_TOKEN") or None)


def connect_mock_server(url: str, admin_token: Optional[str] = None, *, timeout: float = 30.0) -> MockControl:
    """The handle on a mock started elsewhere (npx, a Docker sidecar, a CI service), once its
    ``/health`` answers 200. ``admin_token`` defaults to ``CBM_ADMIN_TOKEN``."""
    wait_for_health(url, timeout)
    return MockControl(url, _admin_token(admin_token))


def _cli_flags(port: int, settings: Settings, spec: Optional[str], admin_token: Optional[str], data_dir: Optional[str], args: Sequence[str]) -> List[str]:
    flags = ["--port", str(port)] + settings.flags(spec)
    flags += ["--data-dir", data_dir] if data_dir is not None else ["--in-memory"]
    if admin_token is not None:
        flags += ["--admin-token", admin_token]
    return flags + list(args)


def _drain(stream: IO[str], keep: Deque[str], on_line: Optional[Callable[[str], None]] = None) -> None:
    for line in stream:
        keep.append(line.rstrip("\n"))
        if on_line:
            on_line(line)
    stream.close()


def _start_process(argv: List[str], cwd: Optional[str], env: Mapping[str, str], timeout: float) -> Tuple[str, Callable[[], None]]:
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", errors="replace", start_new_session=True,
        )
    except OSError as e:
        raise MockStartError(f"cannot run {argv[0]}: {e.strerror or e}") from None
    assert proc.stdout is not None and proc.stderr is not None
    found: List[str] = []
    listening = threading.Event()

    def on_line(line: str) -> None:
        match = _LISTENING.search(line)
        if match and not found:
            found.append(match.group(1))
            listening.set()

    # Both pipes are read to the end so the mock never blocks on a full one (its log is on stdout).
    out: Deque[str] = deque(maxlen=20)
    err: Deque[str] = deque(maxlen=20)
    readers = [
        threading.Thread(target=_drain, args=(proc.stdout, out, on_line), daemon=True),
        threading.Thread(target=_drain, args=(proc.stderr, err), daemon=True),
    ]
    for reader in readers:
        reader.start()

    def stop() -> None:
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                _signal_group(proc, getattr(signal, "SIGKILL", signal.SIGTERM))
                proc.wait()
        for reader in readers:
            reader.join(timeout=5)

    deadline = time.monotonic() + timeout
    while not listening.wait(0.1):
        if proc.poll() is not None:
            for reader in readers:
                reader.join(timeout=5)
            said = next((line for line in reversed(err) if line.strip()), None) or next((line for line in reversed(out) if line.strip()), None)
            raise MockStartError(f"{said or 'cloud-browser-mock exited without a word'} (exit code {proc.returncode}: {shlex.join(argv)})")
        if time.monotonic() >= deadline:
            stop()
            raise MockStartError(f"cloud-browser-mock did not say where it listens within {timeout:g} s ({shlex.join(argv)})")
    url = found[0]

    def gone() -> Optional[str]:
        return f"cloud-browser-mock exited with {proc.returncode}" if proc.poll() is not None else None

    healthy_or_stopped(url, timeout, gone, stop)
    return url, stop


def _signal_group(proc: "subprocess.Popen[str]", sig: int) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, sig)  # the whole group: npx and the node it started
        else:
            proc.terminate()
    except ProcessLookupError:
        pass


def npx_argv(package: str) -> Tuple[List[str], Optional[str]]:
    """npx's command line for a package spec or a packed tarball, and the directory to run it in
    (npx takes ``./name.tgz`` as a package but an absolute path as a command)."""
    npx = shutil.which("npx") or "npx"
    if package.endswith(".tgz") and os.path.isfile(package):
        return [npx, "--yes", "./" + os.path.basename(package)], os.path.dirname(os.path.abspath(package))
    return [npx, "--yes", package], None


def start_mock_server(
    *,
    scenario: Optional[str] = None,
    admin_token: Optional[str] = None,
    auth: Optional[str] = None,
    seed: Union[int, str, None] = None,
    spec: Optional[str] = None,
    port: int = 0,
    command: Union[str, Sequence[str], None] = None,
    package: Optional[str] = None,
    image: Optional[str] = None,
    data_dir: Optional[str] = None,
    log_level: str = "warn",
    args: Sequence[str] = (),
    env: Optional[Mapping[str, str]] = None,
    timeout: float = 120.0,
) -> MockServer:
    """Starts a mock and returns its handle once ``/health`` answers; use it in a ``with`` block
    (or call ``close()``; it is stopped at interpreter exit anyway).

    How, in this order: ``command`` (a command line for the CLI, e.g. ``"node
    path/to/dist/bin/cli.js"``, given ``--port``, ``--in-memory`` or ``--data-dir``, ``--log-level``,
    ``--scenario``, ``--auth``, ``--seed``, ``--spec`` and ``--admin-token`` as set, then ``args``),
    ``package`` (an npm package spec or a packed ``.tgz``, run by ``npx``), ``image`` (a Docker
    image, run by the ``docker`` CLI on 127.0.0.1); else the environment: ``CBM_COMMAND``,
    ``CBM_PACKAGE`` (or its former name ``CBM_TARBALL``), ``CBM_IMAGE``.

    ``scenario``: a built-in scenario or a scenario file (a file must be inside the image for
    ``image``). ``auth``: ``"open"`` or ``"strict"``; ``seed``: the CLI's ``--seed`` (an integer; the CLI checks it); ``spec``: an
    OpenAPI document whose other operations the mock serves too (for ``image``, mounted read-only).
    A command or npx child inherits ``env`` (default ``os.environ``), the CLI's ``CBM_*`` variables
    with it; a container gets only the mock's own variables (DOCKER_PASSED_VARIABLES), never
    ``CBM_HOST``, ``CBM_PORT`` or ``CBM_DATA_DIR``, which the image sets. ``admin_token`` defaults
    to ``CBM_ADMIN_TOKEN``. Raises MockStartError with the CLI's own one-line error when the mock
    does not start.

    Two defaults differ from Node's ``startMockServer``: ``log_level`` is ``"warn"``, not
    ``"info"``, since the child's output goes to a pipe read only for its listening line and its
    last lines on a failure (a line per request would be written and dropped); and ``timeout`` is
    120 s, not 30, since starting may include npx installing the package or Docker pulling the image.
    """
    token = _admin_token(admin_token)
    child_env = dict(os.environ if env is None else env)
    if command is None and package is None and image is None:
        command = os.environ.get("CBM_COMMAND") or None
        package = package_from_environment(os.environ)
        image = os.environ.get("CBM_IMAGE") or None
        if command is None and package is None and image is None:
            raise MockStartError(
                "no way to start cloud-browser-mock: pass command= (e.g. 'node path/to/dist/bin/cli.js'), package= (an npm spec "
                "or a packed .tgz, run by npx) or image= (a Docker image), or set CBM_COMMAND, CBM_PACKAGE or CBM_IMAGE"
            )
    settings = Settings(scenario, auth, seed, log_level)
    # The child's working directory is not always this one (npx of a tarball runs beside it).
    spec_path = os.path.abspath(spec) if spec is not None else None
    if command is not None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise MockStartError("command= is empty: give the CLI's command line, e.g. 'node path/to/dist/bin/cli.js'")
        url, stop = _start_process(argv + _cli_flags(port, settings, spec_path, admin_token, data_dir, args), None, child_env, timeout)
    elif package is not None:
        argv, cwd = npx_argv(package)
        url, stop = _start_process(argv + _cli_flags(port, settings, spec_path, admin_token, data_dir, args), cwd, child_env, timeout)
    else:
        assert image is not None
        url, stop = start_docker(image, port, settings, spec, token, child_env, args, timeout)
    return MockServer(url, token, stop)


def package_from_environment(env: Mapping[str, str]) -> Optional[str]:
    """``CBM_PACKAGE``, else its former name ``CBM_TARBALL``; None when neither is set."""
    return env.get("CBM_PACKAGE") or env.get("CBM_TARBALL") or None

