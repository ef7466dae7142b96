/**
 * A session's recorded actions as the workflow-code export (CONTRACT §2): `json_actions`, the
 * actions as data, and `python_script`, a program that replays them with the service's Python SDK.
 * The same actions and switches always give the same bytes.
 */
import type { Action } from '../model/records.js';
import { planExport } from './export-actions.js';
import { pythonScript } from './python-script.js';

export interface ExportSwitches {
  /** A standalone program (imports, client, `run()`, `__main__` guard) rather than the replay lines. */
  asWorkflow: boolean;
  /** Give each scrape with instructions and no response_format an inferred one. */
  inferResponseFormat: boolean;
}

export interface SessionExport {
  python_script: string;
  json_actions: Action[];
}

export function exportSession(actions: Action[], switches: ExportSwitches): SessionExport {
  const plan = planExport(actions, switches.inferResponseFormat);
  return { python_script: pythonScript(plan, switches.asWorkflow), json_actions: plan.json_actions };
}
