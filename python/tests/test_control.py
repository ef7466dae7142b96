"""MockControl over HTTP against the real CLI: every method, its units and its errors. The `mock`
fixture is the plugin's: the session's mock, reset before each test."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from cbm_service import TOKEN, call
from cloud_browser_mock import MockControl, MockControlError

FILES = "/sessions/sess_demo/files"


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_the_mock_fixture_is_the_handle_with_the_url_of_a_live_mock(mock: MockControl) -> None:
    assert isinstance(mock, MockControl)
    assert mock.url.startswith("http://127.0.0.1:")
    status, body = call(mock.url, "GET", FILES)
    assert status == 200 and body["total"] >= 1


def test_principal_of_names_the_scenario_key_owner(mock: MockControl) -> None:
    assert mock.principal_of(TOKEN) == "user:dev@example.com"
    other = mock.principal_of("some-other-token")
    assert other.startswith("key:") and len(other) == len("key:") + 24


def test_workspace_holds_what_the_service_stored_and_reset_of_one_principal_restores_only_it(mock: MockControl) -> None:
    me = mock.principal_of(TOKEN)
    other_token = "a-token-of-another-principal"
    assert call(mock.url, "POST", "/secrets", {"name": "MINE", "value": "v1"})[0] == 201
    assert call(mock.url, "POST", "/secrets", {"name": "THEIRS", "value": "v2"}, token=other_token)[0] == 201
    assert "MINE" in [s["name"] for s in mock.workspace(me)["secrets"]]
    mock.reset(me)
    assert "MINE" not in [s["name"] for s in mock.workspace(me)["secrets"]]
    assert "THEIRS" in [s["name"] for s in mock.workspace(mock.principal_of(other_token))["secrets"]]


def test_reset_without_a_principal_restores_clock_faults_journal_and_workspaces(mock: MockControl) -> None:
    call(mock.url, "POST", "/secrets", {"name": "GONE", "value": "v"})
    mock.clock.advance("P1D")
    mock.faults.add("listSecrets", 503)
    mock.reset()
    assert mock.faults.list() == []
    assert mock.requests() == []
    assert abs(mock.clock.now()["offset_seconds"]) < 5
    assert "GONE" not in [s["name"] for s in mock.workspace(mock.principal_of(TOKEN))["secrets"]]


def test_clock_now_set_and_reset(mock: MockControl) -> None:
    now = mock.clock.now()
    assert set(now) == {"now", "offset_seconds", "frozen"} and now["frozen"] is False
    assert instant(mock.clock.set("2030-01-01T00:00:00Z")["now"]) == datetime(2030, 1, 1, tzinfo=timezone.utc)
    frozen = mock.clock.set(datetime(2031, 6, 1, 12, tzinfo=timezone(timedelta(hours=2))))
    assert instant(frozen["now"]) == datetime(2031, 6, 1, 10, tzinfo=timezone.utc) and frozen["frozen"] is True
    assert mock.clock.reset()["frozen"] is False


def test_clock_set_refuses_a_naive_datetime_without_calling_the_mock(mock: MockControl) -> None:
    with pytest.raises(ValueError, match=r"clock\.set: a naive datetime .* has no time zone"):
        mock.clock.set(datetime(2030, 1, 1))
    assert mock.clock.now()["frozen"] is False


@pytest.mark.parametrize(
    "by, seconds",
    [(3600, 3600), (90.5, 90.5), ("P8D", 8 * 86400), ("PT1H30M", 5400), (timedelta(days=2, seconds=1), 2 * 86400 + 1)],
)
def test_clock_advance_takes_seconds_iso_durations_and_timedeltas(mock: MockControl, by: object, seconds: float) -> None:
    mock.clock.set("2030-01-01T00:00:00Z")
    after = mock.clock.advance(by)  # type: ignore[arg-type]
    moved = instant(after["now"]) - datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert moved.total_seconds() == seconds


def test_files_expire_when_the_clock_moves_past_their_lifetime(mock: MockControl) -> None:
    before = call(mock.url, "GET", FILES)[1]["total"]
    mock.clock.advance(timedelta(days=3650))
    assert call(mock.url, "GET", FILES)[1]["total"] < before


def test_a_fault_answers_its_status_the_given_times_and_counts_its_hits(mock: MockControl) -> None:
    fault = mock.faults.add("listSessionFiles", 503, times=1, headers={"Retry-After": "1"}, body={"detail": "busy"})
    assert fault["operationId"] == "listSessionFiles" and fault["status"] == 503 and fault["times"] == 1 and fault["hits"] == 0
    assert call(mock.url, "GET", FILES) == (503, {"detail": "busy"})
    assert call(mock.url, "GET", FILES)[0] == 200
    assert mock.faults.list() == []  # used up


def test_faults_list_remove_and_clear(mock: MockControl) -> None:
    first = mock.faults.add("listSecrets", 500, principal="user:dev@example.com", delay_ms=0, probability=1)
    second = mock.faults.add("*", 0)
    assert [f["id"] for f in mock.faults.list()] == [first["id"], second["id"]] or sorted(f["id"] for f in mock.faults.list()) == sorted([first["id"], second["id"]])
    mock.faults.remove(first["id"])
    assert [f["id"] for f in mock.faults.list()] == [second["id"]]
    mock.faults.clear()
    assert mock.faults.list() == []


def test_removing_an_unknown_fault_raises_404(mock: MockControl) -> None:
    with pytest.raises(MockControlError) as raised:
        mock.faults.remove("flt_nope")
    assert raised.value.status == 404
    assert "DELETE /__mock/faults/flt_nope -> 404" in str(raised.value)


def test_an_unknown_operation_id_raises_422_naming_the_nearest_ones(mock: MockControl) -> None:
    with pytest.raises(MockControlError) as raised:
        mock.faults.add("listSessionFile", 503)
    assert raised.value.status == 422
    assert isinstance(raised.value.detail, str) and "listSessionFiles" in raised.value.detail


def test_a_status_no_fault_can_have_raises_422_saying_why(mock: MockControl) -> None:
    with pytest.raises(MockControlError) as raised:
        mock.faults.add("listSecrets", 99)
    assert raised.value.status == 422 and "not 99" in str(raised.value.detail)


def test_a_request_the_control_plane_refuses_raises_its_pydantic_errors_on_one_line(mock: MockControl) -> None:
    with pytest.raises(MockControlError) as raised:
        mock.faults.add("listSecrets", "often")  # type: ignore[arg-type]
    assert raised.value.status == 422 and isinstance(raised.value.detail, list)
    assert "body.status" in str(raised.value) and "\n" not in str(raised.value)


def test_requests_filters_by_operation_status_unmatched_after_since_and_limit(mock: MockControl) -> None:
    mock.faults.add("listSecrets", 503, times=1)
    call(mock.url, "GET", "/secrets")
    call(mock.url, "GET", "/secrets")
    call(mock.url, "GET", "/no-such-route")
    everything = mock.requests()
    assert [e["path"] for e in everything] == ["/no-such-route", "/secrets", "/secrets"]
    assert [e["status"] for e in mock.requests(operation_id="listSecrets")] == [200, 503]
    assert [e["status"] for e in mock.requests(operation_id="listSecrets", status=503)] == [503]
    assert [e["path"] for e in mock.requests(unmatched=True)] == ["/no-such-route"]
    assert len(mock.requests(unmatched=False)) == 2
    assert [e["id"] for e in mock.requests(after=everything[2]["id"])] == [everything[0]["id"], everything[1]["id"]]
    assert len(mock.requests(limit=1)) == 1
    assert len(mock.requests(method="GET", path="/secrets")) == 2
    mine = mock.requests(principal="user:dev@example.com")
    assert mine and {e["principal"] for e in mine} == {"user:dev@example.com"}
    assert mock.requests(principal="user:nobody@example.com") == []
    assert mock.requests(since=datetime.now(timezone.utc) + timedelta(days=1)) == []
    with pytest.raises(ValueError, match="naive datetime"):
        mock.requests(since=datetime(2030, 1, 1))


def test_coverage_counts_the_statuses_each_operation_answered(mock: MockControl) -> None:
    call(mock.url, "GET", FILES)
    report = mock.coverage()
    assert report["documented"] >= 15 and report["exercised"] == 1
    by_id = {op["operationId"]: op for op in report["operations"]}
    answered = by_id["listSessionFiles"]["responses"]
    assert answered["200"] == 1 and sum(answered.values()) == 1


def test_drift_is_empty_without_an_upstream(mock: MockControl) -> None:
    assert mock.drift() == []
