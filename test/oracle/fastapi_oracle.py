"""
An independent oracle for the validation stage of the service: the request models of the contract
declared with real Pydantic (2.13 here), fed the way FastAPI 0.142 feeds them (Starlette's query
parsing, json.loads on the body bytes, FastAPI's content-type rule and form handling). For each
request it prints what the service answers when validation fails — status and exact body text —
or {"valid": true}.

Input: one JSON object per line on stdin: {"op", "query" (raw query string), "content_type"
(string or null), "body_b64" (or null for no body)}. Output: one JSON object per line.
"""
import base64
import email.message
import json
import sys
from enum import Enum
from typing import List, Optional
from urllib.parse import parse_qsl

from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from typing_extensions import Annotated


class FileSource(str, Enum):
    user_upload = "user_upload"
    session_download = "session_download"


class SecretNamespace(str, Enum):
    llm_provider = "llm_provider"
    function_env = "function_env"


class MailboxProvider(str, Enum):
    gmail = "gmail"
    microsoft_outlook = "microsoft_outlook"


class MailboxUpdateRequest(BaseModel):
    allow_all_senders: bool
    allowed_sender_domains: Optional[List[str]] = None


class MailboxSyncRequest(BaseModel):
    mailbox_id: Optional[str] = None
    provider: Optional[MailboxProvider] = None


class SecretStoreRequest(BaseModel):
    name: str = Field(min_length=1, max_length=128)
    value: str = Field(min_length=1)
    namespace: SecretNamespace = SecretNamespace.function_env


MISSING = object()
# (name, type, default or MISSING when required)
QUERY = {
    "listSessionFiles": [
        ("source", Optional[FileSource], None),
        ("limit", Annotated[int, Field(ge=1, le=1000)], 100),
        ("offset", Annotated[int, Field(ge=0)], 0),
    ],
    "getSessionScript": [("as_workflow", bool, False), ("infer_response_format", bool, False)],
    "listSecrets": [("namespace", Optional[SecretNamespace], None)],
    "getSecret": [("namespace", SecretNamespace, MISSING)],
}
# (model, body required)
JSON_BODY = {
    "updateMailbox": (MailboxUpdateRequest, True),
    "syncMailboxes": (MailboxSyncRequest, False),
    "storeSecret": (SecretStoreRequest, True),
}
FORM_FIELDS = [  # OAuth2PasswordRequestForm
    ("grant_type", Optional[Annotated[str, Field(pattern="^password$")]], None),
    ("username", str, MISSING),
    ("password", str, MISSING),
    ("scope", str, ""),
    ("client_id", Optional[str], None),
    ("client_secret", Optional[str], None),
]
ADAPTERS = {}


def adapter(t):
    key = repr(t)
    if key not in ADAPTERS:
        ADAPTERS[key] = TypeAdapter(t)
    return ADAPTERS[key]


def errors_of(exc, prefix):
    out = []
    for e in exc.errors(include_url=False):
        e = dict(e)
        e["loc"] = list(prefix) + list(e["loc"])
        out.append(e)
    return out


def encode(obj):
    """FastAPI's jsonable_encoder for error lists, then JSONResponse's json.dumps."""
    def enc(v):
        if isinstance(v, dict):
            return {k: enc(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [enc(x) for x in v]
        if isinstance(v, Enum):
            return v.value
        if isinstance(v, bytes):
            return v.decode()
        if isinstance(v, Exception):
            return {}
        return v
    return json.dumps(enc(obj), ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def finite(v):
    if isinstance(v, float):
        return v == v and v not in (float("inf"), float("-inf"))
    if isinstance(v, list):
        return all(finite(x) for x in v)
    if isinstance(v, dict):
        return all(finite(x) for x in v.values())
    return True


def is_json_type(ct):
    if not ct:
        return False  # CONTRACT §4: no or empty Content-Type is not JSON
    m = email.message.Message()
    m["content-type"] = ct
    if m.get_content_maintype() != "application":
        return False
    sub = m.get_content_subtype()
    return sub == "json" or sub.endswith("+json")


def answer(req):
    op = req["op"]
    query = dict(parse_qsl(req["query"].encode("latin-1", "replace").decode("latin-1"), keep_blank_values=True))
    body = base64.b64decode(req["body_b64"]) if req.get("body_b64") is not None else b""
    ct = req.get("content_type")
    errors = []
    # Body reading comes first (a JSON decode error beats everything after routing).
    json_body = None
    if op in JSON_BODY and body:
        if is_json_type(ct):
            try:
                json_body = json.loads(body)
            except json.JSONDecodeError as e:
                return {"status": 422, "body": encode({"detail": [{"type": "json_invalid", "loc": ["body", e.pos], "msg": "JSON decode error", "input": {}, "ctx": {"error": e.msg}}]})}
            except Exception:
                return {"status": 400, "body": encode({"detail": "There was an error parsing the body"})}
            if not finite(json_body):
                # Python accepts NaN, Infinity and 1e400, then fails with a 500 when it writes
                # the answer; the mock deliberately says json_invalid (CONTRACT §5).
                return {"skip": "non-finite number: FastAPI answers 500"}
        else:
            try:
                body.decode("utf-8")
            except UnicodeDecodeError:
                # jsonable_encoder cannot echo undecodable bytes: FastAPI answers 500 here,
                # the mock echoes the text with U+FFFD (README, known differences).
                return {"skip": "undecodable raw body: FastAPI answers 500"}
            json_body = body
    for name, t, default in QUERY.get(op, []):
        if name not in query:
            if default is MISSING:
                errors.append({"type": "missing", "loc": ["query", name], "msg": "Field required", "input": None})
            continue
        try:
            adapter(t).validate_python(query[name], from_attributes=True)
        except ValidationError as exc:
            errors.extend(errors_of(exc, ["query", name]))
    if op in JSON_BODY:
        model, required = JSON_BODY[op]
        if json_body is None:
            if required:
                errors.append({"type": "missing", "loc": ["body"], "msg": "Field required", "input": None})
        else:
            try:
                # FastAPI validates with from_attributes=True, hence model_attributes_type for non-dicts.
                adapter(model).validate_python(json_body, from_attributes=True)
            except ValidationError as exc:
                errors.extend(errors_of(exc, ["body"]))
    if op == "createToken":
        form = {}
        if (ct or "").split(";")[0].strip().lower() == "application/x-www-form-urlencoded":
            form = dict(parse_qsl(body.decode("latin-1"), keep_blank_values=True))
        for name, t, default in FORM_FIELDS:
            value = form.get(name)
            if value is None or value == "":
                if default is MISSING:
                    errors.append({"type": "missing", "loc": ["body", name], "msg": "Field required", "input": None})
                continue
            try:
                adapter(t).validate_python(value)
            except ValidationError as exc:
                errors.extend(errors_of(exc, ["body", name]))
    if errors:
        return {"status": 422, "body": encode({"detail": errors})}
    return {"valid": True}


for line in sys.stdin:
    if line.strip():
        try:
            print(json.dumps(answer(json.loads(line)), ensure_ascii=False), flush=False)
        except Exception as e:  # an oracle failure is reported, never hidden
            print(json.dumps({"oracle_error": repr(e)}))
sys.stdout.flush()
