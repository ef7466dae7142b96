"""start_mock_server's Docker mode: the image run by the docker CLI on 127.0.0.1, given the mock's
own variables (an allow-list) and a spec file through a read-only volume."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Callable, List, Mapping, Optional, Sequence, Tuple

from ._starting import MockStartError, Settings, healthy_or_stopped, last_line

#: The mock's own variables (docs/configuration.md) that the Docker mode passes into the container
#: from ``env`` (default ``os.environ``), as a command or npx child inherits them.
DOCKER_PASSED_VARIABLES = (
    "CBM_SCENARIO", "CBM_SEED", "CBM_AUTH", "CBM_FILE_TTL", "CBM_TOKEN_TTL", "CBM_MAX_UPLOAD", "CBM_JOURNAL_SIZE",
    "CBM_BODY_IDLE_TIMEOUT", "CBM_MAX_CONNECTIONS", "CBM_ADMIN_TOKEN", "CBM_CORS", "CBM_ALLOWED_HOSTS", "CBM_LOG_LEVEL",
    "CBM_VALIDATE_RESPONSES", "CBM_UPSTREAM", "CBM_UPSTREAM_TIMEOUT",
)
#: And those it never passes: the image sets where the mock listens and keeps state (CBM_HOST,
#: CBM_PORT, CBM_DATA_DIR), the container runs ``--in-memory`` (CBM_IN_MEMORY, CBM_RESET_DATA), and
#: a host path means nothing inside it (CBM_RECORD, CBM_RECORD_SECRET_VALUES with it; CBM_SPEC's
#: file is mounted instead: ``spec=``).
DOCKER_WITHHELD_VARIABLES = (
    "CBM_HOST", "CBM_PORT", "CBM_DATA_DIR", "CBM_IN_MEMORY", "CBM_RESET_DATA", "CBM_RECORD", "CBM_RECORD_SECRET_VALUES", "CBM_SPEC",
)
#: Where the Docker mode mounts ``spec=``'s file, read-only (as the Testcontainers module's withSpec).
CONTAINER_SPEC_DIR = "/cloud-browser-mock/spec"


def _docker_environment(env: Mapping[str, str], admin_token: Optional[str]) -> List[str]:
    """``-e`` options for the mock's variables in ``env``: the container inherits nothing."""
    passed = {name: env[name] for name in DOCKER_PASSED_VARIABLES if env.get(name)}
    if admin_token is not None:
        passed["CBM_ADMIN_TOKEN"] = admin_token
    return [option for name, value in passed.items() for option in ("-e", f"{name}={value}")]


def start_docker(
    image: str, port: int, settings: Settings, spec: Optional[str], admin_token: Optional[str], env: Mapping[str, str], args: Sequence[str], timeout: float
) -> Tuple[str, Callable[[], None]]:
    docker = shutil.which("docker")
    if docker is None:
        raise MockStartError(f"image {image}: the docker command is not on PATH")
    mount: List[str] = []
    inside = None
    if spec is not None:
        # docker run -v makes a directory where a host path is missing: check it is a file first.
        if not os.path.isfile(spec):
            raise MockStartError(f"spec {spec}: no such file")
        inside = f"{CONTAINER_SPEC_DIR}/{os.path.basename(spec)}"
        mount = ["-v", f"{os.path.abspath(spec)}:{inside}:ro"]
    flags = ["--in-memory"] + settings.flags(inside) + list(args)
    # Not --rm: a container that exits at once (a bad flag or scenario) keeps its logs, whose last
    # line is the CLI's error; stop() removes it.
    run = subprocess.run(
        [docker, "run", "-d", "-p", f"127.0.0.1:{port or ''}:8000", *_docker_environment(env, admin_token), *mount, image, *flags], capture_output=True, text=True
    )
    if run.returncode != 0:
        said = last_line("\n".join(line for line in run.stderr.splitlines() if not line.startswith("Run 'docker run --help'")))
        raise MockStartError(f"docker run {image}: {said or f'exit code {run.returncode}'}")
    cid = run.stdout.strip()

    def stop() -> None:
        subprocess.run([docker, "stop", cid], capture_output=True)
        subprocess.run([docker, "rm", "-f", cid], capture_output=True)

    published = subprocess.run([docker, "port", cid, "8000/tcp"], capture_output=True, text=True)
    if published.returncode != 0 or not published.stdout.strip():
        logs = subprocess.run([docker, "logs", cid], capture_output=True, text=True)
        stop()
        raise MockStartError(f"{last_line(logs.stderr) or last_line(published.stderr) or 'the container stopped'} (docker run {image})")
    url = f"http://127.0.0.1:{published.stdout.splitlines()[0].rsplit(':', 1)[1].strip()}"

    def gone() -> Optional[str]:
        state = subprocess.run([docker, "inspect", "-f", "{{.State.Running}}", cid], capture_output=True, text=True)
        if state.stdout.strip() == "true":
            return None
        logs = subprocess.run([docker, "logs", cid], capture_output=True, text=True)
        return f"{last_line(logs.stderr) or 'the container stopped'} (docker run {image})"

    healthy_or_stopped(url, timeout, gone, stop)
    return url, stop
