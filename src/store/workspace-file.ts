/** Workspace files: their names, and reading one back (checked, never repaired silently). */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HttpError } from '../errors/http-error.js';
import { readDataFile } from './store-errors.js';
import { WORKSPACE_FORMAT, type WorkspaceData } from '../model/records.js';

/**
 * A readable, reversible name for a principal's file (and blob folder); one that would be too
 * long for the file system (names are limited to 255 bytes) is named by its hash instead. The
 * principal is also recorded inside the file, so the name is never parsed.
 */
export function workspaceFileStem(principal: string): string {
  const readable = encodeURIComponent(principal).replace(/\./g, '%2E');
  return readable.length <= 200 ? readable : `sha256-${createHash('sha256').update(principal).digest('hex')}`;
}

export function workspaceFileName(principal: string): string {
  return `${workspaceFileStem(principal)}.json`;
}

/**
 * Reads a workspace file. One that is corrupt, foreign or of another format is left untouched
 * and every request of its principal answers 500 with one line naming it (it is read on first
 * use, not at start-up, so the mock still starts and serves everyone else).
 */
export function readWorkspaceFile(file: string, bytes?: Buffer): WorkspaceData {
  const data: any = readDataFile(file, 'it was left untouched — fix or remove it, or restart with --reset-data', broken, bytes);
  const ok =
    data && typeof data === 'object' && typeof data.principal === 'string' && Number.isInteger(data.next_id) &&
    Array.isArray(data.sessions) && Array.isArray(data.mailboxes) && Array.isArray(data.secrets);
  if (!ok) throw broken(`data file ${file} is not a cloud-browser-mock workspace; it was left untouched — remove it or restart with --reset-data`);
  if (data.format !== WORKSPACE_FORMAT) {
    throw broken(`data file ${file} has format ${JSON.stringify(data.format)}, this version reads format ${WORKSPACE_FORMAT}; restart with --reset-data to discard it`);
  }
  return data as WorkspaceData;
}

function broken(message: string): HttpError {
  return new HttpError(500, message);
}

/** The principals of the workspace files in `wsDir` (a readable name is decoded; a hashed one read). */
export function storedPrincipals(wsDir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(wsDir)) {
    if (!n.endsWith('.json')) continue;
    if (!n.startsWith('sha256-')) out.push(decodeURIComponent(n.slice(0, -'.json'.length)));
    else {
      try {
        out.push(readWorkspaceFile(join(wsDir, n)).principal);
      } catch {
        // a broken file answers when its principal is used
      }
    }
  }
  return out;
}
