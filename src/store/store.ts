/**
 * The only module that knows where state lives. A data directory holds `meta.json` (scenario,
 * seed, token-signing key), one lowdb JSON file per workspace under `workspaces/`, and uploaded
 * bytes under `blobs/` (CONTRACT §8). In memory, the JSON state lives in lowdb's Memory adapter
 * and blobs in a temporary directory removed on close.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Low, Memory, type Adapter } from 'lowdb';
import type { Clock } from '../mock/clock.js';
import { loadScenario, loadScenarioFromRequest, type LoadedScenario } from '../scenarios/scenario.js';
import { BlobStore } from './blobs.js';
import { CoalescingJsonFile } from './json-file.js';
import { deepFreeze, serializeJson, type TextCache } from './json-text.js';
import { WORKSPACE_FORMAT, type WorkspaceData } from './types.js';
import { Workspace } from './workspace.js';

/** A problem that stops start-up; its message is one line for the user. */
export class StartupError extends Error {}

export interface StoreOptions {
  /** Absolute path of the data directory; ignored when inMemory. */
  dataDir?: string;
  inMemory: boolean;
  scenario: string;
  seed: number;
  resetData?: boolean;
  clock: Clock;
  cwd?: string;
}

interface Meta {
  format: typeof META_FORMAT;
  scenario: string;
  seed: number;
  signing_key: string;
}

/**
 * The data directory's format. 2: API keys became their owners' principals and other tokens'
 * principal ids grew to 24 hex digits (issue 11), which renames workspaces on disk — a format-1
 * directory stops start-up rather than leave its workspaces silently orphaned.
 */
const META_FORMAT = 2;

export class Store {
  readonly blobs: BlobStore;
  readonly signingKey: Buffer;
  #scenario: LoadedScenario;
  #seed: number;
  #workspaces = new Map<string, Promise<Workspace>>();
  /** The JSON text of every stored record, shared by all workspaces (records are immutable). */
  readonly #texts: TextCache = new WeakMap();
  readonly #opts: StoreOptions;
  readonly #wsDir: string | null;

  private constructor(opts: StoreOptions, scenario: LoadedScenario, signingKey: Buffer, blobs: BlobStore, wsDir: string | null) {
    this.#opts = opts;
    this.#scenario = freezeTemplate(scenario);
    this.#seed = opts.seed;
    this.signingKey = signingKey;
    this.blobs = blobs;
    this.#wsDir = wsDir;
  }

  static async open(opts: StoreOptions): Promise<Store> {
    const scenario = loadScenarioOrStop(opts.scenario, opts.clock.now(), opts.cwd);
    if (opts.inMemory || !opts.dataDir) {
      const blobs = new BlobStore(mkdtempSync(join(tmpdir(), 'cloud-browser-mock-blobs-')));
      return new Store(opts, scenario, randomBytes(32), blobs, null);
    }
    const dir = opts.dataDir;
    const metaFile = join(dir, 'meta.json');
    const wsDir = join(dir, 'workspaces');
    if (opts.resetData) {
      for (const p of [metaFile, wsDir, join(dir, 'blobs')]) rmSync(p, { recursive: true, force: true });
    }
    mkdirSync(wsDir, { recursive: true });
    let meta = readMeta(metaFile);
    if (meta && (meta.scenario !== opts.scenario || meta.seed !== opts.seed)) {
      throw new StartupError(
        `data directory ${dir} holds scenario ${JSON.stringify(meta.scenario)} with seed ${meta.seed}, not ${JSON.stringify(opts.scenario)} with seed ${opts.seed}; start with --reset-data to discard it, or use another --data-dir`,
      );
    }
    if (!meta) {
      meta = { format: META_FORMAT, scenario: opts.scenario, seed: opts.seed, signing_key: randomBytes(32).toString('hex') };
      writeAtomically(metaFile, JSON.stringify(meta, null, 2));
    }
    const store = new Store(opts, scenario, Buffer.from(meta.signing_key, 'hex'), new BlobStore(join(dir, 'blobs')), wsDir);
    await store.#loadAll();
    return store;
  }

  get scenario(): LoadedScenario {
    return this.#scenario;
  }

  get seed(): number {
    return this.#seed;
  }

