/**
 * cloud-browser-mock: a local, stateful, validating mock of the cloud browser automation
 * service's session-files, workflow-code, mailbox, secret and token API.
 */
export { createApp, type AppOptions, type MockApp, type MockRuntime } from './app.js';
export { createStore } from './app/create-store.js';
export type { Store } from './store/store.js';
export { startMockServer, type MockServer, type ServerOptions } from './server.js';
export {
  connectMockServer,
  MockControlError,
  type ClockState,
  type ClockView,
  type ControlOptions,
  type Duration,
  type JournalId,
  type MockControl,
  type RequestsFilter,
  type WorkspaceExport,
  type WorkspaceImport,
  type WorkspaceSnapshot,
} from './control-client.js';
export { UnknownOperationError, type Fault, type FaultSpec } from './records/faults.js';
export type { Pin, PinSpec } from './records/pins.js';
export type { JournalEntry } from './records/journal.js';
export type { CoverageReport } from './records/coverage.js';
export type { MockOptions } from './options.js';
export { Clock } from './primitives/clock.js';
export { DETAIL } from './errors/http-error.js';
export { MSG as PYDANTIC_MESSAGES } from './errors/catalogue.js';
export { BUILT_IN_SCENARIOS } from './scenarios/scenario.js';
export type { DriftProblem, DriftRecord } from './proxy/drift.js';
export { RECORDED_API_KEY, RECORDED_USER } from './proxy/recorder.js';
