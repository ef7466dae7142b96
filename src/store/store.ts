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
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Low, Memory } from 'lowdb';
import type { Clock } from '../primitives/clock.js';
import { loadScenario, ScenarioSchema, type LoadedScenario } from '../scenarios/scenario.js';
import { youngGarbageCollector } from '../primitives/young-gc.js';
import { BlobStore } from './blobs.js';
import { openDataDir, switchState } from './data-dir.js';
import type { OnDisk, StoreOptions } from './store-options.js';
import type { TextCache } from './json-text.js';
import { asStorageError, ignoreMissing } from './store-errors.js';
import { documentFrom, freezeTemplate, loadScenarioOrStop } from './template.js';
import type { WorkspaceData } from '../model/records.js';
import { Workspace } from './workspace.js';
import { DEFAULT_WORKSPACES_IN_MEMORY, WorkspaceCache } from './workspace-cache.js';
import { storedPrincipals, workspaceFileName, workspaceFileStem } from './workspace-file.js';
import { openWorkspace } from './workspace-source.js';
import { parseLogFileName } from './log-format.js';
import { NO_HOOKS, type TestHooks } from './test-hooks.js';

export { StartupError } from './store-errors.js';
export { workspaceFileName } from './workspace-file.js';

export type { StoreOptions } from './store-options.js';

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
  /** The scenario schema, compiled once for this store when a scenario file first needs it. */
  readonly #schema: ScenarioSchema;
  /** Named crash instants, under test only (test-hooks.ts): an option, never the environment. */
  readonly #hooks: TestHooks;

  private constructor(opts: StoreOptions, schema: ScenarioSchema, scenario: LoadedScenario, signingKey: Buffer, blobs: BlobStore, disk: OnDisk | null, memoryDir: string | null) {
    this.#opts = opts;
    this.#hooks = opts.testHooks ?? NO_HOOKS;
    this.#schema = schema;
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
    const schema = new ScenarioSchema();
    let scenario = await loadScenarioOrStop(opts.scenario, loadedAt, opts.cwd, schema);
    opts.acceptScenario?.(scenario);
    const blobOptions = { collectYoungGarbage: opts.gcDuringUploads ? youngGarbageCollector() : undefined };
    if (opts.inMemory || !opts.dataDir) {
      const root = mkdtempSync(join(tmpdir(), 'cloud-browser-mock-blobs-'));
      return new Store(opts, schema, scenario, randomBytes(32), new BlobStore(join(root, 'tmp'), join(root, 'blobs'), blobOptions), null, root);
    }
    const { dir, meta, lock } = await openDataDir(opts.dataDir, { ...opts, loadedAt });
    // A workspace never written has no file: it reads the scenario as loaded back then.
    if (typeof meta.loaded_at === 'number' && meta.loaded_at !== loadedAt) scenario = await loadScenarioOrStop(opts.scenario, meta.loaded_at, opts.cwd, schema);
    const blobs = new BlobStore(dir.tmpDir, join(dir.stateDir(meta.state), 'blobs'), blobOptions);
    return new Store(opts, schema, scenario, Buffer.from(meta.signing_key, 'hex'), blobs, { dir, meta, lock }, null);
  }

  get scenario(): LoadedScenario {
    return this.#scenario;
  }

  get seed(): number {
    return this.#seed;
  }

  /** The clock every timestamp of this store is read from (createApp's, when it opened it). */
  get clock(): Clock {
    return this.#opts.clock;
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

  #open(principal: string): Promise<Workspace> {
    return openWorkspace(
      { blobs: this.blobs, texts: this.texts, seed: this.#seed, warn: this.#opts.warn, compactLogs: this.#opts.compactLogs, onCompaction: this.#opts.onCompaction, hooks: this.#hooks },
      { principal, wsDir: this.#wsDir(), base: this.#base, keep: (view) => this.#cache.keep(principal, view) },
    );
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
      const stem = workspaceFileStem(principal);
      // The new state first (no snapshot: the scenario's state on next use), then its change log
      // (a log without a snapshot is never read, and the start-up sweep removes one a crash
      // left), then the blobs.
      if (wsDir) {
        await unlink(join(wsDir, workspaceFileName(principal))).catch(ignoreMissing);
        this.#hooks.reach('mid-reset');
        for (const n of await readdir(wsDir)) if (parseLogFileName(n)?.[0] === stem) await unlink(join(wsDir, n)).catch(ignoreMissing);
      }
      this.blobs.removeFolder(stem);
    })();
    this.#resetting.set(principal, done);
    try {
      await done;
    } finally {
      if (this.#resetting.get(principal) === done) this.#resetting.delete(principal);
    }
  }

  /**
   * Switches the active scenario (and seed) and resets every workspace. `accept` sees the loaded
   * scenario first and may refuse it by throwing (its pins name an operation the document lacks),
   * which leaves everything as it was.
   */
  async switchScenario(ref: string, seed: number, accept?: (scenario: LoadedScenario) => void): Promise<void> {
    // Asynchronous, and errors that never quote the file: the path came from an HTTP request.
    const loadedAt = this.#opts.clock.now();
    const scenario = freezeTemplate(await loadScenario(ref, loadedAt, this.#opts.cwd, { quoteContent: false, schema: this.#schema }));
    accept?.(scenario);
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
        const old = disk.dir.stateDir(disk.meta.state);
        disk.meta = switchState(disk.dir, disk.meta, this.blobs, next && { scenario: next.ref, seed: next.seed, loaded_at: next.loadedAt });
        this.#hooks.reach('mid-reset');
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
    // Every change written; then each log lets go (a compaction under way finishes first).
    for (const ws of await this.#inMemory()) {
      await ws.save().catch(() => undefined);
      await ws.detach().catch(() => undefined);
    }
    this.#disk?.lock.release();
    if (this.#memoryDir) rmSync(this.#memoryDir, { recursive: true, force: true });
  }
}
