"""Start, connect to and drive cloud-browser-mock from Python.

``start_mock_server()`` starts a mock (the CLI by a command line, npx, or the Docker image) and
``connect_mock_server(url)`` connects to one started elsewhere; both give a MockControl, the typed
handle on the mock's control plane. Installing the package also installs a pytest plugin with the
fixtures ``cloud_browser_mock`` (one mock per session) and ``mock`` (the same, reset before each
test).

Example::

    from cloud_browser_mock import start_mock_server

    with start_mock_server(package="path/to/cloud-browser-mock-0.2.0.tgz") as mock:  # npx of a packed tarball
        mock.faults.add("listSessionFiles", 503, times=1)
        mock.clock.advance("P8D")
        print(mock.url, mock.requests(operation_id="listSessionFiles"))
"""

from ._control import Clock, Duration, Faults, Instant, MockControl, MockControlError
from ._pins import Pins
from ._server import MockServer, MockStartError, connect_mock_server, start_mock_server

__all__ = [
    "Clock",
    "Duration",
    "Faults",
    "Instant",
    "MockControl",
    "MockControlError",
    "MockServer",
    "MockStartError",
    "Pins",
    "connect_mock_server",
    "start_mock_server",
]
