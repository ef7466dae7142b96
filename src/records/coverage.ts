/**
 * Coverage: for every operation, its documented statuses and how often each was answered since
 * the last reset, so a test suite can see which parts of the API it never touched.
 */
import type { Operation } from '../document/openapi.js';
import { junitCase, junitDocument } from '../primitives/markup.js';

export interface CoverageReport {
  operations: { operationId: string; method: string; path: string; responses: Record<string, number> }[];
  documented: number;
  exercised: number;
  share: number;
}

export class Coverage {
  #counts = new Map<string, Map<string, number>>();

  constructor(private readonly operations: Operation[]) {}

  record(operationId: string, status: number): void {
    let byStatus = this.#counts.get(operationId);
    if (!byStatus) this.#counts.set(operationId, (byStatus = new Map()));
    byStatus.set(String(status), (byStatus.get(String(status)) ?? 0) + 1);
  }

  clear(): void {
    this.#counts.clear();
  }

  report(): CoverageReport {
    let documented = 0;
    let exercised = 0;
    const operations = this.operations.map((op) => {
      const counts = this.#counts.get(op.id) ?? new Map<string, number>();
      const responses: Record<string, number> = {};
      for (const status of op.statuses) {
        responses[status] = counts.get(status) ?? 0;
        documented++;
        if (responses[status] > 0) exercised++;
      }
      return { operationId: op.id, method: op.method, path: op.path, responses };
    });
    return { operations, documented, exercised, share: documented ? exercised / documented : 0 };
  }

  /** JUnit XML: one testcase per documented response; unexercised ones are skipped. */
  junit(): string {
    const r = this.report();
    const cases = r.operations.flatMap((op) =>
      Object.entries(op.responses).map(([status, n]) =>
        junitCase(`${op.method} ${op.path}`, `${op.operationId} ${status}`, n > 0 ? `<system-out>answered ${n} time${n === 1 ? '' : 's'}</system-out>` : '<skipped message="never answered"/>'),
      ),
    );
    const skipped = r.documented - r.exercised;
    return junitDocument({ name: 'cloud-browser-mock coverage', tests: r.documented, skipped }, { name: 'documented responses', tests: r.documented, skipped, failures: 0, errors: 0 }, cases);
  }
}
