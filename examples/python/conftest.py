"""pytest fixture for cloud-browser-mock: starts the mock once per test session, waits for
/health, yields a small control helper (base URL, reset, clock, faults, requests) and stops it.

Started from the packed tarball through npx (CBM_TARBALL, default: the newest
cloud-browser-mock-*.tgz in this directory), or from the Docker image through the docker CLI when
CBM_IMAGE is set. CBM_ADMIN_TOKEN, if set, is given to the mock and sent on every /__mock call.
Standard library plus requests and pytest; copy this file into your tests directory.
"""
import glob
import os
import re
import signal
import subprocess
import time

import pytest
import requests


class MockControlError(Exception):
    """A /__mock call the mock refused: its status and the `detail` it gave."""

    def __init__(self, status, detail):
        super().__init__(f"{status}: {detail}")
        self.status, self.detail = status, detail


class Mock:
    """The running mock: `url` for your client, plain `requests` calls against /__mock."""

    def __init__(self, url, admin_token=None):
        self.url = url
        self._session = requests.Session()
        if admin_token:
            self._session.headers["Authorization"] = f"Bearer {admin_token}"

    def _call(self, method, path, **kwargs):
        res = self._session.request(method, f"{self.url}/__mock{path}", timeout=30, **kwargs)
        if not res.ok:
            try:
                detail = res.json().get("detail", res.text)
            except ValueError:
                detail = res.text
            raise MockControlError(res.status_code, detail)
        return res.json() if res.content else None

    def reset(self, principal=None):
        """Everything back to the scenario (clock, workspaces, journal, faults), or one principal's workspace."""
        self._call("POST", "/reset", params={"principal": principal} if principal else None)

    def clock_set(self, instant):
        """Freezes the clock at an ISO-8601 instant such as 2030-01-01T00:00:00Z."""
        return self._call("POST", "/clock", json={"set": instant})

    def clock_advance(self, by):
        """Moves the clock by seconds (691200) or an ISO-8601 duration ("P8D")."""
        return self._call("POST", "/clock", json={"advance": by})

    def clock_reset(self):
        return self._call("POST", "/clock/reset")

    def fault(self, operation_id, status, **spec):
        """The service fails on purpose: times=, body=, headers=, delay_ms=, probability=, principal=."""
        return self._call("POST", "/faults", json={"operationId": operation_id, "status": status, **spec})

    def clear_faults(self):
        self._call("DELETE", "/faults")

    def requests(self, **filters):
        """The journal, newest first: operationId=, method=, path=, status=, principal=, since=, limit=."""
        return self._call("GET", "/requests", params=filters)["items"]


def _start_npx():
    tarball = os.environ.get("CBM_TARBALL") or max(glob.glob(os.path.join(os.path.dirname(__file__), "cloud-browser-mock-*.tgz")), default=None)
    if not tarball:
        raise RuntimeError("no tarball: set CBM_TARBALL to a packed cloud-browser-mock-*.tgz (npm pack), or CBM_IMAGE to a Docker image")
    # npx takes "./name.tgz" as a package (an absolute path it would run as a command).
    proc = subprocess.Popen(
        ["npx", "--yes", "./" + os.path.basename(tarball), "--port", "0", "--in-memory", "--log-level", "warn"],
        cwd=os.path.dirname(os.path.abspath(tarball)), stdout=subprocess.PIPE, text=True, start_new_session=True,
    )
    for line in proc.stdout:  # the CLI prints its URL once it listens (a cold npx installs first)
        found = re.search(r"listening on (http://\S+)", line)
        if found:
            return found.group(1), lambda: (os.killpg(proc.pid, signal.SIGTERM), proc.wait(timeout=15))
    raise RuntimeError(f"the mock exited with {proc.wait()} before listening")


def _start_docker(image):
    env = ["-e", f"CBM_ADMIN_TOKEN={os.environ['CBM_ADMIN_TOKEN']}"] if os.environ.get("CBM_ADMIN_TOKEN") else []
    cid = subprocess.run(["docker", "run", "-d", "--rm", "-p", "127.0.0.1::8000", *env, image, "--in-memory"],
                         check=True, capture_output=True, text=True).stdout.strip()
    port = subprocess.run(["docker", "port", cid, "8000/tcp"], check=True, capture_output=True, text=True).stdout.split(":")[-1].strip()
    return f"http://127.0.0.1:{port}", lambda: subprocess.run(["docker", "stop", cid], check=True, capture_output=True)


@pytest.fixture(scope="session")
def cloud_browser_mock():
    image = os.environ.get("CBM_IMAGE")
    url, stop = _start_docker(image) if image else _start_npx()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{url}/health", timeout=5).ok:
                    break
            except requests.ConnectionError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"cloud-browser-mock at {url}: /health did not answer 200")
            time.sleep(0.1)
        yield Mock(url, os.environ.get("CBM_ADMIN_TOKEN"))
    finally:
        stop()


@pytest.fixture
def mock(cloud_browser_mock):
    """The session's mock, reset to its scenario before each test."""
    cloud_browser_mock.reset()
    return cloud_browser_mock
