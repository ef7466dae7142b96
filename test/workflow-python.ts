/**
 * Test helpers that hand exported scripts to Python (whether python3 and Pydantic are here is
 * test/needs-tool.ts): one process that parses, runs and reports a whole batch (test/python/run_exports.py).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SDK, UNSUPPORTED_PREFIX } from '../src/workflow/sdk.js';
import { ROOT } from './helpers.js';
import { PYTHON3 } from './python3.js';

export interface ExportCase {
  script: string;
  asWorkflow: boolean;
  /** Execute it against a stand-in SDK (needs Pydantic when the script declares models). */
  run: boolean;
  /** The recorded result of each SDK call, by call index (null: none). */
  samples?: unknown[];
}

export interface ExportReport {
  syntax_error: string | null;
  comments: unknown[];
  calls: { method: string; kwargs: Record<string, unknown>; validated: unknown }[];
  returned: unknown;
  error: string | null;
  warnings: string[];
}

export function runExports(cases: ExportCase[]): ExportReport[] {
  const job = {
    sdk_module: SDK.module,
    sdk_client: SDK.clientClass,
    unsupported_prefix: UNSUPPORTED_PREFIX,
    cases: cases.map((c) => ({ script: c.script, as_workflow: c.asWorkflow, run: c.run, samples: c.samples ?? [] })),
  };
  const r = spawnSync(PYTHON3, [join(ROOT, 'test', 'python', 'run_exports.py')], { input: JSON.stringify(job), maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`run_exports.py failed: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString());
}
