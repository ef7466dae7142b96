/**
 * What the journal keeps of a request body: a compact, bounded summary of its value, never the
 * parsed object graph. A 1 MiB body of `[{},{},…]` parses into ~350,000 objects (tens of MB);
 * kept per entry, a thousand entries of it were gigabytes (issue 14). The summary keeps small
 * bodies exactly as sent and cuts large ones short, saying what was left out.
 */
import { PyFloat, type PyValue } from '../python/values.js';

/** Characters of keys and values a summary may hold, all told (its JSON text stays near this). */
export const SUMMARY_CHARS = 2048;
/** Containers deeper than this are summarised by their size alone. */
export const SUMMARY_DEPTH = 8;
/** Items (or keys) kept of one array (or object). */
export const SUMMARY_ITEMS = 32;
/** Characters kept of one string. */
export const SUMMARY_STRING = 256;

/** A body value as the journal holds it: a PyValue (JSON) or plain strings and objects (forms). */
type Summarisable = PyValue | Record<string, unknown> | unknown;

/** The summary of `value`: plain JSON, at most about SUMMARY_CHARS characters of content. */
export function summarizeBody(value: Summarisable): unknown {
  let budget = SUMMARY_CHARS;
  const spend = (n: number) => {
    budget -= n;
  };

  const str = (s: string): string => {
    const room = Math.max(0, Math.min(SUMMARY_STRING, budget));
    if (s.length <= room) {
      spend(s.length + 2);
      return s;
    }
    spend(room + 16);
    return `${s.slice(0, room)}…(+${s.length - room} chars)`;
  };

  const walk = (v: Summarisable, depth: number): unknown => {
    if (v === null || v === undefined || typeof v === 'boolean') {
      spend(5);
      return v ?? null;
    }
    if (typeof v === 'string') return str(v);
    if (typeof v === 'number') {
      spend(8);
      return v;
    }
    if (typeof v === 'bigint') {
      spend(8);
      return Number.isSafeInteger(Number(v)) ? Number(v) : str(v.toString());
    }
    if (v instanceof PyFloat) {
      spend(8);
      return v.value;
    }
    // Only the keys kept are taken out of a Map: one of 349k keys is not copied to be cut short.
    const entries: [string, Summarisable][] | null = v instanceof Map ? firstEntries(v, SUMMARY_ITEMS + 1) : Array.isArray(v) ? null : Object.entries(v as object);
    const count = v instanceof Map ? v.size : entries ? entries.length : (v as unknown[]).length;
    if (depth >= SUMMARY_DEPTH || (budget <= 0 && count > 0)) {
      spend(24);
      return entries ? { '…': `${count} keys` } : [`…(${count} items)`];
    }
    spend(2);
    if (!entries) {
      const list = v as Summarisable[];
      const out: unknown[] = [];
      for (let i = 0; i < list.length; i++) {
        if (i >= SUMMARY_ITEMS || budget <= 0) {
          out.push(`…(${list.length - i} more items)`);
          spend(24);
          break;
        }
        out.push(walk(list[i], depth + 1));
      }
      return out;
    }
    // Keys like __proto__ are data here, not a prototype.
    const out: Record<string, unknown> = Object.create(null);
    for (let i = 0; i < entries.length; i++) {
      // A key is kept whole or not at all, so redaction (by key) always recognises it.
      if (i >= SUMMARY_ITEMS || budget < Math.min(entries[i][0].length, SUMMARY_STRING)) {
        out['…'] = `${count - i} more keys`;
        spend(24);
        break;
      }
      const [k, val] = entries[i];
      out[str(k)] = walk(val, depth + 1);
    }
    return out;
  };
  return walk(value, 0);
}

function firstEntries(map: Map<string, Summarisable>, n: number): [string, Summarisable][] {
  const out: [string, Summarisable][] = [];
  for (const entry of map) {
    if (out.length >= n) break;
    out.push(entry);
  }
  return out;
}
