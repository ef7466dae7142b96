/**
 * TEMPORARY STUB (helper i30-core): stands in for helper i30-pins' src/records/pins.ts until the
 * lead merges theirs, which replaces this file whole. Only what the pipeline calls is here, with
 * the agreed signatures (i30-shared.md, interface 3): nothing is ever pinned.
 */

/** What the pipeline answers for a matched pin; `body` undefined: the operation's generated body for `status`. */
export interface PinnedAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The operations a pin may name: the union's ids and each one's path parameters. */
export interface PinnableOperation {
  id: string;
  pathParams: readonly string[];
}

export class Pins {
  constructor(readonly operations: readonly PinnableOperation[]) {}

  /** The pin that answers this request, counted as used; the stub has none. */
  match(_operationId: string, _pathParams: Record<string, string>, _principal: string | undefined): PinnedAnswer | undefined {
    return undefined;
  }
}
