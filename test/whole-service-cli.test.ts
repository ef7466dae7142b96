/**
 * `--spec` as users meet it: the built CLI as a child process. A bad document stops it at
 * start-up with exit 2 and one line naming the file and the problem (issue 30, item 7); a good one
 * starts, names the operations the union shadows in one warning line, and answers the added ones.
 */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES } from './helpers.js';
import { runCli, startCli } from './cli-process.js';

const DIR = join(FIXTURES, 'whole-service');
const BAD = join(DIR, 'bad');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-spec-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env: Record<string, string> = {}) => runCli(['--port', '0', '--in-memory', ...args], { cwd: dir, env });
/**
 * The refusal of a document under test/fixtures, run once per file: several cases read the same
 * refusal (a CLI start costs about half a CPU-second), and what it prints does not depend on the
 * working directory, as the path is absolute.
 */
const refusals = new Map<string, ReturnType<typeof run>>();
const runBad = (file: string) => {
  if (!refusals.has(file)) refusals.set(file, run(['--spec', join(BAD, file)]));
  return refusals.get(file)!;
};

/** One line, no stack, exit 2. */
function refused(r: ReturnType<typeof run>) {
  expect([r.status, r.stdout]).toEqual([2, '']);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^cloud-browser-mock: /);
  expect(lines[0]).not.toMatch(/\n\s+at /);
  return lines[0];
}

/**
 * Every bad document of the fixtures: the exact problem, and a looser word of it. (This table was
 * also run, as spec-union.test.ts's, with the same command: one run per file now, here.)
 */
const BAD_CASES: [string, RegExp, RegExp][] = [
  ['not-json.json', /is not valid JSON/, /JSON|YAML|pars/i],
  ['not-yaml.yaml', /is neither JSON nor valid YAML/, /YAML|pars/i],
  ['not-openapi.yaml', /is not an OpenAPI 3\.0 or 3\.1 document/, /OpenAPI 3/i],
  ['swagger-2.json', /is not an OpenAPI 3\.0 or 3\.1 document \(swagger "2\.0"\)/, /OpenAPI 3/i],
  ['unresolvable-ref.json', /unresolvable \$ref "#\/components\/schemas\/[^"]+" at #\/paths\/\S+\/\$ref/, /#\/components\/schemas\/SessionStartAnswer/],
  ['duplicate-operation-id.json', /duplicate operationId "session_start"/, /session_start/],
  ['builtin-operation-id.json', /duplicate operationId "listSessionFiles"/, /listSessionFiles/],
  ['openid-connect.json', /security scheme "oidc" \(type "openIdConnect"\) is not supported/, /openIdConnect/],
  ['mutual-tls.yaml', /security scheme "\w+" \(type "mutualTLS"\) is not supported/, /mutualTLS/],
];

test('every bad case of the fixtures has a row here', () => {
  expect(readdirSync(BAD).sort()).toEqual(BAD_CASES.map(([f]) => f).sort());
});

describe.each(BAD_CASES)('a bad document: %s', (file, problem, named) => {
  test('exits 2 with one line naming the file and the problem', () => {
    const line = refused(runBad(file));
    expect(line).toContain(`cloud-browser-mock: --spec ${join(BAD, file)}: `);
    expect(line).toMatch(problem);
    expect(line).toMatch(named);
  });
});

test('a duplicate operationId is called one', () => {
  expect(refused(runBad('duplicate-operation-id.json'))).toMatch(/duplicate/i);
  expect(refused(runBad('builtin-operation-id.json'))).toMatch(/duplicate|already|built-in/i);
});

test('CBM_SPEC is read as --spec is, and names the variable or file', () => {
  const line = refused(run([], { CBM_SPEC: join(BAD, 'swagger-2.json') }));
  expect(line).toContain('swagger-2.json');
});

test('a missing file is refused with its name', () => {
  const line = refused(run(['--spec', join(dir, 'nowhere.json')]));
  expect(line).toContain('nowhere.json');
});

test('a document over 32 MiB is refused without being read as a document', () => {
  const big = join(dir, 'huge.json');
  writeFileSync(big, `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},"x-pad":"${'x'.repeat(32 * 1024 * 1024)}"}`);
  const line = refused(run(['--spec', big]));
  expect(line).toContain('huge.json');
  expect(line).toMatch(/32 MiB|too large|larger/i);
});

describe('a good document', () => {
  test('starts, warns once about what the union shadows, answers an added operation and keeps its own /health', async () => {
    // A relative path resolves against the working directory, as --scenario's does.
    copyFileSync(join(DIR, 'service.openapi.json'), join(dir, 'service.openapi.json'));
    const { child, url, output, exited } = await startCli(['--port', '0', '--in-memory', '--spec', 'service.openapi.json', '--log-level', 'warn'], { cwd: dir });
    try {
      const started = await fetch(`${url}/sessions/start`, { method: 'POST', headers: { Authorization: 'Bearer sk_test_cli', 'Content-Type': 'application/json' }, body: '{"headless":false}' });
      expect(started.status).toBe(200);
      expect(await started.json()).toMatchObject({ session_id: expect.stringMatching(/^sess_[0-9a-f]{16}$/), headless: false });
      // The mock's own /health, not the document's health_check (which has a version field) …
      expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
      // … and never journalled.
      const journal = await (await fetch(`${url}/__mock/requests`)).json();
      expect(journal.items.map((e: any) => e.operationId)).toEqual(['session_start']);
      // One warning line names each shadowed operation (by operationId or by method and path).
      const shadowed = [
        /session_files_list|GET \/sessions\/\{session_id\}\/files/,
        /session_files_upload|POST \/sessions\/\{session_id\}\/files/,
        /session_workflow_code|GET \/sessions\/\{session_id\}\/workflow\/code/,
        /health_check|GET \/health/,
      ];
      const lines = output().split('\n').filter((l) => shadowed.some((re) => re.test(l)));
      expect(lines).toHaveLength(1);
      for (const re of shadowed) expect(lines[0]).toMatch(re);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  test('the 3.0 YAML variant starts too', async () => {
    const { child, url, exited } = await startCli(['--port', '0', '--in-memory', '--spec', join(DIR, 'service-3.0.yaml'), '--log-level', 'silent'], { cwd: dir });
    try {
      expect((await fetch(`${url}/usage/pricing`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
