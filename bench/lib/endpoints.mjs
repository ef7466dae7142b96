/** The three requests the throughput phases load, and the mock's answers captured for the bare server. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from './load.mjs';
import { send } from './processes.mjs';

export const TOKEN = 'sk_test_demo';
export const auth = (token = TOKEN) => ({ Authorization: `Bearer ${token}` });

export const ENDPOINTS = [
  {
    key: 'listSessionFiles',
    label: 'listSessionFiles (limit=100)',
    method: 'GET',
    path: '/sessions/sess_many_files/files',
    query: '?limit=100',
    headers: () => auth(),
  },
  {
    key: 'getSecret',
    label: 'getSecret',
    method: 'GET',
    path: '/secrets/OPENAI_API_KEY',
    query: '?namespace=llm_provider',
    headers: () => auth(),
  },
  {
    key: 'storeSecret',
    label: 'storeSecret (distinct names)',
    method: 'POST',
    path: '/secrets',
    query: '',
    // A fresh workspace for every run, so each starts from the same state.
    headers: (tag) => ({ ...auth(`sk_bench_store_${tag}`), 'Content-Type': 'application/json' }),
    setupRequest: (tag) => {
      let n = 0;
      return (req) => ({ ...req, body: JSON.stringify({ name: `BENCH_${tag}_${n++}`, value: 'bench-value-0123456789', namespace: 'function_env' }) });
    },
  },
];

/** One load run of `ep` on `server`; `tag` keeps a storeSecret run's workspace and names its own. */
export function runEndpoint(server, ep, tag, { connections, duration }) {
  return load({
    url: `${server.url}${ep.path}${ep.query}`,
    connections,
    duration,
    method: ep.method,
    headers: ep.headers(tag),
    body: ep.method === 'POST' ? '{}' : undefined,
    setupRequest: ep.setupRequest?.(tag),
  });
}

/** The mock's own answers, for the bare server to send byte for byte; resolves with the routes file. */
export async function captureRoutes(mock, work) {
  const routes = [{ method: 'GET', path: '/health', status: 200, contentType: 'application/json', body: Buffer.from('{"status":"ok"}').toString('base64') }];
  for (const ep of ENDPOINTS) {
    const body = ep.method === 'POST' ? JSON.stringify({ name: 'BENCH_SAMPLE', value: 'bench-value-0123456789', namespace: 'function_env' }) : undefined;
    const r = await send(`${mock.url}${ep.path}${ep.query}`, { method: ep.method, headers: ep.headers('sample'), body });
    if (r.status >= 300) throw new Error(`mock answered ${r.status} to ${ep.method} ${ep.path}: ${r.body}`);
    routes.push({ method: ep.method, path: ep.path, status: r.status, contentType: r.headers['content-type'], body: r.body.toString('base64') });
  }
  const file = join(work, 'bare-routes.json');
  writeFileSync(file, JSON.stringify(routes));
  return file;
}
