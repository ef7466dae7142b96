"""The typed handle on a running mock's control plane (/__mock), over HTTP with urllib.

The Python counterpart of the Node package's MockControl (src/control-client.ts): the same
methods, the same units (seconds or ISO 8601 durations, ISO 8601 instants), the same errors (the
control plane's status and detail).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timedelta
from typing import Any, Dict, List, Mapping, Optional, Union, cast

from ._pins import Pins
from .control_plane import ClockState, CoverageReport, DriftRecord, Fault, JournalEntry, WorkspaceSnapshot

#: Seconds (``691200``), an ISO 8601 duration (``"P8D"``, ``"PT1H30M"``) or a ``timedelta``.
Duration = Union[int, float, str, timedelta]
#: An ISO 8601 instant (``"2030-01-01T00:00:00Z"``) or a timezone-aware ``datetime``.
Instant = Union[str, datetime]

# urllib would send a local mock's calls through http_proxy/https_proxy from the environment.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class MockControlError(Exception):
    """A control-plane call the mock refused: its HTTP ``status`` and the ``detail`` it gave.

    ``detail`` is a string (``"unknown operationId 'listFile'; did you mean listSessionFiles?"``)
    or, for a request that breaks the control plane's document, a list of Pydantic-style errors.
    """

    def __init__(self, status: int, detail: Any, request: str) -> None:
        super().__init__(f"{request} -> {status}: {_describe(detail)}")
        self.status = status
        self.detail = detail
        self.request = request


def _describe(detail: Any) -> str:
    """A Pydantic-style list of errors as one line: ``body.status: Input should be a valid integer``."""
    if isinstance(detail, str):
        return detail
    if isinstance(detail, list):
        parts: List[str] = []
        for e in detail:
            if isinstance(e, dict) and "msg" in e:
                item = cast(Dict[str, Any], e)
                loc = ".".join(str(p) for p in cast(List[Any], item.get("loc") or []))
                parts.append(f"{loc}: {item['msg']}")
            else:
                parts.append(json.dumps(e))
        return "; ".join(parts)
    return json.dumps(detail)


def _aware(value: datetime, what: str) -> str:
    """An aware datetime as ISO 8601; a naive one is refused rather than guessed at."""
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise ValueError(f"{what}: a naive datetime ({value.isoformat()}) has no time zone; pass an aware one, e.g. datetime(2030, 1, 1, tzinfo=timezone.utc)")
    return value.isoformat()


def _seconds(by: Duration) -> Union[int, float, str]:
    if isinstance(by, timedelta):
        seconds = by.total_seconds()
        return int(seconds) if seconds == int(seconds) else seconds
    if isinstance(by, bool) or not isinstance(by, (int, float, str)):
        raise TypeError(f"clock.advance: expected seconds, an ISO 8601 duration or a timedelta, got {type(by).__name__}")
    return by


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


_UNSET: Any = _Unset()


class Clock:
    """The mock's clock (``mock.clock``): what the service takes for now."""

    def __init__(self, control: MockControl) -> None:
        self._control = control

    def now(self) -> ClockState:
        """The clock as ``GET /__mock/clock`` reports it: ``now``, ``offset_seconds``, ``frozen``."""
        return cast(ClockState, self._control._call("GET", "/clock"))

    def set(self, instant: Instant) -> ClockState:
        """Freezes the clock at an instant: an ISO 8601 string or a timezone-aware datetime."""
        value = _aware(instant, "clock.set") if isinstance(instant, datetime) else instant
        return cast(ClockState, self._control._call("POST", "/clock", {"set": value}))

    def advance(self, by: Duration) -> ClockState:
        """Moves the clock by seconds, an ISO 8601 duration (``"P8D"``) or a timedelta."""
        return cast(ClockState, self._control._call("POST", "/clock", {"advance": _seconds(by)}))

    def reset(self) -> ClockState:
        """Back to real time."""
        return cast(ClockState, self._control._call("POST", "/clock/reset"))


class Faults:
    """Failures on purpose (``mock.faults``): the service answers a status instead of working."""

    def __init__(self, control: MockControl) -> None:
        self._control = control

    def add(
        self,
        operation_id: str,
        status: int,
        *,
        times: Optional[int] = None,
        body: Any = _UNSET,
        headers: Optional[Mapping[str, str]] = None,
        delay_ms: Optional[int] = None,
        probability: Optional[float] = None,
        principal: Optional[str] = None,
    ) -> Fault:
        """Makes an operation (its operationId, or ``"*"`` for all) answer ``status``; 0 drops the
        connection. ``times``: how many calls (default: until removed); ``body`` (default
        ``{"detail": <reason phrase>}``), ``headers``, ``delay_ms``, ``probability`` (0 to 1) and
        ``principal`` (only that workspace's calls). An unknown operationId raises a
        MockControlError 422 whose detail names the nearest ones."""
        spec: Dict[str, Any] = {"operationId": operation_id, "status": status}
        if times is not None:
            spec["times"] = times
        if body is not _UNSET:
            spec["body"] = body
        if headers is not None:
            spec["headers"] = dict(headers)
        if delay_ms is not None:
            spec["delay_ms"] = delay_ms
        if probability is not None:
            spec["probability"] = probability
        if principal is not None:
            spec["principal"] = principal
        return cast(Fault, self._control._call("POST", "/faults", spec))

    def list(self) -> List[Fault]:
        """The active faults, with how often each has fired (``hits``)."""
        return cast(List[Fault], self._control._call("GET", "/faults")["items"])

    def remove(self, fault_id: str) -> None:
        """Removes one fault; an unknown id raises a MockControlError with status 404."""
        self._control._call("DELETE", f"/faults/{urllib.parse.quote(fault_id, safe='')}")

    def clear(self) -> None:
        """Removes every fault."""
        self._control._call("DELETE", "/faults")


