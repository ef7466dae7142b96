"""mock.pins against the real CLI: add, list, remove and clear pinned answers of the operations a
--spec document adds, and what the mock refuses. The tests with --spec need issue 30's union."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List

import pytest

from cbm_service import call
from cloud_browser_mock import MockControl, MockControlError, start_mock_server

GONE = {"detail": "Session sess_gone not found"}


def _json(schema: Dict[str, Any]) -> Dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


#: A document of our own that adds one operation to the built-in ones, as the service's would.
SPEC: Dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "pins", "version": "1"},
    "components": {"securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}}},
    "security": [{"bearerAuth": []}],
    "paths": {
        "/sessions/{session_id}": {
            "get": {
                "operationId": "session_status",
                "parameters": [{"name": "session_id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {
                    "200": {"description": "OK", **_json({"type": "object", "required": ["session_id"], "properties": {"session_id": {"type": "string"}}})},
                    "404": {"description": "Not found", **_json({"type": "object", "required": ["detail"], "properties": {"detail": {"type": "string"}}})},
                },
            }
        }
    },
}


def test_a_pin_for_a_built_in_operation_raises_422_saying_to_use_a_fault(mock: MockControl) -> None:
    with pytest.raises(MockControlError) as refused:
        mock.pins.add("listSecrets", 200, body={"items": []})
    assert refused.value.status == 422
    assert "is one of the mock's built-in operations" in refused.value.detail and "POST /__mock/faults" in refused.value.detail
    assert mock.pins.list() == []


def test_removing_an_unknown_pin_raises_404(mock: MockControl) -> None:
    with pytest.raises(MockControlError) as missing:
        mock.pins.remove("pin_77")
    assert (missing.value.status, missing.value.detail) == (404, "Pin pin_77 not found")


@pytest.fixture(scope="module")
def with_spec(cli_command: List[str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[MockControl]:
    spec = tmp_path_factory.mktemp("spec") / "service.openapi.json"
    spec.write_text(json.dumps(SPEC))
    with start_mock_server(command=cli_command, args=["--spec", str(spec)]) as server:
        yield server


def test_pins_add_list_remove_and_clear_with_a_spec(with_spec: MockControl) -> None:
    mock = with_spec
    mock.reset()
    pin = mock.pins.add("session_status", 404, body=GONE, path_params={"session_id": "sess_gone"}, times=1)
    assert pin["operationId"] == "session_status" and pin["times"] == 1 and pin["hits"] == 0 and pin["source"] == "runtime"
    assert pin["path_params"] == {"session_id": "sess_gone"}
    assert mock.pins.list() == [pin]
    assert call(mock.url, "GET", "/sessions/sess_gone") == (404, GONE)
    assert call(mock.url, "GET", "/sessions/sess_gone")[0] == 200  # used up: the generated answer
    assert mock.pins.list() == []

    kept = mock.pins.add("session_status", 404, body=GONE)
    mock.pins.remove(kept["id"])
    assert mock.pins.list() == []
    mock.pins.add("session_status", 404, body=GONE)
    mock.pins.clear()
    assert mock.pins.list() == []
    mock.pins.add("session_status", 404, body=GONE)
    mock.reset()
    assert mock.pins.list() == []


def test_a_pinned_body_the_schema_refuses_raises_422_naming_the_path(with_spec: MockControl) -> None:
    with pytest.raises(MockControlError) as refused:
        with_spec.pins.add("session_status", 404, body={"detail": 7})
    assert refused.value.status == 422
    assert "the pinned answer is not one session_status documents for status 404" in refused.value.detail
    assert "detail" in refused.value.detail.split(": ", 1)[1]
