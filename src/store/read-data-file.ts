/**
 * Reading one of the mock's own JSON data files (meta.json, a workspace file), or failing with one
 * line that names the file and says why it is not JSON — the caller's error type decides whether
 * that stops start-up (meta.json) or answers that principal's requests 500 (a workspace file).
 */
import { readFileSync } from 'node:fs';

export function readDataFile(file: string, advice: string, fail: (message: string) => Error, bytes?: Buffer): unknown {
  try {
    return JSON.parse((bytes ?? readFileSync(file)).toString('utf8'));
  } catch (e) {
    throw fail(`data file ${file} is not valid JSON (${(e as Error).message.split('\n')[0]}); ${advice}`);
  }
}
