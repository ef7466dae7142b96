/** Scenario files: the generator is deterministic, built-ins are valid, a bad file is named. */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { generateScenarios, serialize } from '../scripts/scenarios.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { BUILT_IN_SCENARIOS, loadScenario, readScenarioFile, scenarioSchemaPath } from '../src/scenarios/scenario.js';
import { scenarioFileBytes, sha256Hex } from '../src/scenarios/seeded-content.js';
import { ROOT, bearer, testApp } from './helpers.js';
import { codeBlocks, section } from './doc-pages.js';

test.each(Object.entries(generateScenarios()))('fixtures/%s.json is exactly what the seeded generator writes', (name, scenario) => {
  expect(serialize(scenario)).toBe(readFileSync(join(ROOT, 'fixtures', `${name}.json`), 'utf8'));
});

test('the generator lists every built-in scenario', () => {
  expect(Object.keys(generateScenarios()).sort()).toEqual([...BUILT_IN_SCENARIOS].sort());
});

test.each([...BUILT_IN_SCENARIOS])('built-in scenario %s is valid and its checksums match the bytes served', async (name) => {
  const s = await readScenarioFile(name);
  for (const session of s.sessions) for (const f of session.files) expect(sha256Hex(scenarioFileBytes(f))).toBe(f.checksum);
});

test('the scenario schema is valid JSON Schema 2020-12 (start-up compiles it without the meta-schema check)', () => {
  const ajv = new Ajv2020({ strict: false });
  expect(ajv.validateSchema(JSON.parse(readFileSync(scenarioSchemaPath(), 'utf8')))).toBe(true);
});

test('the default scenario holds the well-known records of the contract', async () => {
  const s = await readScenarioFile('default');
  expect(s.users).toContainEqual({ username: 'dev@example.com', password: 'password' });
  expect(s.api_keys).toContainEqual({ key: 'sk_test_demo', owner: 'dev@example.com' });
  const sessions = new Map(s.sessions.map((x) => [x.id, x]));
  expect(new Set(sessions.get('sess_demo')!.files.map((f) => f.source))).toEqual(new Set(['user_upload', 'session_download']));
  const demoActions = sessions.get('sess_demo')!.actions;
  expect(new Set(demoActions.map((a) => a.type))).toEqual(new Set(['goto', 'click', 'fill', 'wait', 'scrape']));
  const scrapes = demoActions.filter((a) => a.type === 'scrape');
  expect(scrapes.map((a) => [a.response_format === null, a.result !== undefined])).toEqual([[true, false], [false, false], [true, true]]);
  expect(sessions.get('sess_many_files')!.files.length).toBeGreaterThanOrEqual(150);
  expect(sessions.get('sess_empty')).toEqual({ id: 'sess_empty', actions: [], files: [] });
  expect(s.mailboxes.map((m) => [m.id, m.provider, m.healthy])).toEqual([['mbx_gmail', 'gmail', true], ['mbx_outlook', 'microsoft_outlook', false]]);
  expect(s.secrets.map((x) => [x.name, x.namespace])).toEqual([['OPENAI_API_KEY', 'llm_provider'], ['SCRAPER_TOKEN', 'function_env']]);
});

test('loading shifts every timestamp by (now − generated_at), so seeded files are fresh', async () => {
  const now = Date.parse('2030-06-01T00:00:00Z');
  const loaded = await loadScenario('default', now);
  const demo = loaded.template.sessions.find((s) => s.id === 'sess_demo')!;
  expect(demo.files.map((f) => new Date(f.created_at).toISOString())).toEqual(['2030-06-01T00:00:00.000Z', '2030-05-31T23:55:00.000Z']);
});

test('the expiring scenario expires every file within the hour after loading', async () => {
  const now = Date.parse('2030-06-01T00:00:00Z');
  const files = (await loadScenario('expiring', now)).template.sessions.flatMap((s) => s.files);
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) expect(f.expires_at - now).toBeGreaterThan(0), expect(f.expires_at - now).toBeLessThanOrEqual(3600_000);
});

describe('a scenario file of the user’s own', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cbm-scenario-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('is served when valid', async () => {
    const file = join(dir, 'mine.json');
    const s = await readScenarioFile('empty');
    s.secrets.push({ id: 'sec_mine', namespace: 'function_env', name: 'MINE', value: 'my-own-value', created_at: s.generated_at, last_used_at: null });
    writeFileSync(file, JSON.stringify(s));
    const app = await testApp({ scenario: file });
    try {
      expect((await request(app).get('/secrets').set(bearer('t'))).body.items.map((x: any) => x.name)).toEqual(['MINE']);
    } finally {
      await app.mock.close();
    }
  });

  test.each([
    ['a wrong type', (s: any) => (s.sessions = [{ id: 'x', actions: [], files: [{ id: 'f', filename: 'a', mime_type: 'text/plain', size: 'big', checksum: '0'.repeat(64), created_at: s.generated_at, expires_at: s.generated_at, source: 'user_upload' }] }]), /\$\.sessions\[0\]\.files\[0\]\.size must be integer/],
    ['an unknown key', (s: any) => (s.extra = 1), /\$ must NOT have additional properties \(extra\)/],
    ['a repeated id', (s: any) => (s.sessions = [{ id: 'x', actions: [], files: [] }, { id: 'x', actions: [], files: [] }]), /\$\.sessions\[1\]\.id repeats x/],
    ['an API key without an owner', (s: any) => (s.api_keys = ['sk_bare']), /\$\.api_keys\[0\] must be object/],
    ['an API key owned by no scenario user', (s: any) => (s.api_keys = [{ key: 'sk_x', owner: 'ghost@example.com' }]), /\$\.api_keys\[0\]\.owner "ghost@example\.com" is not one of the scenario's users/],
  ])('with %s stops start-up naming the file and the JSON path', async (_, mutate, message) => {
    const file = join(dir, 'bad.json');
    const s = await readScenarioFile('empty');
    mutate(s);
    writeFileSync(file, JSON.stringify(s));
    await expect(testApp({ scenario: file })).rejects.toThrow(message);
    await expect(testApp({ scenario: file })).rejects.toThrow(file);
  });

  test('that does not exist is named with the built-in list', async () => {
    await expect(testApp({ scenario: join(dir, 'nope.json') })).rejects.toThrow(/not found: no file .*nope\.json \(built-in scenarios: default, empty/);
  });
});

test('the scenario example in docs/scenarios.md is a valid scenario', async () => {
  const example = codeBlocks(section('docs/scenarios.md', 'Scenarios'), 'json')[0];
  const dir = mkdtempSync(join(tmpdir(), 'cbm-readme-'));
  try {
    const file = join(dir, 'mine.json');
    writeFileSync(file, example);
    const app = await testApp({ scenario: file });
    try {
      const res = await request(app).get('/sessions/sess_checkout/files/file_receipt').set(bearer('t'));
      expect([res.status, res.text]).toEqual([200, 'thanks']);
    } finally {
      await app.mock.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
