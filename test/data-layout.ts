/**
 * Where a data directory keeps what (docs/guarantees.md), for tests that look at the disk:
 * meta.json names the current state directory, which holds workspaces/ and blobs/<folder>/.
 * (A directory of the layout before state directories — everything beside meta.json, blobs
 * flat, uploads under way as blobs/.tmp-* — is read too, so a test can be run against it.)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceData } from '../src/model/records.js';
import { readStoredWorkspaces } from '../src/store/stored-data.js';

/**
 * Every stored workspace as the store reads it: its snapshot with its change log replayed
 * (issue 26: a write is an appended line, not a rewritten file).
 */
export const storedWorkspaces = (dataDir: string): Map<string, WorkspaceData> => readStoredWorkspaces(dataDir);

/** The current state directory (named by meta.json). */
export function stateDir(dataDir: string): string {
  const state = JSON.parse(readFileSync(join(dataDir, 'meta.json'), 'utf8')).state;
  return state ? join(dataDir, state) : dataDir;
}

export const workspacesDir = (dataDir: string) => join(stateDir(dataDir), 'workspaces');

/** Every committed blob, as `<folder>/<name>` (or `<name>` in the flat layout). */
export function blobFiles(dataDir: string): string[] {
  const root = join(stateDir(dataDir), 'blobs');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((n) => !n.startsWith('.tmp-'))
    .flatMap((n) => (statSync(join(root, n)).isDirectory() ? readdirSync(join(root, n)).map((f) => `${n}/${f}`) : [n]));
}

/** Uploads on their way in. */
export function tempFiles(dataDir: string): string[] {
  const tmp = join(dataDir, 'tmp');
  if (existsSync(tmp)) return readdirSync(tmp);
  const flat = join(dataDir, 'blobs');
  return existsSync(flat) ? readdirSync(flat).filter((n) => n.startsWith('.tmp-')) : [];
}
