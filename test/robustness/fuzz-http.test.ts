/**
 * Fuzzing the running CLI (issue #8): seeded fast-check requests across every operation and the
 * control plane — random methods, paths, headers, query strings, JSON and multipart bodies,
 * unicode and very long values. No 5xx, no hang, the process stays up, and its memory stays
 * bounded. Then (issue 14) what exhausted it before: oversized and deeply nested bodies from
 * clients with no valid token, and downloads abandoned after their first chunk — with resident
 * memory and open descriptors (/proc/<pid>/fd) sampled before and after.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { codePoint } from '../arbitraries.js';
import { bearer, multipart, orAfter, rawRequest, settlesTo } from '../helpers.js';
import { startCli, type RunningCli } from '../cli-process.js';

const RUNS = 2500;
const SEED = Number(process.env.FUZZ_SEED ?? 8);

const segment = fc.oneof(
  fc.constantFrom('sess_demo', 'sess_empty', 'file_demo_notes', 'mbx_gmail', 'OPENAI_API_KEY', 'sec_openai', 'sync', 'files', 'workflow', 'code', '..', '.', '%2F', '%00', '%ZZ', '%C3%A9', '~', ''),
  fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))),
  fc.constant('x'.repeat(5000)),
);
const servicePath = fc.constantFrom(
  '/token', '/sessions/{}/files', '/sessions/{}/files/{}', '/sessions/{}/workflow/code', '/mailboxes', '/mailboxes/{}', '/mailboxes/sync', '/secrets', '/secrets/{}',
  '/__mock/reset', '/__mock/workspaces', '/__mock/workspaces/{}', '/__mock/workspaces/{}/sessions', '/__mock/workspaces/{}/mailboxes', '/__mock/workspaces/{}/mailboxes/{}/connection',
  '/__mock/workspaces/{}/sessions/{}/files', '/__mock/requests', '/__mock/clock', '/__mock/clock/reset', '/__mock/coverage', '/__mock/faults/{}', '/__mock/openapi.json',
  '/health', '/openapi.json', '/', '/{}', '/sessions/{}/{}/{}/{}',
);
const path = fc.tuple(servicePath, fc.array(segment, { minLength: 6, maxLength: 6 }), fc.boolean()).map(([p, segs, slash]) => {
  let i = 0;
  return p.replace(/\{\}/g, () => segs[i++] || 'x') + (slash ? '/' : '');
});
const queryValue = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('', '0', '-1', '1e9', '100', 'true', 'yes', 'llm_provider', 'user_upload', 'junit', 'json', 'GET', 'x'.repeat(3000)));
const query = fc.array(fc.tuple(fc.constantFrom('limit', 'offset', 'source', 'as_workflow', 'infer_response_format', 'namespace', 'principal', 'status', 'since', 'format', 'content', 'method', 'x'), queryValue), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${Buffer.from(v.replace(/[\ud800-\udfff]/g, '?')).toString('latin1').replace(/[^A-Za-z0-9_.~-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}`).join('&'));
const jsonText = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.constantFrom('{"name":"N","value":"v-v-v-v-v"}', '{"allow_all_senders":true,"allowed_sender_domains":["a.org"]}', '{"mailbox_id":"mbx_gmail"}', '{"email_address":"a@b.c","provider":"gmail"}',
    '{"healthy":false}', '{"set":"2031-01-01T00:00:00Z"}', '{"advance":"P1D"}', '{"sessions":[],"mailboxes":[],"secrets":[]}', '{"id":"sess_f","actions":[{"type":"goto","url":"u"}]}', `{"name":"${'n'.repeat(200)}","value":"${'v'.repeat(100000)}"}`),
  fc.string({ unit: codePoint, maxLength: 40 }),
);
const multipartBody = fc.tuple(fc.constantFrom('bnd', 'x'.repeat(70)), fc.string({ maxLength: 30 }), fc.constantFrom('file', 'other', ''), fc.string({ maxLength: 20 }), fc.boolean()).map(([b, content, name, filename, close]) => ({
  type: `multipart/form-data; boundary=${b}`,
  body: `--${b}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename.replace(/["\r\n]/g, '')}"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n${close ? `--${b}--\r\n` : ''}`,
}));
const body = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ type: undefined as string | undefined, body: null as string | null }) },
  { weight: 4, arbitrary: fc.tuple(jsonText, fc.constantFrom('application/json', 'application/merge-patch+json', 'text/plain', 'application/x-www-form-urlencoded', undefined)).map(([t, ct]) => ({ type: ct, body: t as string | null })) },
  { weight: 2, arbitrary: multipartBody.map((m) => ({ type: m.type as string | undefined, body: m.body as string | null })) },
  { weight: 1, arbitrary: fc.constant({ type: 'multipart/form-data' as string | undefined, body: '--x\r\n' as string | null }) },
);
const authorization = fc.constantFrom(undefined, 'Bearer fuzz-a', 'Bearer fuzz-b', 'bearer  fuzz-a ', 'Bearer', 'Basic abc', `Bearer ${'t'.repeat(8000)}`, 'Bearer é');
const method = fc.constantFrom('GET', 'GET', 'POST', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');
const prefer = fc.constantFrom(undefined, undefined, 'code=404', 'code=422', 'code=200', 'code=999', 'delay=1', 'code=x');

const requests = fc.record({ method, path, query, body, authorization, prefer, extraHeader: fc.string({ maxLength: 20 }) });

let cli: RunningCli;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-fuzz-'));
  cli = await startCli(['--port', '0', '--data-dir', 'data', '--log-level', 'silent'], { cwd: dir });
});
afterAll(async () => {
  cli.child.kill('SIGTERM');
  await cli.exited;
  rmSync(dir, { recursive: true, force: true });
});

test(`${RUNS} fuzzed requests: never a 5xx or a hang, the process survives, memory stays bounded`, async () => {
  const samples = fc.sample(requests, { seed: SEED, numRuns: RUNS });
  // Faults and scenario switches are the control plane's way to fail on purpose; the fuzzer
  // stays away from creating them so a 5xx can only mean a bug.
  const allowed = samples.filter((r) => !/^\/__mock\/(faults|scenario)\/?$/.test(r.path));
  const rssBefore = cli.rss();
  const failures: string[] = [];
  let answered = 0;
  for (const r of allowed) {
    const headers: Record<string, string> = { 'X-Fuzz': r.extraHeader.replace(/[^\x20-\x7e]/g, '') };
    if (r.authorization) headers.Authorization = Buffer.from(r.authorization).toString('latin1');
    if (r.prefer) headers.Prefer = r.prefer;
    if (r.body.type) headers['Content-Type'] = r.body.type;
    const target = r.query ? `${r.path}?${r.query}` : r.path;
    const sent = rawRequest(cli.url, { method: r.method, path: target, headers, body: r.body.body === null ? null : Buffer.from(r.body.body) }).catch((e: Error) => e);
    const res = await orAfter(sent, 5000, null);
    if (res === null) failures.push(`hang: ${r.method} ${target}`);
    else if (res instanceof Error) failures.push(`${res.message}: ${r.method} ${target} ${JSON.stringify(headers)} ${JSON.stringify(r.body.body)?.slice(0, 300)}`);
    else if (res.status >= 500) failures.push(`${res.status}: ${r.method} ${target} ${res.text.slice(0, 200)}`);
    else answered++;
    if (failures.length > 5) break;
  }
  expect(failures).toEqual([]);
  expect(answered).toBeGreaterThanOrEqual(2000);
  expect((await fetch(`${cli.url}/health`)).status).toBe(200);
  expect(cli.rss() - rssBefore).toBeLessThan(200 * 1024 * 1024);
}, 240_000);

const fds = () => readdirSync(`/proc/${cli.child.pid}/fd`).length;

(process.platform === 'linux' ? test : test.skip)('oversized and deeply nested bodies without a valid token, and abandoned downloads: memory and descriptors stay bounded', async () => {
  const rssBefore = cli.rss();
  const fdsBefore = fds();
  const huge = `[${Array(349_525).fill('{}').join(',')}]`;
  const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  const bodies = [huge, `[${'['.repeat(50_000)}${']'.repeat(50_000)}]`, nested(900), `{"name":"N","value":"${'v'.repeat(1_000_000)}"}`];
  const targets = [
    ['PATCH', '/mailboxes/mbx_gmail'],
    ['POST', '/secrets'],
    ['POST', '/mailboxes'],
    ['POST', '/token'],
  ];
  const statuses = new Set<number>();
  // The pattern below (target i % 4, credentials i % 3, body by i % 2 and (i >> 1) % 3) repeats
  // every 12 requests: one round sends each combination once. Before issue 14 each 1 MiB body
  // left ~60 MB in the journal, so the round's eight grow the process past the 400 MiB bound
  // below; journal-bounds.test.ts asserts the 1 MiB body's summary itself. (A second round, as
  // before, cost ~0.7 CPU-s a 1 MiB body in the server, which parses it before refusing it.)
  for (let i = 0; i < 12; i++) {
    const [method, path] = targets[i % targets.length];
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (i % 3 === 1) headers.Authorization = 'Bearer';
    if (i % 3 === 2) headers.Authorization = 'Basic Zm9vOmJhcg==';
    const res = await rawRequest(cli.url, { method, path, headers, body: i % 2 === 0 ? huge : bodies[1 + ((i >> 1) % 3)] });
    statuses.add(res.status);
  }
  expect([...statuses].filter((s) => s >= 500)).toEqual([]);

  // A blob big enough that a download cannot finish in one write, abandoned after its first chunk.
  const up = await rawRequest(cli.url, {
    method: 'POST',
    path: '/sessions/sess_demo/files',
    headers: { ...bearer('fuzz-downloads'), 'Content-Type': 'multipart/form-data; boundary=Zz' },
    body: multipart('Zz', [{ name: 'file', filename: 'big.bin', content: Buffer.alloc(8 * 1024 * 1024, 1) }]),
  });
  expect(up.status).toBe(201);
  const { id } = JSON.parse(up.text);
  const url = new URL(cli.url);
  for (let i = 0; i < 50; i++) {
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write(`GET /sessions/sess_demo/files/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer fuzz-downloads\r\n\r\n`));
      socket.once('data', () => {
        socket.destroy();
        resolve();
      });
      socket.on('error', reject);
    });
  }
  expect((await fetch(`${cli.url}/health`)).status).toBe(200);
  // The server hears of each abandoned socket asynchronously: wait (60 s at most) for the count to settle.
  const fdsAfter = await settlesTo(fds, fdsBefore + 4);
  expect(fdsAfter <= fdsBefore + 4 ? 'settled' : `${fdsAfter} descriptors open 60 s after the downloads were abandoned; ${fdsBefore} before, at most ${fdsBefore + 4} allowed`).toBe('settled');
  // Before issue 14 each 1 MiB body left ~60 MB in the journal: the process died near 4 GB.
  expect(cli.rss() - rssBefore).toBeLessThan(400 * 1024 * 1024);
}, 240_000);
