/**
 * Faults: make the service misbehave on purpose. A fault matches an operation (or "*") and
 * optionally a principal, fires with a probability, a number of times or until deleted, and
 * answers with its status, body and headers after an optional delay. Status 0 drops the
 * connection without an answer.
 */
import { STATUS_CODES } from 'node:http';

export interface FaultSpec {
  operationId: string;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delay_ms?: number;
  times?: number;
  probability?: number;
  principal?: string;
}

export interface Fault extends Required<Pick<FaultSpec, 'operationId' | 'status'>> {
  id: string;
  body: unknown;
  headers: Record<string, string>;
  delay_ms: number;
  /** Answers left; null: until deleted. */
  times: number | null;
  probability: number;
  principal: string | null;
  /** How often it has fired. */
  hits: number;
}

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

export class Faults {
  #faults: Fault[] = [];
  #next = 1;
  #random: () => number;

  constructor(seed = 1) {
    this.#random = prng(seed);
  }

  add(spec: FaultSpec): Fault {
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

  /** The first fault that applies to this request, counted as fired; exhausted ones go. */
  take(operationId: string, principal: string | null): Fault | undefined {
    for (const f of this.#faults) {
      if (f.operationId !== '*' && f.operationId !== operationId) continue;
      if (f.principal !== null && f.principal !== principal) continue;
      if (f.probability < 1 && this.#random() >= f.probability) continue;
      f.hits++;
      if (f.times !== null && --f.times <= 0) this.remove(f.id);
      return f;
    }
    return undefined;
  }
}