class MockControl:
    """What a test can do to a running mock, over its control plane (``/__mock``).

    ``connect_mock_server()`` gives one for a mock started elsewhere, ``start_mock_server()`` one
    for the mock it starts, and the pytest fixtures ``cloud_browser_mock`` and ``mock`` are one.
    ``admin_token`` (the mock's ``--admin-token``) is sent as ``Authorization: Bearer`` on every
    call. A refused call raises MockControlError; a mock that does not answer, ConnectionError.
    """

    def __init__(self, url: str, admin_token: Optional[str] = None, *, timeout: float = 30.0) -> None:
        #: Base URL of the mock, e.g. ``http://127.0.0.1:54321``: your client's base URL.
        self.url = url.rstrip("/")
        self._admin_token = admin_token
        self._timeout = timeout
        #: The mock's clock: ``now()``, ``set(instant)``, ``advance(by)``, ``reset()``.
        self.clock = Clock(self)
        #: Faults: ``add(operation_id, status, ...)``, ``list()``, ``remove(fault_id)``, ``clear()``.
        self.faults = Faults(self)
        #: Pinned answers of the operations a --spec document adds: ``add(operation_id, status, ...)``, ``list()``, ``remove(pin_id)``, ``clear()``.
        self.pins = Pins(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"

    def _call(self, method: str, path: str, body: Any = _UNSET, query: Optional[Mapping[str, Any]] = None) -> Any:
        headers = {"Accept": "application/json"}
        if self._admin_token is not None:
            headers["Authorization"] = f"Bearer {self._admin_token}"
        data = None
        if body is not _UNSET:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        params = {k: _query_value(v) for k, v in (query or {}).items() if v is not None}
        url = f"{self.url}/__mock{path}" + (f"?{urllib.parse.urlencode(params)}" if params else "")
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with _OPENER.open(request, timeout=self._timeout) as res:
                text = res.read()
        except urllib.error.HTTPError as e:
            raw = e.read().decode("utf-8", "replace")
            detail: Any = raw
            try:
                parsed = json.loads(raw)
                if isinstance(parsed, dict) and "detail" in parsed:
                    detail = cast(Dict[str, Any], parsed)["detail"]
            except ValueError:
                pass  # not JSON: the text is the detail
            raise MockControlError(e.code, detail, f"{method} /__mock{path}") from None
        except urllib.error.URLError as e:
            raise ConnectionError(f"{method} {url}: the mock did not answer ({e.reason})") from None
        return json.loads(text) if text else None

    def reset(self, principal: Optional[str] = None) -> None:
        """Without a principal: the clock back to its state at start, every workspace back to the
        scenario, journal, faults, coverage and the pins added at run time cleared. With one: only
        that principal's workspace."""
        self._call("POST", "/reset", query={"principal": principal})

    def requests(
        self,
        *,
        operation_id: Optional[str] = None,
        method: Optional[str] = None,
        path: Optional[str] = None,
        status: Optional[int] = None,
        principal: Optional[str] = None,
        since: Optional[Instant] = None,
        unmatched: Optional[bool] = None,
        after: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> List[JournalEntry]:
        """The request journal, newest first, filtered by any of: ``operation_id``, ``method``,
        ``path``, ``status``, ``principal``, ``since`` (an instant), ``unmatched`` (only requests no
        operation matched, or only the others), ``after`` (a ``req_N`` id: entries recorded after
        it) and ``limit``."""
        query = {
            "operationId": operation_id,
            "method": method,
            "path": path,
            "status": status,
            "principal": principal,
            "since": _aware(since, "requests(since=)") if isinstance(since, datetime) else since,
            "unmatched": unmatched,
            "after": after,
            "limit": limit,
        }
        return cast(List[JournalEntry], self._call("GET", "/requests", query=query)["items"])

    def workspace(self, principal: str) -> WorkspaceSnapshot:
        """A principal's full snapshot: sessions with actions and files, mailboxes, secrets with values."""
        return cast(WorkspaceSnapshot, self._call("GET", f"/workspaces/{urllib.parse.quote(principal, safe='')}"))

    def coverage(self) -> CoverageReport:
        """Which operations and statuses the tests exercised since the last reset."""
        return cast(CoverageReport, self._call("GET", "/coverage"))

    def drift(self) -> List[DriftRecord]:
        """Where the ``--upstream`` proxy saw the real service (or the client) leave openapi.json;
        empty without it."""
        return cast(List[DriftRecord], self._call("GET", "/drift")["items"])

    def principal_of(self, token: str) -> str:
        """The principal a token authenticates as (``user:<owner>`` or ``key:<24 hex>``), to reset only it."""
        return cast(str, self._call("POST", "/principal", {"token": token})["principal"])


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
