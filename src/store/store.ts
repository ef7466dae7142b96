/**
 * The only module that knows where state lives (layout: data-dir.ts). Workspaces are read on
 * first use, when their records' blobs are checked and blobs no record names are collected —
 * not at start-up, which stays cheap however much is stored. In memory, the JSON state lives in
 * lowdb's Memory adapter and blobs in a temporary directory removed on close.
 *
 * Resets are crash-atomic: the new state is written first (a workspace file removed; for a
 * reset of everything, meta.json switched to a new, empty state directory), and only then are
 * the blobs nothing refers to any more removed. The workspace being replaced is detached first:
 * the writes already asked for are finished, and it never writes again.
 *
 * Workspaces are held in memory only while used (workspace-cache.ts): a new principal's is a
 * copy-on-write view of the scenario until its first write (no file until then), and past a bound
 * the least recently used are let go — read again, blobs checked, when next asked for.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Low, Memory } from 'lowdb';
import type { Clock } from '../primitives/clock.js';
import { loadScenarioFromRequest, type LoadedScenario } from '../scenarios/scenario.js';
import { BlobStore } from './blobs.js';
import { DataDir, openDataDir, type Meta } from './data-dir.js';
import type { DataDirLock } from './data-dir-lock.js';
import { CoalescingJsonFile } from './json-file.js';
import { serializeJson, type TextCache } from './json-text.js';
import { asStorageError } from './storage-error.js';
import { documentFrom, freezeTemplate, loadScenarioOrStop } from './template.js';
import type { WorkspaceData } from './types.js';
import { Workspace } from './workspace.js';
import { DEFAULT_WORKSPACES_IN_MEMORY, WorkspaceCache } from './workspace-cache.js';
import { readWorkspaceFile, storedPrincipals, workspaceFileName, workspaceFileStem } from './workspace-file.js';

export { StartupError } from './startup-error.js';
export { workspaceFileName } from './workspace-file.js';

export interface StoreOptions {
  /** Absolute path of the data directory; ignored when inMemory. */
  dataDir?: string;
  inMemory: boolean;
  scenario: string;
  seed: number;
  resetData?: boolean;
  clock: Clock;
  cwd?: string;
  /** Workspaces kept in memory beyond those in use (least recently used go first). */
  workspacesInMemory?: number;
  /** One line for the operator (a record whose bytes were missing, a lock being waited for). */
  warn?: (line: string) => void;
}

interface OnDisk {
  dir: DataDir;
  meta: Meta;
  lock: DataDirLock;
}

export class Store {
  readonly blobs: BlobStore;
  readonly signingKey: Buffer;
  #scenario: LoadedScenario;
  #seed: number;
  /** Workspaces being read from their file; once read they are in #cache. */
  #loading = new Map<string, Promise<Workspace>>();
  readonly #cache: WorkspaceCache;
  /** The scenario's workspace, which every view reads: indexes built once per scenario. */
  #base!: Workspace;
  /** Resets under way, by principal, and of everything: new uses of a workspace wait for them. */
  #resetting = new Map<string, Promise<void>>();
  #resettingAll: Promise<void> | null = null;
  /**
   * The JSON text of every frozen value: stored records, shared by all workspaces, and the replies
   * made of them (a listed file's view), which the pipeline writes with the same serializer.
   */
  readonly texts: TextCache = new WeakMap();
  readonly #opts: StoreOptions;
  readonly #disk: OnDisk | null;
  readonly #memoryDir: string | null;

  private constructor(opts: StoreOptions, scenario: LoadedScenario, signingKey: Buffer, blobs: BlobStore, disk: OnDisk | null, memoryDir: string | null) {
    this.#opts = opts;
    this.#scenario = freezeTemplate(scenario);
    this.#seed = opts.seed;
    this.signingKey = signingKey;
    this.blobs = blobs;
    this.#disk = disk;
    this.#memoryDir = memoryDir;
    // With no disk to go back to, a workspace that was written to must stay in memory.
    this.#cache = new WorkspaceCache(opts.workspacesInMemory ?? DEFAULT_WORKSPACES_IN_MEMORY, (ws) => disk !== null || !ws.materialized);
    this.#makeBase();
  }

  #makeBase(): void {
    const data = documentFrom(this.#scenario.template, '');
    this.#base = new Workspace(new Low<WorkspaceData>(new Memory<WorkspaceData>(), data), this.#seed, { blobs: this.blobs, folder: '' });
  }

