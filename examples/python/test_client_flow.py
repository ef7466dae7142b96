"""A client's own tests against cloud-browser-mock: upload, list, expiry after moving the mock's
clock, and a 503 the client retries. `FilesClient` stands for your code.

No conftest.py: the `mock` fixture comes from the Python package's pytest plugin.

    pip install ../../python pytest requests            # the package, from this repository
    pytest --cbm-package cloud-browser-mock-0.2.0.tgz   # npx of a packed tarball (or CBM_PACKAGE)
    pytest --cbm-image cloud-browser-mock:latest        # the Docker image (or CBM_IMAGE)
    pytest --cbm-url http://127.0.0.1:8000              # a mock already running (or CBM_URL)
"""
import requests


class FilesClient:
    """The code under test: a thin client of the session-files API that retries a 503 once."""

    def __init__(self, base_url, api_key):
        self.base_url = base_url
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {api_key}"

    def _send(self, method, path, **kwargs):
        for attempt in range(2):
            res = self.http.request(method, f"{self.base_url}{path}", timeout=30, **kwargs)
            if res.status_code != 503 or attempt == 1:
                return res

    def upload(self, session_id, name, data):
        res = self._send("POST", f"/sessions/{session_id}/files", files={"file": (name, data, "text/plain")})
        res.raise_for_status()
        return res.json()

    def list_files(self, session_id):
        res = self._send("GET", f"/sessions/{session_id}/files")
        res.raise_for_status()
        return res.json()

    def download(self, session_id, file_id):
        return self._send("GET", f"/sessions/{session_id}/files/{file_id}")


def test_upload_list_and_download(mock):
    client = FilesClient(mock.url, "sk_test_demo")
    uploaded = client.upload("sess_demo", "report.txt", b"quarterly numbers")
    assert uploaded["filename"] == "report.txt" and uploaded["size"] == 17
    listed = client.list_files("sess_demo")
    assert uploaded["id"] in [f["id"] for f in listed["files"]]
    assert client.download("sess_demo", uploaded["id"]).content == b"quarterly numbers"


def test_files_expire_when_the_clock_moves(mock):
    client = FilesClient(mock.url, "sk_test_demo")
    uploaded = client.upload("sess_demo", "short-lived.txt", b"bye")
    mock.clock.advance("P8D")  # eight days later, without sleeping (uploads are kept 7 days)
    assert client.download("sess_demo", uploaded["id"]).status_code == 410


def test_a_503_is_retried(mock):
    mock.faults.add("listSessionFiles", 503, times=1)
    assert client_total(mock) == 2
    assert [r["status"] for r in mock.requests(operation_id="listSessionFiles")] == [200, 503]


def client_total(mock):
    return FilesClient(mock.url, "sk_test_demo").list_files("sess_demo")["total"]
