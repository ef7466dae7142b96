/**
 * Scenario files for the scale runs, written to a temporary directory. They follow
 * fixtures/scenario.schema.json like any user's own file, so the mock loads them the way users'
 * data is loaded; every checksum is the SHA-256 of the bytes the mock serves for the record.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scenarioFileBytes, sha256Hex } from '../../dist/src/scenarios/seeded-content.js';

const GENERATED_AT = '2025-01-01T12:00:00Z';
const BASE = Date.parse(GENERATED_AT);
const DAY = 86_400_000;
const iso = (ms) => new Date(ms).toISOString();
const hex16 = (text) => createHash('sha256').update(text).digest('hex').slice(0, 16);
const KINDS = [
  ['pdf', 'application/pdf'],
  ['csv', 'text/csv'],
  ['png', 'image/png'],
  ['json', 'application/json'],
  ['txt', 'text/plain'],
];

function files(sessionId, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const id = `file_${hex16(`${sessionId}/${i}`)}`;
    const size = 64 + ((i * 7919) % 1024);
    const [ext, mime] = KINDS[i % KINDS.length];
    // Spread over the five days before generation: all fresh for two days after loading.
    const created = BASE - 60_000 - ((i * 104_729) % (5 * DAY));
    out.push({
      id,
      filename: `bench_${i}.${ext}`,
      mime_type: mime,
      size,
      checksum: sha256Hex(scenarioFileBytes({ id, size })),
      created_at: iso(created),
      expires_at: iso(created + 7 * DAY),
      source: i % 3 ? 'session_download' : 'user_upload',
    });
  }
  return out;
}

function secrets(count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    out.push({
      id: `sec_${hex16(`secret/${i}`)}`,
      namespace: i % 2 ? 'function_env' : 'llm_provider',
      name: `SEEDED_${i}`,
      value: `seeded-value-${hex16(`value/${i}`)}`,
      created_at: iso(BASE - i * 1000),
      last_used_at: null,
    });
  }
  return out;
}

function scenario(name, { sessions = [], secretCount = 0, apiKeys = [] }) {
  return {
    name,
    generated_at: GENERATED_AT,
    // Every key belongs to a user; one user per key keeps one workspace per key.
    users: [{ username: 'bench@example.com', password: 'password' }, ...apiKeys.map((key) => ({ username: `${key}@bench.example`, password: 'password' }))],
    api_keys: apiKeys.map((key) => ({ key, owner: `${key}@bench.example` })),
    sessions,
    mailboxes: [],
    secrets: secrets(secretCount),
  };
}

export const SCALE_SESSION = 'sess_scale';
export const workspaceTokens = (n) => Array.from({ length: n }, (_, i) => `sk_bench_ws_${String(i).padStart(3, '0')}`);

/** The scale data sets: name → { file, description, … }. */
export function writeDatasets(dir) {
  const write = (name, s) => {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(s));
    return file;
  };
  const one = (n) => [{ id: SCALE_SESSION, actions: [], files: files(SCALE_SESSION, n) }];
  const spread = [...one(1_000)];
  for (let s = 0; s < 1_000; s++) {
    const id = `sess_other_${String(s).padStart(4, '0')}`;
    spread.push({ id, actions: [], files: files(id, 100) });
  }
  return {
    files: [
      { key: '1k', label: '1k files in the session', file: write('files-1k', scenario('files-1k', { sessions: one(1_000) })) },
      { key: '10k', label: '10k files in the session', file: write('files-10k', scenario('files-10k', { sessions: one(10_000) })) },
      { key: '100k', label: '100k files in the session', file: write('files-100k', scenario('files-100k', { sessions: one(100_000) })) },
      {
        key: '1k+100k',
        label: '1k in the session + 100k over 1,000 other sessions',
        file: write('files-spread', scenario('files-spread', { sessions: spread })),
      },
    ],
    secrets: [
      { key: '10k/100ws', label: '10k records over 100 workspaces', workspaces: 100, file: write('secrets-100x100', scenario('secrets-100x100', { secretCount: 100, apiKeys: workspaceTokens(100) })) },
      { key: '100k/100ws', label: '100k records over 100 workspaces', workspaces: 100, file: write('secrets-100x1000', scenario('secrets-100x1000', { secretCount: 1_000, apiKeys: workspaceTokens(100) })) },
      { key: '10k/1ws', label: '10k records in one workspace', workspaces: 1, file: write('secrets-1x10k', scenario('secrets-1x10k', { secretCount: 10_000, apiKeys: workspaceTokens(1) })) },
      { key: '100k/1ws', label: '100k records in one workspace', workspaces: 1, file: write('secrets-1x100k', scenario('secrets-1x100k', { secretCount: 100_000, apiKeys: workspaceTokens(1) })) },
    ],
  };
}
