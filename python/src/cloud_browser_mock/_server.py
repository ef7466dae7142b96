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
import urllib.error
import urllib.request
from collections import deque
from types import TracebackType
from typing import IO, Callable, Deque, List, Mapping, Optional, Sequence, Tuple, Type, Union

from ._control import _OPENER, MockControl

_LISTENING = re.compile(r"listening on (http://\S+)")


class MockStartError(RuntimeError):
    """The mock did not start: the message is the CLI's own one-line error where it gave one."""


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


def wait_for_health(url: str, timeout: float = 30.0, alive: Optional[Callable[[], Optional[str]]] = None) -> None:
    """Returns once ``url``/health answers 200; raises MockStartError after ``timeout`` seconds,
    or as soon as ``alive()`` returns a reason the mock is gone."""
    deadline = time.monotonic() + timeout
    last = "no answer"
    while True:
        try:
            with _OPENER.open(f"{url.rstrip('/')}/health", timeout=5) as res:
                res.read()
                return
        except urllib.error.HTTPError as e:
            last = f"status {e.code}"
        except (urllib.error.URLError, OSError) as e:
            last = str(getattr(e, "reason", e))
        gone = alive() if alive else None
        if gone:
            raise MockStartError(gone)
        if time.monotonic() >= deadline:
            raise MockStartError(f"cloud-browser-mock at {url}: /health did not answer 200 within {timeout:g} s ({last})")
        time.sleep(0.1)


def _healthy_or_stopped(url: str, timeout: float, gone: Callable[[], Optional[str]], stop: Callable[[], None]) -> None:
    """A mock this process started: healthy, or stopped before the error goes up."""
    try:
        wait_for_health(url, timeout, gone)
    except BaseException:
        stop()
        raise


def connect_mock_server(url: str, admin_token: Optional[str] = None, *, timeout: float = 30.0) -> MockControl:
    """The handle on a mock started elsewhere (npx, a Docker sidecar, a CI service), once its
    ``/health`` answers 200. ``admin_token`` defaults to ``CBM_ADMIN_TOKEN``."""
    wait_for_health(url, timeout)
    return MockControl(url, _admin_token(admin_token))


def _cli_flags(port: int, scenario: Optional[str], admin_token: Optional[str], data_dir: Optional[str], log_level: str, args: Sequence[str]) -> List[str]:
    flags = ["--port", str(port), "--log-level", log_level]
    flags += ["--data-dir", data_dir] if data_dir is not None else ["--in-memory"]
    if scenario is not None:
        flags += ["--scenario", scenario]
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

    _healthy_or_stopped(url, timeout, gone, stop)
    return url, stop


def _signal_group(proc: "subprocess.Popen[str]", sig: int) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, sig)  # the whole group: npx and the node it started
        else:
            proc.terminate()
    except ProcessLookupError:
        pass


def _start_docker(image: str, port: int, scenario: Optional[str], admin_token: Optional[str], log_level: str, args: Sequence[str], timeout: float) -> Tuple[str, Callable[[], None]]:
    docker = shutil.which("docker")
    if docker is None:
        raise MockStartError(f"image {image}: the docker command is not on PATH")
    # The container does not inherit this environment: the admin token goes in explicitly.
    env = ["-e", f"CBM_ADMIN_TOKEN={admin_token}"] if admin_token is not None else []
    flags = ["--in-memory", "--log-level", log_level] + (["--scenario", scenario] if scenario is not None else []) + list(args)
    # Not --rm: a container that exits at once (a bad flag or scenario) keeps its logs, whose last
    # line is the CLI's error; stop() removes it.
    run = subprocess.run([docker, "run", "-d", "-p", f"127.0.0.1:{port or ''}:8000", *env, image, *flags], capture_output=True, text=True)
    if run.returncode != 0:
        said = _last_line("\n".join(line for line in run.stderr.splitlines() if not line.startswith("Run 'docker run --help'")))
        raise MockStartError(f"docker run {image}: {said or f'exit code {run.returncode}'}")
    cid = run.stdout.strip()

    def stop() -> None:
        subprocess.run([docker, "stop", cid], capture_output=True)
        subprocess.run([docker, "rm", "-f", cid], capture_output=True)

    published = subprocess.run([docker, "port", cid, "8000/tcp"], capture_output=True, text=True)
    if published.returncode != 0 or not published.stdout.strip():
        logs = subprocess.run([docker, "logs", cid], capture_output=True, text=True)
        stop()
        raise MockStartError(f"{_last_line(logs.stderr) or _last_line(published.stderr) or 'the container stopped'} (docker run {image})")
    url = f"http://127.0.0.1:{published.stdout.splitlines()[0].rsplit(':', 1)[1].strip()}"

    def gone() -> Optional[str]:
        state = subprocess.run([docker, "inspect", "-f", "{{.State.Running}}", cid], capture_output=True, text=True)
        if state.stdout.strip() == "true":
            return None
        logs = subprocess.run([docker, "logs", cid], capture_output=True, text=True)
        return f"{_last_line(logs.stderr) or 'the container stopped'} (docker run {image})"

    _healthy_or_stopped(url, timeout, gone, stop)
    return url, stop


def _last_line(text: str) -> str:
    return next((line for line in reversed(text.splitlines()) if line.strip()), "")


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
    ``--scenario`` and ``--admin-token`` as set, then ``args``), ``package`` (an npm package spec
    or a packed ``.tgz``, run by ``npx``), ``image`` (a Docker image, run by the ``docker`` CLI on
    127.0.0.1); else the environment: ``CBM_COMMAND``, ``CBM_TARBALL``, ``CBM_IMAGE``.

    ``scenario``: a built-in scenario or a scenario file (a file must be inside the image for
    ``image``). ``admin_token`` defaults to ``CBM_ADMIN_TOKEN``, which a started CLI also reads.
    Raises MockStartError with the CLI's own one-line error when the mock does not start.
    """
    token = _admin_token(admin_token)
    child_env = dict(os.environ if env is None else env)
    if command is None and package is None and image is None:
        command = os.environ.get("CBM_COMMAND") or None
        package = os.environ.get("CBM_TARBALL") or None
        image = os.environ.get("CBM_IMAGE") or None
        if command is None and package is None and image is None:
            raise MockStartError(
                "no way to start cloud-browser-mock: pass command= (e.g. 'node path/to/dist/bin/cli.js'), package= (an npm spec "
                "or a packed .tgz, run by npx) or image= (a Docker image), or set CBM_COMMAND, CBM_TARBALL or CBM_IMAGE"
            )
    if command is not None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise MockStartError("command= is empty: give the CLI's command line, e.g. 'node path/to/dist/bin/cli.js'")
        url, stop = _start_process(argv + _cli_flags(port, scenario, admin_token, data_dir, log_level, args), None, child_env, timeout)
    elif package is not None:
        argv, cwd = npx_argv(package)
        url, stop = _start_process(argv + _cli_flags(port, scenario, admin_token, data_dir, log_level, args), cwd, child_env, timeout)
    else:
        assert image is not None
        url, stop = _start_docker(image, port, scenario, token, log_level, args, timeout)
    return MockServer(url, token, stop)