  static async open(opts: StoreOptions): Promise<Store> {
    const loadedAt = opts.clock.now();
    let scenario = loadScenarioOrStop(opts.scenario, loadedAt, opts.cwd);
    if (opts.inMemory || !opts.dataDir) {
      const root = mkdtempSync(join(tmpdir(), 'cloud-browser-mock-blobs-'));
      return new Store(opts, scenario, randomBytes(32), new BlobStore(join(root, 'tmp'), join(root, 'blobs')), null, root);
    }
    const { dir, meta, lock } = await openDataDir(opts.dataDir, { ...opts, loadedAt });
    // A workspace never written has no file: it reads the scenario as loaded back then.
    if (typeof meta.loaded_at === 'number' && meta.loaded_at !== loadedAt) scenario = loadScenarioOrStop(opts.scenario, meta.loaded_at, opts.cwd);
    const blobs = new BlobStore(dir.tmpDir, join(dir.stateDir(meta.state), 'blobs'));
    return new Store(opts, scenario, Buffer.from(meta.signing_key, 'hex'), blobs, { dir, meta, lock }, null);
  }

  get scenario(): LoadedScenario {
    return this.#scenario;
  }

  get seed(): number {
    return this.#seed;
  }

  /**
   * The principal's workspace: the one in memory, else read from its file (on first use, or
   * after it was let go), else a new view of the active scenario.
   */
  workspace(principal: string): Promise<Workspace> {
    const waitFor = this.#resettingAll ?? this.#resetting.get(principal);
    if (waitFor) return waitFor.then(() => this.workspace(principal));
    const held = this.#cache.get(principal);
    if (held) return Promise.resolve(held);
    let ws = this.#loading.get(principal);
    if (!ws) {
      const made = this.#open(principal);
      ws = made;
      this.#loading.set(principal, made);
      made.then(
        (w) => {
          if (this.#loading.get(principal) !== made) return;
          this.#loading.delete(principal);
          this.#cache.set(principal, w);
        },
        () => {
          if (this.#loading.get(principal) === made) this.#loading.delete(principal);
        },
      );
    }
    return ws;
  }

  /** Every workspace in memory (held, or being read). */
  async #inMemory(): Promise<Workspace[]> {
    const loading = await Promise.allSettled([...this.#loading.values()]);
    const all = new Set(this.#cache.values());
    for (const r of loading) if (r.status === 'fulfilled') all.add(r.value);
    return [...all];
  }

  /** Principals with a workspace (in memory, or stored on disk and not read now). */
  principals(): string[] {
    const all = new Set([...this.#cache.keys(), ...this.#loading.keys()]);
    const wsDir = this.#wsDir();
    if (wsDir) for (const p of storedPrincipals(wsDir)) all.add(p);
    return [...all];
  }

  #wsDir(): string | null {
    return this.#disk ? join(this.#disk.dir.stateDir(this.#disk.meta.state), 'workspaces') : null;
  }

  async #open(principal: string): Promise<Workspace> {
    const wsDir = this.#wsDir();
    const file = wsDir ? join(wsDir, workspaceFileName(principal)) : null;
    const folder = workspaceFileStem(principal);
    if (file && existsSync(file)) return this.#load(file, folder);
    // The state directory at the view's first write (a reset of everything detaches it first).
    const view: Workspace = new Workspace(
      {
        base: this.#base,
        principal,
        open: (data) => {
          this.#cache.keep(principal, view);
          return this.#place(data, file);
        },
      },
      this.#seed,
      { blobs: this.blobs, folder },
    );
    return view;
  }

  /** Where a workspace's document is kept: its file (written coalesced), or memory. */
  #place(data: WorkspaceData, file: string | null): { db: Low<WorkspaceData>; reload?: () => WorkspaceData; close?: () => Promise<void> } {
    if (!file) return { db: new Low<WorkspaceData>(new Memory<WorkspaceData>(), data) };
    const adapter = new CoalescingJsonFile<WorkspaceData>(file, (d) => serializeJson(d, this.texts));
    return { db: new Low<WorkspaceData>(adapter, data), reload: () => readWorkspaceFile(file), close: () => adapter.close() };
  }

  #make(data: WorkspaceData, file: string | null, folder: string): Workspace {
    const { db, reload, close } = this.#place(data, file);
    return new Workspace(db, this.#seed, { blobs: this.blobs, folder, reload, close });
  }

  /**
   * First use of a stored workspace: every record's blob is checked (a record whose bytes are
   * gone is dropped, with a warning, rather than answering 200 and then a reset connection),
   * and blobs in its folder that no record names are collected.
   */
  async #load(file: string, folder: string): Promise<Workspace> {
    const data = readWorkspaceFile(file);
    const wanted: string[] = [];
    for (const s of data.sessions) for (const f of s.files) if (f.blob) wanted.push(f.blob);
    const present = this.blobs.checkFolder(folder, wanted);
    let dropped = 0;
    for (const s of data.sessions) {
      const kept = s.files.filter((f) => !f.blob || present.has(f.blob));
      dropped += s.files.length - kept.length;
      s.files = kept;
    }
    const ws = this.#make(data, file, folder);
    if (dropped) {
      this.#opts.warn?.(`workspace of ${data.principal}: ${dropped} file record(s) whose bytes were missing from ${folder} were dropped`);
      await ws.save();
    }
    return ws;
  }

  /** Resets one workspace (or all) to the active scenario. */
  async reset(principal?: string): Promise<void> {
    if (principal === undefined) return this.#resetAll(null);
    await this.#resettingAll;
    const before = this.#resetting.get(principal);
    const done = (async () => {
      await before?.catch(() => undefined);
      const ws = this.#cache.get(principal) ?? (await this.#loading.get(principal)?.catch(() => null));
      this.#cache.delete(principal);
      this.#loading.delete(principal);
      await ws?.detach();
      const wsDir = this.#wsDir();
      // The new state first (no file: the scenario's state on next use), then the blobs.
      if (wsDir) await unlink(join(wsDir, workspaceFileName(principal))).catch((e) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)));
      this.blobs.removeFolder(workspaceFileStem(principal));
    })();
    this.#resetting.set(principal, done);
    try {
      await done;
    } finally {
      if (this.#resetting.get(principal) === done) this.#resetting.delete(principal);
    }
  }

  /** Switches the active scenario (and seed) and resets every workspace. */
  async switchScenario(ref: string, seed: number): Promise<void> {
    // Asynchronous, and errors that never quote the file: the path came from an HTTP request.
    const loadedAt = this.#opts.clock.now();
    const scenario = freezeTemplate(await loadScenarioFromRequest(ref, loadedAt, this.#opts.cwd));
    await this.#resetAll({ ref, scenario, seed, loadedAt });
  }

  async #resetAll(next: { ref: string; scenario: LoadedScenario; seed: number; loadedAt: number } | null): Promise<void> {
    while (this.#resettingAll) await this.#resettingAll.catch(() => undefined);
    const done = (async () => {
      await Promise.allSettled([...this.#resetting.values()]);
      const all = await this.#inMemory();
      this.#cache.clear();
      this.#loading.clear();
      await Promise.all(all.map((ws) => ws.detach()));
      const disk = this.#disk;
      if (disk) {
        // A new, empty state directory, then meta.json pointing at it (the commit point), then
        // the old one goes — a crash at any instant leaves the old state or the new, whole.
        const old = disk.dir.stateDir(disk.meta.state);
        const meta: Meta = { ...disk.meta, state: DataDir.newState(), ...(next ? { scenario: next.ref, seed: next.seed, loaded_at: next.loadedAt } : {}) };
        mkdirSync(join(disk.dir.stateDir(meta.state), 'workspaces'), { recursive: true });
        this.blobs.setRoot(join(disk.dir.stateDir(meta.state), 'blobs'));
        try {
          disk.dir.writeMeta(meta);
        } catch (e) {
          this.blobs.setRoot(join(old, 'blobs'));
          rmSync(disk.dir.stateDir(meta.state), { recursive: true, force: true });
          throw e;
        }
        disk.meta = meta;
        rmSync(old, { recursive: true, force: true });
      } else {
        for (const ws of all) this.blobs.removeFolder(ws.folder);
      }
      if (next) {
        this.#scenario = next.scenario;
        this.#seed = next.seed;
        this.#makeBase();
      }
    })();
    this.#resettingAll = done;
    try {
      await done;
    } catch (e) {
      throw asStorageError(e);
    } finally {
      this.#resettingAll = null;
    }
  }

  async close(): Promise<void> {
    await this.#resettingAll?.catch(() => undefined);
    for (const ws of await this.#inMemory()) await ws.save().catch(() => undefined);
    this.#disk?.lock.release();
    if (this.#memoryDir) rmSync(this.#memoryDir, { recursive: true, force: true });
  }
}
