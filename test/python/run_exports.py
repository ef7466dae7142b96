"""Runs exported scripts against a stand-in for the service's SDK and reports what they did.

A test helper (test/workflow-python.ts drives it): one process checks a whole batch, so the
tests pay Python's and Pydantic's start-up once.

stdin: {"sdk_module": str, "sdk_client": str, "unsupported_prefix": str,
        "cases": [{"script": str, "as_workflow": bool, "run": bool, "samples": [any]}]}
  `samples[i]` is the recorded result of the i-th SDK call (null when it has none); a call typed
  by a model validates it.
stdout: one report per case: {"syntax_error", "comments", "calls", "returned", "error", "warnings"}
  calls: [{"method", "kwargs", "validated"}], a model class passed as a value is {"$class": name};
  validated / returned: a model's `model_dump(by_alias=True, exclude_unset=True)`.
"""
import ast
import io
import json
import sys
import tokenize
import traceback
import types
import warnings


def encode(value):
    if isinstance(value, type):
        return {"$class": value.__name__}
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if hasattr(value, "model_dump"):
        return {"$model": type(value).__name__, "dump": value.model_dump(by_alias=True, exclude_unset=True)}
    return value


class FakeSession:
    def __init__(self, samples):
        self.calls = []
        self.samples = samples

    def __getattr__(self, method):
        def call(*args, **kwargs):
            if args:
                raise TypeError(f"{method}() got positional arguments {args!r}")
            index = len(self.calls)
            record = {"method": method, "kwargs": encode(kwargs), "validated": None}
            self.calls.append(record)
            model = kwargs.get("response_format")
            sample = self.samples[index] if index < len(self.samples) else None
            if isinstance(model, type) and sample is not None:
                instance = model.model_validate(sample)
                record["validated"] = instance.model_dump(by_alias=True, exclude_unset=True)
                return instance
            return {"$call": index}

        return call


def fake_sdk(name, client_class, session):
    class Namespace:
        def __getattr__(self, _):
            return Namespace()

        def __call__(self, *args, **kwargs):
            return session

    module = types.ModuleType(name)
    setattr(module, client_class, type(client_class, (Namespace,), {}))
    return module


def comments(script, prefix):
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(script).readline):
        if tok.type == tokenize.COMMENT and tok.string.startswith(prefix):
            found.append(ast.literal_eval(tok.string[len(prefix):]))
    return found


def check(case, job, n):
    report = {"syntax_error": None, "comments": [], "calls": [], "returned": None, "error": None, "warnings": []}
    try:
        ast.parse(case["script"])
    except SyntaxError as e:
        report["syntax_error"] = f"{e.msg} (line {e.lineno})"
        return report
    report["comments"] = comments(case["script"], job["unsupported_prefix"])
    if not case.get("run"):
        return report
    session = FakeSession(case.get("samples") or [])
    sys.modules[job["sdk_module"]] = fake_sdk(job["sdk_module"], job["sdk_client"], session)
    # A module of its own, registered, so Pydantic finds the classes' namespace as it would in a file.
    module = types.ModuleType(f"exported_{n}")
    sys.modules[module.__name__] = module
    if not case["as_workflow"]:
        module.session = session
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(compile(case["script"], module.__name__, "exec"), module.__dict__)
            if case["as_workflow"]:
                report["returned"] = encode(module.run())
        report["warnings"] = [str(w.message) for w in caught]
    except Exception:
        report["error"] = traceback.format_exc(limit=3)
    finally:
        del sys.modules[module.__name__]
    report["calls"] = session.calls
    return report


def main():
    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    json.dump([check(case, job, n) for n, case in enumerate(job["cases"])], sys.stdout)


if __name__ == "__main__":
    main()
