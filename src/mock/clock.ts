/**
 * The mock's clock. Every timestamp the service writes and every expiry check reads it, so a
 * test can move time instead of sleeping. Real time plus an offset, or frozen at an instant.
 */
export class Clock {
  #offsetMs = 0;
  #frozenAt: number | null = null;

  constructor(private readonly realNow: () => number = Date.now) {}

  now(): number {
    return this.#frozenAt ?? this.realNow() + this.#offsetMs;
  }

  get frozen(): boolean {
    return this.#frozenAt !== null;
  }

  /** Clock now minus real now, in seconds. */
  get offsetSeconds(): number {
    return (this.now() - this.realNow()) / 1000;
  }

  /** Freezes the clock at an instant. */
  set(ms: number): void {
    this.#frozenAt = ms;
  }

  /** Moves a frozen clock's instant (it stays frozen) or a running clock's offset. */
  advance(ms: number): void {
    if (this.#frozenAt !== null) this.#frozenAt += ms;
    else this.#offsetMs += ms;
  }

  reset(): void {
    this.#frozenAt = null;
    this.#offsetMs = 0;
  }

  /** Its settings (not the instant): what restore() puts back. */
  state(): ClockState {
    return { offsetMs: this.#offsetMs, frozenAt: this.#frozenAt };
  }

  restore(state: ClockState): void {
    this.#offsetMs = state.offsetMs;
    this.#frozenAt = state.frozenAt;
  }
}

export interface ClockState {
  offsetMs: number;
  frozenAt: number | null;
}

/**
 * An instant as Pydantic serialises a UTC datetime: `2025-01-01T12:00:00Z`, with six fractional
 * digits when the instant has a fraction (`2026-11-22T01:20:41.987000Z`).
 */
export function isoTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2025-01-01T12:00:00.000Z
  const frac = iso.slice(20, 23);
  return frac === '000' ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 19)}.${frac}000Z`;
}
