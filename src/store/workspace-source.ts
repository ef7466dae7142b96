/**
 * Where a principal's workspace comes from when the store has none in memory: its stored file
 * (blobs checked on this first read), or else a copy-on-write view of the scenario's workspace,
 * which gets a file (or a document in memory) only at its first write.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Low, Memory } from 'lowdb';
import type { BlobStore } from './blobs.js';
import { CoalescingJsonFile } from './json-file.js';
import { serializeJson, type TextCache } from './json-text.js';
import type { WorkspaceData } from '../model/records.js';
import { Workspace } from './workspace.js';
import { readWorkspaceFile, workspaceFileName, workspaceFileStem } from './workspace-file.js';

/** The store's parts every workspace it opens shares. */
export interface WorkspaceSourceDeps {
  blobs: BlobStore;
  /** The JSON text of every stored record, shared by all workspaces (records are immutable). */
  texts: TextCache;
  seed: number;
  warn?: (line: string) => void;
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
  const file = wsDir ? join(wsDir, workspaceFileName(principal)) : null;
  const folder = workspaceFileStem(principal);
  if (file && existsSync(file)) return load(deps, file, folder);
  // The state directory at the view's first write (a reset of everything detaches it first).
  const view: Workspace = new Workspace(
    {
      base,
      principal,
      open: (data) => {
        keep(view);
        return place(deps, data, file);
      },
    },
    deps.seed,
    { blobs: deps.blobs, folder },
  );
  return view;
}

/** Where a workspace's document is kept: its file (written coalesced), or memory. */
function place(deps: WorkspaceSourceDeps, data: WorkspaceData, file: string | null): { db: Low<WorkspaceData>; reload?: () => WorkspaceData; close?: () => Promise<void> } {
  if (!file) return { db: new Low<WorkspaceData>(new Memory<WorkspaceData>(), data) };
  const adapter = new CoalescingJsonFile<WorkspaceData>(file, (d) => serializeJson(d, deps.texts));
  return { db: new Low<WorkspaceData>(adapter, data), reload: () => readWorkspaceFile(file), close: () => adapter.close() };
}

/**
 * First use of a stored workspace: every record's blob is checked (a record whose bytes are
 * gone is dropped, with a warning, rather than answering 200 and then a reset connection),
 * and blobs in its folder that no record names are collected.
 */
async function load(deps: WorkspaceSourceDeps, file: string, folder: string): Promise<Workspace> {
  const data = readWorkspaceFile(file);
  const wanted: string[] = [];
  for (const s of data.sessions) for (const f of s.files) if (f.blob) wanted.push(f.blob);
  const present = deps.blobs.checkFolder(folder, wanted);
  let dropped = 0;
  for (const s of data.sessions) {
    const kept = s.files.filter((f) => !f.blob || present.has(f.blob));
    dropped += s.files.length - kept.length;
    s.files = kept;
  }
  const { db, reload, close } = place(deps, data, file);
  const ws = new Workspace(db, deps.seed, { blobs: deps.blobs, folder, reload, close });
  if (dropped) {
    deps.warn?.(`workspace of ${data.principal}: ${dropped} file record(s) whose bytes were missing from ${folder} were dropped`);
    await ws.save();
  }
  return ws;
}
