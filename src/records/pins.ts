/**
 * Pins: fixed answers for the operations a supplied document adds (issue 30, item 5). A pin names
 * an operation and the answer it gives (status, body, headers), optionally only for some path
 * parameter values and one principal, and either until removed or a number of `times`. Pins from
 * the scenario file come back with every full reset and scenario switch; pins added at run time
 * (the control plane) go then. The fifteen built-in operations have state and faults, so a pin
 * for one of them is refused, as is one for an operation the document does not have.
 */
import type { Schemas } from '../generated/control-plane-api.js';
import { OPERATION_IDS } from '../generated/service-api.js';
import { unknownOperationProblem } from './faults.js';
import { OWN_PATHS } from '../primitives/own-paths.js';

/** What `POST /__mock/pins` and a scenario file's `pins` take, and a pin is (generated). */
export type PinSpec = Schemas['PinRequest'];
export type Pin = Schemas['Pin'];

/** What the pipeline answers for a matched pin; `body` undefined: the operation's generated body for `status`. */
export interface PinnedAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A pin that could never answer: its operation is unknown or built-in, or it names a path parameter the operation lacks. */
export class PinError extends Error {
  override name = 'PinError';
}

/** The operations a pin may name: the union's ids and each one's path parameters. */
export interface PinnableOperation {
  id: string;
  pathParams: readonly string[];
  /** Documented statuses, as strings ("200", "2XX", "default"); a pin must answer one of them. */
  statuses?: readonly string[];
}

/** Whether `status` is one the operation documents, OpenAPI's ranges and `default` included. */
const documents = (statuses: readonly string[], status: number) =>
  statuses.some((s) => s === String(status) || s.toUpperCase() === `${String(status)[0]}XX` || s === 'default');

const BUILT_IN: ReadonlySet<string> = new Set(OPERATION_IDS);

export class Pins {
  /** Run-time pins, newest first: the latest `add` wins over earlier ones and the scenario's. */
  #runTime: Pin[] = [];
  #scenario: Pin[] = [];
  /** The scenario's pins as written, put back by `resetRunTime`. */
  #scenarioSpecs: readonly PinSpec[] = [];
  #next = 1;
  readonly #operations: Map<string, PinnableOperation>;

  constructor(operations: readonly PinnableOperation[]) {
    this.#operations = new Map(operations.map((o) => [o.id, o]));
  }

  /** Why `spec` can never answer, as one line, or null. */
  problem(spec: Pick<PinSpec, 'operationId' | 'path_params' | 'status'>): string | null {
    const id = spec.operationId;
    if (BUILT_IN.has(id)) {
      return `operationId ${JSON.stringify(id)} is one of the mock's built-in operations, which keep state (add a fault with POST ${OWN_PATHS.controlPlane}/faults to make one answer otherwise); pins are for the operations a --spec document adds`;
    }
    const added = [...this.#operations.keys()].filter((k) => !BUILT_IN.has(k));
    const op = this.#operations.get(id);
    if (!op) {
      if (added.length === 0) return `unknown operationId ${JSON.stringify(id)}: the served document adds no operations to pin (start the mock with --spec to serve a document of your own)`;
      return unknownOperationProblem(id, added, { star: false, listed: 'a pin names one of the added operations:' });
    }
    if (op.statuses?.length && !documents(op.statuses, spec.status)) {
      return `status ${spec.status} is not one ${id} documents (it documents ${op.statuses.join(', ')})`;
    }
    for (const name of Object.keys(spec.path_params ?? {})) {
      if (!op.pathParams.includes(name)) {
        const has = op.pathParams.length ? `its path parameters are ${op.pathParams.join(', ')}` : 'it has no path parameters';
        return `path_params: ${id} has no path parameter ${JSON.stringify(name)} (${has})`;
      }
    }
    return null;
  }

  #make(spec: PinSpec, source: Pin['source']): Pin {
    const problem = this.problem(spec);
    if (problem) throw new PinError(problem);
    return {
      id: `pin_${this.#next++}`,
      operationId: spec.operationId,
      status: spec.status,
      // An absent body stays absent (the generated one answers); `null` is a body.
      ...(spec.body !== undefined ? { body: structuredClone(spec.body) } : {}),
      headers: { ...(spec.headers ?? {}) },
      path_params: spec.path_params ? { ...spec.path_params } : null,
      principal: spec.principal ?? null,
      times: spec.times ?? null,
      hits: 0,
      source,
    };
  }

  /** Adds a run-time pin; throws a PinError naming why when it could never answer. */
  add(spec: PinSpec): Pin {
    const pin = this.#make(spec, 'runtime');
    this.#runTime.unshift(pin);
    return pin;
  }

  /** Every pin in the order they are tried: run-time ones newest first, then the scenario's as written. */
  list(): Pin[] {
    return [...this.#runTime, ...this.#scenario];
  }

  /** Removes one pin (a scenario pin until the next reset); false for an unknown id. */
  remove(id: string): boolean {
    for (const list of [this.#runTime, this.#scenario]) {
      const i = list.findIndex((p) => p.id === id);
      if (i >= 0) {
        list.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  /** Removes every pin added at run time; the scenario's stay. */
  clear(): void {
    this.#runTime = [];
  }

  /**
   * The scenario's pins, in place of the previous scenario's (start-up, scenario switch); run-time
   * pins go. Throws a PinError naming the first pin that could never answer, before changing anything.
   */
  loadScenario(specs: readonly PinSpec[]): void {
    specs.forEach((spec, i) => {
      const problem = this.problem(spec);
      if (problem) throw new PinError(`pins[${i}]: ${problem}`);
    });
    this.#scenarioSpecs = specs.map((s) => structuredClone(s));
    this.resetRunTime();
  }

  /** A full reset: run-time pins go, the scenario's come back whole (their `times` too). */
  resetRunTime(): void {
    this.#runTime = [];
    this.#scenario = this.#scenarioSpecs.map((s) => this.#make(s, 'scenario'));
  }

  /** The pin that answers this request, counted as used (one of its `times`); exhausted ones go. */
  match(operationId: string, pathParams: Record<string, string>, principal: string | undefined): PinnedAnswer | undefined {
    for (const pin of [...this.#runTime, ...this.#scenario]) {
      if (pin.operationId !== operationId) continue;
      if (pin.principal !== null && pin.principal !== principal) continue;
      if (pin.path_params && Object.entries(pin.path_params).some(([k, v]) => pathParams[k] !== v)) continue;
      pin.hits++;
      if (pin.times !== null && --pin.times <= 0) this.remove(pin.id);
      const answer: PinnedAnswer = { status: pin.status, headers: { ...pin.headers } };
      if ('body' in pin) answer.body = structuredClone(pin.body);
      return answer;
    }
    return undefined;
  }
}
