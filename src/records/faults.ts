/**
 * Faults: make the service misbehave on purpose. A fault matches an operation (or "*") and
 * optionally a principal, fires with a probability, a number of times or until deleted, and
 * answers with its status, body and headers after an optional delay. Status 0 drops the
 * connection without an answer.
 */
import { STATUS_CODES } from 'node:http';
import type { Schemas } from '../generated/control-plane-api.js';
import { editDistance } from '../primitives/edit-distance.js';

/** What `POST /__mock/faults` takes and a fault is, as control-plane.openapi.json says (generated). */
export type FaultSpec = Schemas['FaultRequest'];
export type Fault = Schemas['Fault'];

/** mulberry32: a small seeded PRNG, so probabilistic faults repeat with the same --seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fault for an operation the service does not have: it would be accepted and never fire. */
export class UnknownOperationError extends Error {
  override name = 'UnknownOperationError';
}

/** At most this many "did you mean" guesses, as MSW's unhandled-request warning gives. */
const MAX_GUESSES = 4;
/** A guess is at most 3 edits away (MSW's bound), a quarter of a long id's letters. */
const isGuess = (distance: number, id: string) => distance <= Math.max(3, Math.floor(id.length / 4));

/**
 * Why `operationId` names no operation, as one line that guesses what was meant (MSW's "did you
 * mean…?", nearest first) and then lists every valid id in the document's order (after `listed`);
 * null when it is one of `known`, or `*` where that means every operation (faults, not pins).
 */
export function unknownOperationProblem(operationId: string, known: readonly string[], { star = true, listed = 'operationId must be * or one of' } = {}): string | null {
  if ((star && operationId === '*') || known.includes(operationId)) return null;
  const guesses = known
    .map((id) => ({ id, distance: editDistance(operationId.toLowerCase(), id.toLowerCase()) }))
    .filter((g) => isGuess(g.distance, g.id))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, MAX_GUESSES)
    .map((g) => g.id);
  const guess = guesses.length === 0 ? '' : guesses.length === 1 ? ` — did you mean ${guesses[0]}?` : ` — did you mean one of ${guesses.join(', ')}?`;
  return `unknown operationId ${JSON.stringify(operationId)}${guess} ${listed} ${known.join(', ')}`;
}

export class Faults {
  #faults: Fault[] = [];
  /** Ids grow for the life of the process, as the journal's do: a stale id never removes a new fault. */
  #next = 1;
  #random: () => number;
  readonly #operationIds: readonly string[];

  /** `operationIds`: the service's operations, the only ones a fault may name (besides `*`). */
  constructor(operationIds: readonly string[], seed = 1) {
    this.#operationIds = operationIds;
    this.#random = prng(seed);
  }

  /**
   * A run starts over (a full reset, a scenario switch): no faults, and the random generator back
   * at the start of `seed`'s sequence, so a test with a `probability` fault sees the same
   * sequence of fired and spared calls after each reset, and a failure can be replayed.
   */
  restart(seed: number): void {
    this.#faults = [];
    this.#random = prng(seed);
  }

  /** Why `operationId` names no operation of the service (see unknownOperationProblem), or null. */
  unknownOperation(operationId: string): string | null {
    return unknownOperationProblem(operationId, this.#operationIds);
  }

  /** Adds a fault; throws an UnknownOperationError when its operationId is not the service's. */
  add(spec: FaultSpec): Fault {
    const unknown = this.unknownOperation(spec.operationId);
    if (unknown) throw new UnknownOperationError(unknown);
    const headers = { ...(spec.headers ?? {}) };
    // A 429 without headers tells the client when to retry, as a real rate limiter would.
    if (spec.status === 429 && !spec.headers) headers['Retry-After'] = '1';
    const fault: Fault = {
      id: `flt_${this.#next++}`,
      operationId: spec.operationId,
      status: spec.status,
      body: spec.body !== undefined ? spec.body : { detail: STATUS_CODES[spec.status] ?? 'Error' },
      headers,
      delay_ms: spec.delay_ms ?? 0,
      times: spec.times ?? null,
      probability: spec.probability ?? 1,
      principal: spec.principal ?? null,
      hits: 0,
    };
    this.#faults.push(fault);
    return fault;
  }

  list(): Fault[] {
    return [...this.#faults];
  }

  remove(id: string): boolean {
    const i = this.#faults.findIndex((f) => f.id === id);
    if (i < 0) return false;
    this.#faults.splice(i, 1);
    return true;
  }

  clear(): void {
    this.#faults = [];
  }

  /** Whether any fault names `operationId` (or `*`): when none does, a request needs no fault check. */
  any(operationId: string): boolean {
    for (const f of this.#faults) if (f.operationId === '*' || f.operationId === operationId) return true;
    return false;
  }

  /**
   * The first fault that applies to this request, counted as fired; exhausted ones go.
   * `principal` is asked only when a fault names one: authenticating costs a request time.
   */
  take(operationId: string, principal: () => string | null): Fault | undefined {
    for (const f of this.#faults) {
      if (f.operationId !== '*' && f.operationId !== operationId) continue;
      if (f.principal !== null && f.principal !== principal()) continue;
      if (f.probability < 1 && this.#random() >= f.probability) continue;
      f.hits++;
      if (f.times !== null && --f.times <= 0) this.remove(f.id);
      return f;
    }
    return undefined;
  }
}
