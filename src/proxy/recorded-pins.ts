/**
 * What `--record` keeps of the operations a --spec document adds: they hold no state for a
 * scenario to carry, so each answer is kept as a pin (records/pins.ts) — the latest answer of each
 * operation per path parameter values, in the order first seen — and replayed as the recording's
 * `pins`.
 */
import type { ScenarioPin } from '../scenarios/scenario.js';

export interface PinnableAnswer {
  operationId: string;
  status: number;
  pathParams: Record<string, string>;
  /** The parsed JSON answer, when it was JSON. */
  json?: unknown;
}

export class RecordedPins {
  #pins = new Map<string, ScenarioPin>();

  /**
   * Keeps a successful answer; false when it keeps nothing. A JSON answer keeps its body, a 204
   * none; any other (a download's bytes) is not pinned: the mock's generated answer of that media
   * type stands in for it.
   */
  observe(o: PinnableAnswer): boolean {
    if (o.status < 200 || o.status > 299 || (o.json === undefined && o.status !== 204)) return false;
    const params = Object.keys(o.pathParams).sort().map((k) => [k, o.pathParams[k]] as const);
    const pin: ScenarioPin = { operationId: o.operationId, status: o.status };
    if (o.json !== undefined) pin.body = o.json;
    if (params.length) pin.path_params = Object.fromEntries(params);
    // The latest answer wins, in the place of the first: the file keeps the order first seen.
    this.#pins.set(JSON.stringify([o.operationId, params]), pin);
    return true;
  }

  list(): ScenarioPin[] {
    return [...this.#pins.values()];
  }
}
