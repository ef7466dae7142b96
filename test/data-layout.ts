/** Where a data directory keeps what (README "Guarantees"): for tests that look at the disk. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The current state directory (named by meta.json). */
export function stateDir(dataDir: string): string {
  return join(dataDir, JSON.parse(readFileSync(join(dataDir, 'meta.json'), 'utf8')).state);
}

export const workspacesDir = (dataDir: string) => join(stateDir(dataDir), 'workspaces');

/** Every committed blob, as `<folder>/<name>`. */
export function blobFiles(dataDir: string): string[] {
  const root = join(stateDir(dataDir), 'blobs');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((folder) => readdirSync(join(root, folder)).map((f) => `${folder}/${f}`));
}

/** Uploads on their way in. */
export const tempFiles = (dataDir: string) => (existsSync(join(dataDir, 'tmp')) ? readdirSync(join(dataDir, 'tmp')) : []);
