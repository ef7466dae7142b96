/**
 * The CLI killed with SIGKILL at 24 instants spread over resets (all, and one principal),
 * scenario switches, workspace imports, uploads and write storms (issue 15 "Done when"). After
 * each restart: every acknowledged write the interrupted operation could not have undone is
 * there, a reset is all or nothing, every record's bytes download with its checksum, and no
 * blob is left that no record names.
 */
import { afterAll, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli } from '../cli-process.js';
import { blobFiles, tempFiles } from '../data-layout.js';

const root = mkdtempSync(join(tmpdir(), 'cbm-kill-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ARGS = ['--port', '0', '--data-dir', 'data', '--log-level', 'silent'];
const SESSION = 'sess_demo';
const BASELINE = 30;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

type Victim = 'reset-all' | 'reset-one' | 'scenario' | 'import' | 'uploads' | 'storm';
const VICTIMS: Victim[] = ['reset-all', 'reset-one', 'scenario', 'import', 'uploads', 'storm'];
const DELAYS = [0, 2, 6, 15];
const POINTS = VICTIMS.flatMap((v) => DELAYS.map((d) => [v, d] as const));

async function upload(url: string, token: string, name: string): Promise<string | null> {
  const form = new FormData();
  form.append('file', new Blob([`bytes of ${name} `.repeat(50)]), `${name}.txt`);
  try {
    const res = await fetch(`${url}/sessions/${SESSION}/files`, { method: 'POST', headers: auth(token), body: form });
    return res.status === 201 ? (((await res.json()) as any).id as string) : null;
  } catch {
    return null; // killed
  }
}

async function secret(url: string, token: string, name: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/secrets`, { method: 'POST', headers: { ...auth(token), 'Content-Type': 'application/json' }, body: JSON.stringify({ name, value: `value-of-${name}` }) });
    return res.status === 201;
  } catch {
    return false;
  }
}

const principalOf = async (url: string, token: string) => {
  await fetch(`${url}/mailboxes`, { headers: auth(token) });
  return (((await (await fetch(`${url}/__mock/requests?limit=1`)).json()) as any).items ?? [])[0]?.principal as string;
};

test.each(POINTS)('killed during %s, %i ms in: acknowledged writes kept, resets whole, bytes intact, no stray blob', async (victim, delay) => {
  const cwd = mkdtempSync(join(root, `${victim}-${delay}-`));
  const first = await startCli(ARGS, { cwd });
  const A = await principalOf(first.url, 'kill-a');
  await principalOf(first.url, 'kill-b');
  const baseline: string[] = [];
  for (let i = 0; i < BASELINE; i += 6) {
    const ids = await Promise.all(Array.from({ length: 6 }, (_, j) => upload(first.url, 'kill-a', `base-${i + j}`)));
    baseline.push(...(ids.filter(Boolean) as string[]));
  }
  expect(baseline).toHaveLength(BASELINE);
  const snapshot = victim === 'import' ? await (await fetch(`${first.url}/__mock/workspaces/${encodeURIComponent(A)}`)).text() : '';

  // B writes all along; A writes too when nothing resets or replaces A's workspace.
  const acked: { token: string; kind: 'file' | 'secret'; id: string }[] = [];
  let stop = false;
  const writer = (token: string, kind: 'file' | 'secret') => async () => {
    for (let i = 0; !stop; i++) {
      const name = `${token}_${kind}_${i}`.replace(/-/g, '_');
      if (kind === 'file') {
        const id = await upload(first.url, token, name);
        if (id) acked.push({ token, kind, id });
        else if (stop) return;
      } else if (await secret(first.url, token, name)) acked.push({ token, kind, id: name });
      else if (stop) return;
    }
  };
  const writers = [writer('kill-b', 'file'), writer('kill-b', 'secret')];
  if (victim === 'uploads') writers.push(writer('kill-a', 'file'), writer('kill-a', 'file'));
  if (victim === 'storm') writers.push(writer('kill-a', 'secret'), writer('kill-a', 'secret'), writer('kill-a', 'file'));
  const running = writers.map((w) => w());
  const send = (path: string, init: RequestInit) => fetch(`${first.url}${path}`, init).catch(() => undefined);
  if (victim === 'reset-all') void send('/__mock/reset', { method: 'POST' });
  if (victim === 'reset-one') void send(`/__mock/reset?principal=${encodeURIComponent(A)}`, { method: 'POST' });
  if (victim === 'scenario') void send('/__mock/scenario', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":"default"}' });
  if (victim === 'import') void send(`/__mock/workspaces/${encodeURIComponent(A)}`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: snapshot });
  await new Promise((r) => setTimeout(r, delay));
  first.child.kill('SIGKILL');
  stop = true;
  await first.exited;
  await Promise.all(running);

  const second = await startCli(ARGS, { cwd });
  try {
    const files = new Map<string, any[]>();
    for (const token of ['kill-a', 'kill-b']) {
      const p = await principalOf(second.url, token);
      const ws = (await (await fetch(`${second.url}/__mock/workspaces/${encodeURIComponent(p)}?content=false`)).json()) as any;
      const all = ws.sessions.flatMap((s: any) => s.files.map((f: any) => ({ ...f, session: s.id })));
      // Every record's bytes download with its checksum, the scenario's included.
      for (const f of all) {
        const res = await fetch(`${second.url}/sessions/${f.session}/files/${f.id}`, { headers: auth(token) });
        expect([f.id, res.status, sha(Buffer.from(await res.arrayBuffer()))]).toEqual([f.id, 200, f.checksum]);
      }
      files.set(token, all.filter((f: any) => f.filename.endsWith('.txt') && /^(base|kill)/.test(f.filename)));
    }
    const idsOf = (token: string) => new Set(files.get(token)!.map((f) => f.id));
    // A reset is all or nothing: A's baseline is wholly there or wholly gone.
    const keptBaseline = baseline.filter((id) => idsOf('kill-a').has(id)).length;
    if (victim === 'reset-all' || victim === 'reset-one' || victim === 'scenario') expect([0, BASELINE]).toContain(keptBaseline);
    else expect(keptBaseline).toBe(BASELINE);
    // Acknowledged writes no reset can have undone are all there.
    const resetsB = victim === 'reset-all' || victim === 'scenario';
    for (const a of acked) {
      if (a.token === 'kill-b' && resetsB) continue;
      if (a.kind === 'file') expect([a.token, a.id, idsOf(a.token).has(a.id)]).toEqual([a.token, a.id, true]);
      else {
        const res = await fetch(`${second.url}/secrets/${a.id}?namespace=function_env`, { headers: auth(a.token) });
        expect([a.token, a.id, res.status]).toEqual([a.token, a.id, 200]);
      }
    }
    // Both workspaces were read above (so checked): every blob on disk is a record's.
    const data = join(cwd, 'data');
    expect(blobFiles(data)).toHaveLength(files.get('kill-a')!.length + files.get('kill-b')!.length);
    expect(tempFiles(data)).toEqual([]);
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
}, 120_000);
