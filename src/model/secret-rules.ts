/** The rule a stored secret's key_hint follows, shared by the secrets handlers, scenarios and snapshots (model/: below store/ and scenarios/). */
import { pyLen } from '../python/values.js';

/**
 * The hint shown for a secret (chosen, CONTRACT §2): its first 3 characters and `***` when the
 * value has 8 or more characters, else just `***`, so short values reveal nothing.
 */
export function keyHint(value: string): string {
  return pyLen(value) >= 8 ? `${Array.from(value).slice(0, 3).join('')}***` : '***';
}
