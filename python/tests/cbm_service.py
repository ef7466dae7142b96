"""A client of the mocked service for the tests: one JSON call with urllib."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Optional, Tuple

TOKEN = "sk_test_demo"  # the default scenario's API key (owner dev@example.com)


def call(url: str, method: str, path: str, body: Optional[Any] = None, token: str = TOKEN) -> Tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    request = urllib.request.Request(f"{url}{path}", data=data, method=method, headers=headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=30) as res:
            return res.status, json.loads(res.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")
