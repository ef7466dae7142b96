/**
 * What this machine's python3 is, asked once per test file that imports this module: through a
 * version manager's shim (pyenv) every start of `python3` costs about 0.45 CPU-s before Python
 * runs, so one start answers every question the tests have — where its executable is (every
 * later start runs that directly), its version, whether it has venv and ensurepip (Debian splits
 * them into python3-venv) and a pip of its own, and whether Pydantic 2 is importable on Python
 * 3.10 or later (generated scripts' models need Pydantic 2, their `X | None` annotations 3.10).
 */
import { spawnSync } from 'node:child_process';
import { testNeeding, describeNeeding } from './needs-tool.js';

const PROBE_SCRIPT = `
import importlib.util, json, sys
out = {"executable": sys.executable, "version": sys.version.replace("\\n", " "), "pip": importlib.util.find_spec("pip") is not None, "venv": False, "pydantic": False}
try:
    import venv, ensurepip
    out["venv"] = True
except Exception:
    pass
try:
    import pydantic
    out["pydantic"] = sys.version_info >= (3, 10) and pydantic.VERSION.startswith("2.")
except Exception:
    pass
print(json.dumps(out))
`;

interface Probe {
  executable: string;
  version: string;
  pip: boolean;
  venv: boolean;
  pydantic: boolean;
}

const run = spawnSync('python3', ['-c', PROBE_SCRIPT], { encoding: 'utf8' });
/** The script's line is the last one (a site hook may print before it). */
const probe: Probe | undefined = run.status === 0 ? (JSON.parse(run.stdout.trim().split('\n').pop()!) as Probe) : undefined;

export const HAS_PYTHON = probe !== undefined;
export const HAS_PYDANTIC = probe?.pydantic === true;
/** Whether `python3 -m venv` works here (with ensurepip). */
export const HAS_VENV = probe?.venv === true;
/** python3's executable, to start without the shim ('python3' where there is none). */
export const PYTHON3 = probe?.executable || 'python3';
/** `sys.version` on one line, '' without python3. */
export const PYTHON_VERSION = probe?.version ?? '';
/** Whether python3 has a pip of its own (pyenv and python.org builds do; Debian's has none). */
export const PYTHON_HAS_PIP = probe?.pip === true;

export const NO_PYTHON = 'python3 is not installed (.ci/run installs it)';
export const NO_PYDANTIC = 'python3 >= 3.10 with pydantic 2 is not available (pip install "pydantic>=2"; .ci/run makes a venv)';

export const testWithPython = testNeeding(HAS_PYTHON, NO_PYTHON);
export const testWithPydantic = testNeeding(HAS_PYDANTIC, NO_PYDANTIC);
export const describeWithPython = describeNeeding(HAS_PYTHON, NO_PYTHON);
export const describeWithPydantic = describeNeeding(HAS_PYDANTIC, NO_PYDANTIC);
