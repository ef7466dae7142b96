/** getSessionScript: json_actions, the switches, and the script's validity as Python. */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { bearer, testApp } from './helpers.js';

const AUTH = bearer('sk_test_workflow');
let app: MockApp;
beforeAll(async () => {
  app = await testApp();
});
afterAll(() => app.mock.close());

const code = (session: string, query = '') => request(app).get(`/sessions/${session}/workflow/code${query}`).set(AUTH);
const python = spawnSync('python3', ['--version']).status === 0;

test('json_actions are the recorded actions; without infer_response_format, response_format stays null', async () => {
  const res = await code('sess_demo');
  expect(res.status).toBe(200);
  expect(res.body.json_actions).toEqual([
    { type: 'goto', url: 'https://example.com/login' },
    { type: 'fill', selector: '#email', value: 'dev@example.com' },
    { type: 'click', selector: 'button[type=submit]' },
    { type: 'scrape', instructions: 'Extract the account balance', response_format: null },
  ]);
});

test('infer_response_format=true gives the scrape a schema', async () => {
  const res = await code('sess_demo', '?infer_response_format=true');
  expect(res.body.json_actions[3].response_format).toEqual({ type: 'object', properties: { result: { type: 'string' } } });
});

test('as_workflow=true gives a standalone program; false only the replay lines', async () => {
  const program = (await code('sess_demo', '?as_workflow=true')).body.python_script as string;
  expect(program).toContain('def run():');
  expect(program).toContain('if __name__ == "__main__":');
  const lines = (await code('sess_demo', '?as_workflow=false')).body.python_script as string;
  expect(lines).not.toContain('def run():');
  expect(lines).toContain("session.goto(url='https://example.com/login')");
});

test('an unknown session is 404 Session not found', async () => {
  expect((await code('sess_nope')).status).toBe(404);
});

describe.each(['false', 'true'])('as_workflow=%s', (asWorkflow) => {
  test.each(['sess_demo', 'sess_many_files', 'sess_empty'])('the script for %s parses as Python 3', async (session) => {
    if (!python) {
      console.warn('python3 is not installed: the ast.parse check is skipped (.ci/run installs it)');
      return;
    }
    const script = (await code(session, `?as_workflow=${asWorkflow}&infer_response_format=true`)).body.python_script;
    const r = spawnSync('python3', ['-c', 'import ast,sys; ast.parse(sys.stdin.read())'], { input: script });
    expect(r.stderr.toString()).toBe('');
    expect(r.status).toBe(0);
  });
});
