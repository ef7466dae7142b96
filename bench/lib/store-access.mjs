/**
 * Where the benchmark uses the store's own code from the working tree's build (dist/src): reading a
 * data directory back (the durability check) and making one (the 100k-change log). Kept in one
 * module so a change to the store's modules is met here alone. The on-disk format is the store's,
 * so a baseline build's data directory is read with the working tree's reader.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = (root, path) => import(pathToFileURL(join(root, 'dist', 'src', path)).href);

/**
 * Acknowledged writes on disk, read through the store's own reading of a data directory (the
 * snapshot and the log of every workspace, as the mock would read them), never by parsing files
 * here: `BENCH_<tag>_<n>` secrets counted per tag.
 */
export async function storedWritesByTag(root, dataDir) {
  const file = join(root, 'dist', 'src', 'store', 'stored-data.js');
  const mod = existsSync(file) ? await import(pathToFileURL(file).href) : {};
  if (typeof mod.readStoredWorkspaces !== 'function') throw new Error(`${relative(root, file)} does not export readStoredWorkspaces (the store's reading of a data directory): rebuild with npm run build`);
  const counts = new Map();
  for (const ws of (await mod.readStoredWorkspaces(dataDir)).values()) {
    for (const s of ws.secrets) {
      const m = /^BENCH_([A-Za-z0-9]+)_\d+$/.exec(s.name);
      if (m) counts.set(m[1], (counts.get(m[1]) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * A data directory whose one workspace holds `changes` changes in its log, made in this process
 * with the store's own API and compaction held off (`compactLogs: false`), scenario `empty`,
 * seed 0, for the principal `token` has under `--auth open`: `save()` after every `group`.
 * Resolves with the milliseconds it took.
 */
export async function writeLoggedDataDir(root, dir, { changes, group, token, log }) {
  const [{ createStore }, { keyPrincipal }, { keyHint }] = await Promise.all([dist(root, 'index.js'), dist(root, 'operations/auth.js'), dist(root, 'model/secret-rules.js')]);
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const store = await createStore({ dataDir: dir, scenario: 'empty', seed: 0 }, { compactLogs: false, warn: (line) => log(`  store: ${line}`) });
  try {
    const ws = await store.workspace(keyPrincipal(token));
    const value = 'bench-value-0123456789';
    for (let i = 0; i < changes; i++) {
      ws.addSecret({ id: ws.newId('sec'), namespace: i % 2 ? 'function_env' : 'llm_provider', name: `LOGGED_${i}`, value, key_hint: keyHint(value), created_at: store.clock.now(), last_used_at: null });
      if ((i + 1) % group === 0) await ws.save();
    }
    await ws.save();
  } finally {
    await store.close();
  }
  return performance.now() - t0;
}
