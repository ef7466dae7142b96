/**
 * What a control-plane handler sees: the validated input (express-openapi-validator checked it
 * against control-plane.openapi.json), the raw request and response, and the mock's state.
 * One handler per operationId of that document; the dispatcher (control-plane.ts) routes to it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Operation } from '../openapi.js';
import type { OperationInput } from '../operations/types.js';
import type { DriftLog } from '../proxy/drift.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../primitives/clock.js';
import type { Coverage } from './coverage.js';
import type { Faults } from './faults.js';
import type { Journal } from './journal.js';

export interface ControlPlaneDeps {
  store: Store;
  clock: Clock;
  journal: Journal;
  faults: Faults;
  coverage: Coverage;
  /** The full reset (clock, workspaces, journal, faults, coverage) or one principal's. */
  reset(principal?: string): Promise<void>;
  /** Clears the journal, the faults and the coverage (a full reset does too). */
  clearRunRecords(): void;
  adminToken?: string;
  fileTtlMs: number;
  maxUploadBytes: number;
  /** The principal a bearer token authenticates as, or null when --auth strict refuses it. */
  principalOf(token: string): string | null;
  /** Drift records of the --upstream proxy. */
  drift?: DriftLog;
  operations?: Operation[];
}

export interface ControlContext {
  deps: ControlPlaneDeps;
  req: IncomingMessage;
  res: ServerResponse;
  /** control-plane.openapi.json as loaded. */
  document: Record<string, any>;
}

export type ControlHandler = (input: OperationInput, ctx: ControlContext) => Promise<void> | void;
