/**
 * Whether a pin could ever answer, for the control plane's `POST /__mock/pins` and for a scenario
 * file's `pins` (at start-up and on a scenario switch): the pin's own rules (records/pins.ts),
 * headers HTTP can send, and a body the operation documents for that status (the union document's
 * schema, through the check the app passes in).
 */
import type { PinSpec } from '../records/pins.js';
import type { ScenarioPin } from '../scenarios/scenario.js';
import { faultProblem } from './control-input.js';
import type { Runtime } from '../runtime/runtime.js';

export type PinChecks = Pick<Runtime, 'pins' | 'checkPinBody'>;

/** Why `spec` cannot be pinned, as one line, or null. */
export function pinSpecProblem(deps: PinChecks, spec: PinSpec): string | null {
  const problem = deps.pins.problem(spec) ?? faultProblem({ status: spec.status, headers: spec.headers });
  if (problem) return problem;
  // The answer must be one the operation documents: a client's models would refuse anything else.
  // Without a body the generated one answers, which is valid by construction.
  const bodyProblem = spec.body === undefined ? undefined : deps.checkPinBody?.(spec.operationId, spec.status, spec.body);
  return bodyProblem ? `the pinned answer is not one ${spec.operationId} documents for status ${spec.status}: ${bodyProblem}` : null;
}

/** The first of a scenario file's pins that cannot be pinned, as `$.pins[i] <why>`, or null. */
export function scenarioPinsProblem(deps: PinChecks, pins: readonly ScenarioPin[]): string | null {
  for (const [i, pin] of pins.entries()) {
    const problem = pinSpecProblem(deps, pin);
    if (problem) return `$.pins[${i}] ${problem}`;
  }
  return null;
}
