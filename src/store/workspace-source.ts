/**
 * Where a principal's workspace comes from when the store has none in memory: its stored file
 * (replayed and its blobs checked on this first read: recovery.ts), or else a copy-on-write view of the scenario's workspace,
 * which gets a file (or a document in memory) only at its first write.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Low, Memory } from 'lowdb';
import type { BlobStore } from './blobs.js';
import { checkBlobs, readBack, recoverWorkspace, type Recovered } from './recovery.js';
import type { TextCache } from './json-text.js';
import type { WorkspaceData } from '../model/records.js';
import { Workspace } from './workspace.js';
import { workspaceFileName, workspaceFileStem } from './workspace-file.js';
import { WorkspaceLog, type Compaction } from './log-writer.js';
import type { TestHooks } from './test-hooks.js';

/** The store's parts every workspace it opens shares. */
export interface WorkspaceSourceDeps {
  blobs: BlobStore;
  /** The JSON text of every stored record, shared by all workspaces (records are immutable). */
  texts: TextCache;
  seed: number;
  warn?: (line: string) => void;
  /** Compaction of the change logs (default on; the benchmark turns it off to make a long log). */
  compactLogs?: boolean;
  onCompaction?: (c: Compaction) => void;
  hooks?: TestHooks;
}

export interface WorkspaceRequest {
  principal: string;
  /** The state directory's workspaces folder; null in memory. */
  wsDir: string | null;
  /** The scenario's workspace, which a view reads. */
  base: Workspace;
  /** Called at a view's first write: from then on the store must hold it in memory. */
  keep: (view: Workspace) => void;
}

export async function openWorkspace(deps: WorkspaceSourceDeps, { principal, wsDir, base, keep }: WorkspaceRequest): Promise<Workspace> {
  const folder = workspaceFileStem(principal);
  if (wsDir && existsSync(join(wsDir, workspaceFileName(principal)))) return load(deps, wsDir, folder);
  // The state directory at the view's first write (a reset of everything detaches it first).
  const view: Workspace = new Workspace(
    {
      base,
      principal,
      open: (data) => {
        keep(view);
        return place(deps, data, wsDir, folder);
      },
    },
    deps.seed,
    { blobs: deps.blobs, folder },
  );
  return view;
}

/**
 * Where a workspace's document is kept: lowdb's in-memory document, written on disk as a
 * snapshot and a change log (log-writer.ts; a new one's first save writes its snapshot), or
 * only in memory.
 */
function place(deps: WorkspaceSourceDeps, data: WorkspaceData, wsDir: string | null, stem: string, recovered?: Omit<Recovered, 'data'>): { db: Low<WorkspaceData>; reload?: () => WorkspaceData; close?: () => Promise<void>; log?: WorkspaceLog } {
  const db = new Low<WorkspaceData>(new Memory<WorkspaceData>(), data);
  if (!wsDir) return { db };
  const file = join(wsDir, workspaceFileName(data.principal));
  const log = new WorkspaceLog(
    { wsDir, stem, texts: deps.texts, document: () => db.data, compact: deps.compactLogs, onCompaction: deps.onCompaction, warn: deps.warn, hooks: deps.hooks },
    recovered,
  );
  return { db, reload: () => readBack(wsDir, stem, file, deps.hooks), close: () => log.close(), log };
}

/** First use of a stored workspace: replayed, then its blobs checked (recovery.ts). */
async function load(deps: WorkspaceSourceDeps, wsDir: string, folder: string): Promise<Workspace> {
  const { data, ...position } = recoverWorkspace(wsDir, folder, join(wsDir, `${folder}.json`), { hooks: deps.hooks });
  const dropped = checkBlobs(deps.blobs, folder, data);
  const { db, reload, close, log } = place(deps, data, wsDir, folder, position);
  const ws = new Workspace(db, deps.seed, { blobs: deps.blobs, folder, reload, close, log });
  if (dropped) {
    deps.warn?.(`workspace of ${data.principal}: ${dropped} file record(s) whose bytes were missing from ${folder} were dropped`);
    ws.snapshotNext();
    await ws.save();
  }
  return ws;
}
