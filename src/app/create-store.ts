/**
 * createStore(options): the store createApp makes from its options, also public so that a test
 * can open one, arrange data in it directly and hand it to `createApp({ store })`.
 */
import { resolve } from 'node:path';
import { DEFAULTS, type MockOptions } from '../options.js';
import { Clock } from '../primitives/clock.js';
import { Store } from '../store/store.js';
import type { StoreOptions } from '../store/store-options.js';

/**
 * What only createApp knows: whether a proxy runs (then the store is never used) and its log;
 * and what only the benchmark sets: compaction of the change logs held off (`compactLogs: false`).
 */
export interface StoreSetup extends Pick<StoreOptions, 'compactLogs' | 'onCompaction' | 'acceptScenario'> {
  proxy?: boolean;
  warn?: (line: string) => void;
}

/**
 * Opens the store `createApp(options)` would: in memory unless `dataDir` is given, loaded with
 * `scenario` at `clock`'s time (a new Clock when none is given).
 *
 * @example
 * ```ts
 * const store = await createStore({ scenario: 'empty' });
 * // sk_test_demo is the key of dev@example.com, whose workspace is user:dev@example.com
 * const ws = await store.workspace('user:dev@example.com');
 * ws.addSecret({ id: 'sec_x', namespace: 'llm_provider', name: 'KEY', value: 'v', key_hint: '***', created_at: store.clock.now(), last_used_at: null });
 * const app = await createApp({ store });
 * ```
 */
export function createStore(options: MockOptions = {}, { proxy = false, warn, compactLogs, onCompaction, acceptScenario }: StoreSetup = {}): Promise<Store> {
  return Store.open({
    // A proxy never uses the local store: kept in memory, so no data directory is made or touched.
    inMemory: proxy ? true : (options.inMemory ?? !options.dataDir),
    dataDir: !proxy && options.dataDir ? resolve(options.cwd ?? process.cwd(), options.dataDir) : undefined,
    scenario: options.scenario ?? DEFAULTS.scenario,
    seed: options.seed ?? DEFAULTS.seed,
    resetData: options.resetData,
    clock: options.clock ?? new Clock(),
    cwd: options.cwd,
    workspacesInMemory: options.workspacesInMemory,
    warn,
    gcDuringUploads: options.gcDuringUploads ?? DEFAULTS.gcDuringUploads,
    compactLogs,
    onCompaction,
    acceptScenario,
    testHooks: options.testHooks,
  });
}