  /** The principal's workspace, created from the active scenario on first use. */
  workspace(principal: string): Promise<Workspace> {
    let ws = this.#workspaces.get(principal);
    if (!ws) {
      ws = this.#create(principal);
      this.#workspaces.set(principal, ws);
      ws.catch(() => this.#workspaces.delete(principal));
    }
    return ws;
  }

  /** Principals with a workspace. */
  principals(): string[] {
    return [...this.#workspaces.keys()];
  }

  async #create(principal: string): Promise<Workspace> {
    // The scenario's records are frozen values, so a new workspace shares them and copies only
    // the lists that hold them (same keys, same order as the template).
    const t = this.#scenario.template;
    const data: WorkspaceData = {
      format: t.format,
      next_id: t.next_id,
      sessions: t.sessions.map((s) => ({ id: s.id, actions: s.actions, files: [...s.files] })),
      mailboxes: [...t.mailboxes],
      secrets: [...t.secrets],
      principal,
    };
    const db = new Low<WorkspaceData>(this.#adapter(principal), data);
    const ws = new Workspace(db, this.#seed);
    await ws.save();
    return ws;
  }

  #adapter(principal: string): Adapter<WorkspaceData> {
    return this.#wsDir ? this.#file(join(this.#wsDir, workspaceFileName(principal))) : new Memory<WorkspaceData>();
  }

  #file(path: string): CoalescingJsonFile<WorkspaceData> {
    return new CoalescingJsonFile<WorkspaceData>(path, (data) => serializeJson(data, this.#texts));
  }

  async #loadAll(): Promise<void> {
    const referenced = new Set<string>();
    for (const name of readdirSync(this.#wsDir!)) {
      // A temporary file is a rewrite a crash interrupted; the file it was replacing is intact.
      if (name.endsWith('.tmp')) {
        rmSync(join(this.#wsDir!, name), { force: true });
        continue;
      }
      if (!name.endsWith('.json')) continue;
      const file = join(this.#wsDir!, name);
      const data = readWorkspaceFile(file);
      const db = new Low<WorkspaceData>(this.#file(file), data);
      const ws = new Workspace(db, this.#seed);
      for (const b of ws.blobNames()) referenced.add(b);
      this.#workspaces.set(data.principal, Promise.resolve(ws));
    }
    // Blobs no record names are leftovers of a crash mid-upload or mid-delete.
    this.blobs.sweep(referenced);
  }

  /** Resets one workspace (or all) to the active scenario. */
  async reset(principal?: string): Promise<void> {
    const targets = principal === undefined ? this.principals() : [principal];
    for (const p of targets) {
      const ws = await this.#workspaces.get(p);
      if (!ws) continue;
      for (const b of ws.blobNames()) await this.blobs.discard(b);
      this.#workspaces.delete(p);
      if (this.#wsDir) rmSync(join(this.#wsDir, workspaceFileName(p)), { force: true });
    }
  }

  /** Switches the active scenario (and seed) and resets every workspace. */
  async switchScenario(ref: string, seed: number): Promise<void> {
    // Asynchronous, and errors that never quote the file: the path came from an HTTP request.
    const scenario = freezeTemplate(await loadScenarioFromRequest(ref, this.#opts.clock.now(), this.#opts.cwd));
    await this.reset();
    this.#scenario = scenario;
    this.#seed = seed;
    if (this.#opts.dataDir && !this.#opts.inMemory) {
      const metaFile = join(this.#opts.dataDir, 'meta.json');
      const meta = readMeta(metaFile)!;
      writeAtomically(metaFile, JSON.stringify({ ...meta, scenario: ref, seed }, null, 2));
    }
  }

  async close(): Promise<void> {
    const all = await Promise.allSettled(this.#workspaces.values());
    for (const r of all) if (r.status === 'fulfilled') await r.value.save();
    if (!this.#wsDir) this.blobs.destroy();
  }
}

function loadScenarioOrStop(ref: string, now: number, cwd?: string): LoadedScenario {
  try {
    return loadScenario(ref, now, cwd);
  } catch (e) {
    // The cause tells the CLI the scenario it was given is at fault (exit 2, not 1).
    throw new StartupError((e as Error).message, { cause: e });
  }
}

/** Freezes the template's records (not its lists), which workspaces then share. */
function freezeTemplate(scenario: LoadedScenario): LoadedScenario {
  const t = scenario.template;
  for (const s of t.sessions) {
    deepFreeze(s.actions);
    for (const f of s.files) deepFreeze(f);
  }
  for (const m of t.mailboxes) deepFreeze(m);
  for (const s of t.secrets) deepFreeze(s);
  return scenario;
}

/**
 * A readable, reversible file name for a principal; one that would be too long for the file
 * system (names are limited to 255 bytes) is named by its hash instead. The principal is also
 * recorded inside the file, so the name is never parsed.
 */
export function workspaceFileName(principal: string): string {
  const readable = encodeURIComponent(principal).replace(/\./g, '%2E');
  return readable.length <= 200 ? `${readable}.json` : `sha256-${createHash('sha256').update(principal).digest('hex')}.json`;
}

function writeAtomically(file: string, text: string) {
  const temp = `${file}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

function readMeta(file: string): Meta | null {
  if (!existsSync(file)) return null;
  let meta: any;
  try {
    meta = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new StartupError(`data file ${file} is not valid JSON (${(e as Error).message}); fix or remove it, or start with --reset-data`);
  }
  if (!meta || typeof meta !== 'object' || typeof meta.scenario !== 'string' || typeof meta.seed !== 'number' || typeof meta.signing_key !== 'string') {
    throw new StartupError(`data file ${file} is not a cloud-browser-mock meta file; start with --reset-data to discard the data directory`);
  }
  if (meta.format !== META_FORMAT) {
    throw new StartupError(`data file ${file} has format ${JSON.stringify(meta.format)}, this version reads format ${META_FORMAT}; start with --reset-data to discard it`);
  }
  return meta as Meta;
}

function readWorkspaceFile(file: string): WorkspaceData {
  let data: any;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new StartupError(`data file ${file} is not valid JSON (${(e as Error).message}); it was left untouched — fix or remove it, or start with --reset-data`);
  }
  const ok =
    data && typeof data === 'object' && typeof data.principal === 'string' && Number.isInteger(data.next_id) &&
    Array.isArray(data.sessions) && Array.isArray(data.mailboxes) && Array.isArray(data.secrets);
  if (!ok) throw new StartupError(`data file ${file} is not a cloud-browser-mock workspace; it was left untouched — remove it or start with --reset-data`);
  if (data.format !== WORKSPACE_FORMAT) {
    throw new StartupError(`data file ${file} has format ${JSON.stringify(data.format)}, this version reads format ${WORKSPACE_FORMAT}; start with --reset-data to discard it`);
  }
  return data as WorkspaceData;
}
