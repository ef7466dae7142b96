/**
 * The mock's clock. Every timestamp the service writes and every expiry check reads it, so a
 * test can move time instead of sleeping. Real time plus an offset, or frozen at an instant.
 */
/**
 * The instants a Pydantic datetime can hold, and so every timestamp the service may write:
 * 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z. A clock outside them would stamp records
 * the service cannot serialise, and they would answer 500 for good (they are persisted).
 */
export const MIN_INSTANT = -62135596800000;
export const MAX_INSTANT = 253402300799999;

export function isRepresentable(ms: number): boolean {
  return Number.isFinite(ms) && ms >= MIN_INSTANT && ms <= MAX_INSTANT;
}

/** An instant moved into the representable range: derived instants (an expiry) end at 9999. */
export function clampInstant(ms: number): number {
  return Math.min(MAX_INSTANT, Math.max(MIN_INSTANT, ms));
}

export class ClockRangeError extends RangeError {}

export class Clock {
  #offsetMs = 0;
  #frozenAt: number | null = null;

  constructor(private readonly realNow: () => number = Date.now) {}

  now(): number {
    // A running clock set near the end of year 9999 would run past it: it stops there instead.
    return this.#frozenAt ?? clampInstant(this.realNow() + this.#offsetMs);
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
    checkInstant(ms);
    this.#frozenAt = ms;
  }

  /** Moves a frozen clock's instant (it stays frozen) or a running clock's offset. */
  advance(ms: number): void {
    checkInstant(this.now() + ms);
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

function checkInstant(ms: number): void {
  if (!isRepresentable(ms)) throw new ClockRangeError('the clock must stay within years 1 to 9999 (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z)');
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
