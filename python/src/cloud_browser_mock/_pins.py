"""Pinned answers (``mock.pins``): fixed answers for the operations a ``--spec`` document adds.

The Python counterpart of the Node handle's ``pins`` (src/control-client.ts). The built-in
operations keep state and faults; a pin is for the operations the served document adds.
"""

from __future__ import annotations

import urllib.parse
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, cast

from .control_plane import Pin

if TYPE_CHECKING:
    from ._control import MockControl


class _NoBody:
    def __repr__(self) -> str:
        return "<no body>"


#: ``body`` left out: the operation's generated body for the status answers (``None`` is JSON null).
_NO_BODY: Any = _NoBody()


class Pins:
    """Pinned answers (``mock.pins``): ``add(operation_id, status, ...)``, ``list()``, ``remove(pin_id)``, ``clear()``."""

    def __init__(self, control: MockControl) -> None:
        self._control = control

    def add(
        self,
        operation_id: str,
        status: int,
        *,
        body: Any = _NO_BODY,
        headers: Optional[Mapping[str, str]] = None,
        path_params: Optional[Mapping[str, str]] = None,
        principal: Optional[str] = None,
        times: Optional[int] = None,
    ) -> Pin:
        """Makes an operation the served document adds answer ``status`` with ``body`` (default: the
        body generated for that status) and ``headers``; only for the given ``path_params`` values
        and ``principal`` when given, ``times`` times (default: until removed or reset). A body the
        operation's schema refuses for that status, an unknown operation or a built-in one raises a
        MockControlError 422 whose detail says why."""
        spec: Dict[str, Any] = {"operationId": operation_id, "status": status}
        if body is not _NO_BODY:
            spec["body"] = body
        if headers is not None:
            spec["headers"] = dict(headers)
        if path_params is not None:
            spec["path_params"] = dict(path_params)
        if principal is not None:
            spec["principal"] = principal
        if times is not None:
            spec["times"] = times
        return cast(Pin, self._control._call("POST", "/pins", spec))

    def list(self) -> List[Pin]:
        """Every pin in the order they are tried: those added at run time newest first, then the
        scenario file's; with how often each answered (``hits``)."""
        return cast(List[Pin], self._control._call("GET", "/pins")["items"])

    def remove(self, pin_id: str) -> None:
        """Removes one pin (a scenario's until the next reset); an unknown id raises a MockControlError 404."""
        self._control._call("DELETE", f"/pins/{urllib.parse.quote(pin_id, safe='')}")

    def clear(self) -> None:
        """Removes every pin added at run time; the scenario file's stay."""
        self._control._call("DELETE", "/pins")
