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
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Low, Memory } from 'lowdb';
import type { Clock } from '../mock/clock.js';
import { loadScenarioFromRequest, type LoadedScenario } from '../scenarios/scenario.js';
import { BlobStore } from './blobs.js';
import { DataDir, openDataDir, type Meta } from './data-dir.js';
import type { DataDirLock } from './data-dir-lock.js';
import { CoalescingJsonFile } from './json-file.js';
import { serializeJson, type TextCache } from './json-text.js';
import { asStorageError } from './storage-error.js';
import { freezeTemplate, loadScenarioOrStop } from './template.js';
import type { WorkspaceData } from './types.js';
import { Workspace } from './workspace.js';
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
  #workspaces = new Map<string, Promise<Workspace>>();
  /** Resets under way, by principal, and of everything: new uses of a workspace wait for them. */
  #resetting = new Map<string, Promise<void>>();
  #resettingAll: Promise<void> | null = null;
  /** The JSON text of every stored record, shared by all workspaces (records are immutable). */
  readonly #texts: TextCache = new WeakMap();
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
  }

  static async open(opts: StoreOptions): Promise<Store> {
    const scenario = loadScenarioOrStop(opts.scenario, opts.clock.now(), opts.cwd);
    if (opts.inMemory || !opts.dataDir) {
      const root = mkdtempSync(join(tmpdir(), 'cloud-browser-mock-blobs-'));
      return new Store(opts, scenario, randomBytes(32), new BlobStore(join(root, 'tmp'), join(root, 'blobs')), null, root);
    }
    const { dir, meta, lock } = await openDataDir(opts.dataDir, opts);
    const blobs = new BlobStore(dir.tmpDir, join(dir.stateDir(meta.state), 'blobs'));
    return new Store(opts, scenario, Buffer.from(meta.signing_key, 'hex'), blobs, { dir, meta, lock }, null);
  }

  get scenario(): LoadedScenario {
    return this.#scenario;
  }

  get seed(): number {
    return this.#seed;
  }

  /** The principal's workspace: read on first use, or made from the active scenario. */
  workspace(principal: string): Promise<Workspace> {
    const waitFor = this.#resettingAll ?? this.#resetting.get(principal);
    if (waitFor) return waitFor.then(() => this.workspace(principal));
    let ws = this.#workspaces.get(principal);
    if (!ws) {
      const made = this.#open(principal);
      ws = made;
      this.#workspaces.set(principal, made);
      made.catch(() => {
        if (this.#workspaces.get(principal) === made) this.#workspaces.delete(principal);
      });
    }
    return ws;
  }

  /** Principals with a workspace (loaded, or stored on disk and not read yet). */
  principals(): string[] {
    const all = new Set(this.#workspaces.keys());
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
    const ws = this.#make(data, file, folder);
    await ws.save();
    return ws;
  }

  #make(data: WorkspaceData, file: string | null, folder: string): Workspace {
    if (!file) return new Workspace(new Low<WorkspaceData>(new Memory<WorkspaceData>(), data), this.#seed, { blobs: this.blobs, folder });
    const adapter = new CoalescingJsonFile<WorkspaceData>(file, (d) => serializeJson(d, this.#texts));
    return new Workspace(new Low<WorkspaceData>(adapter, data), this.#seed, {
      blobs: this.blobs,
      folder,
      reload: () => readWorkspaceFile(file),
      close: () => adapter.close(),
    });
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
      const ws = await this.#workspaces.get(principal)?.catch(() => null);
      this.#workspaces.delete(principal);
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
    const scenario = freezeTemplate(await loadScenarioFromRequest(ref, this.#opts.clock.now(), this.#opts.cwd));
    await this.#resetAll({ ref, scenario, seed });
  }

  async #resetAll(next: { ref: string; scenario: LoadedScenario; seed: number } | null): Promise<void> {
    while (this.#resettingAll) await this.#resettingAll.catch(() => undefined);
    const done = (async () => {
      await Promise.allSettled([...this.#resetting.values()]);
      const all = await Promise.allSettled([...this.#workspaces.values()]);
      this.#workspaces.clear();
      await Promise.all(all.map((r) => (r.status === 'fulfilled' ? r.value.detach() : undefined)));
      const disk = this.#disk;
      if (disk) {
        // A new, empty state directory, then meta.json pointing at it (the commit point), then
        // the old one goes — a crash at any instant leaves the old state or the new, whole.
        const old = disk.dir.stateDir(disk.meta.state);
        const meta: Meta = { ...disk.meta, state: DataDir.newState(), ...(next ? { scenario: next.ref, seed: next.seed } : {}) };
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
        for (const r of all) if (r.status === 'fulfilled') this.blobs.removeFolder(r.value.folder);
      }
      if (next) {
        this.#scenario = next.scenario;
        this.#seed = next.seed;
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
    const all = await Promise.allSettled(this.#workspaces.values());
    for (const r of all) if (r.status === 'fulfilled') await r.value.save().catch(() => undefined);
    this.#disk?.lock.release();
    if (this.#memoryDir) rmSync(this.#memoryDir, { recursive: true, force: true });
  }
}
