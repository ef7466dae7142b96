/**
 * A client's whole flow against the mock serving the service's whole document (`spec`): start a
 * session, upload a file to it, list its files, export its workflow code, stop it. The session
 * comes from the added `session_start`; the upload, listing and export are the built-in stateful
 * operations. Here the project's own stand-in document plays the service's; point `spec` at the
 * service's `/openapi.json`, saved to a file, in your project.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockServer, type MockServer } from '../src/index.js'; // in your project: 'cloud-browser-mock'

const SPEC = join(fileURLToPath(import.meta.url), '..', '..', 'test', 'fixtures', 'whole-service', 'service.openapi.json');
let mock: MockServer;
const auth = { Authorization: 'Bearer sk_test_demo' };

beforeAll(async () => {
  mock = await startMockServer({ spec: SPEC, logLevel: 'silent' }); // the service's whole document, saved to a file
});
afterAll(() => mock.close());

test('a session the service started takes uploads, lists them, exports its code and stops', async () => {
  const started = await fetch(`${mock.url}/sessions/start`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ headless: false }),
  });
  const session = await started.json();
  expect(session.headless).toBe(false); // a field the client sent comes back as sent

  const form = new FormData();
  form.append('file', new Blob(['a,b\n1,2\n']), 'rows.csv');
  const upload = await fetch(`${mock.url}/sessions/${session.session_id}/files`, { method: 'POST', headers: auth, body: form });
  expect(upload.status).toBe(201);

  const page = await (await fetch(`${mock.url}/sessions/${session.session_id}/files`, { headers: auth })).json();
  expect(page.files.map((f: { filename: string }) => f.filename)).toEqual(['rows.csv']);

  const code = await fetch(`${mock.url}/sessions/${session.session_id}/workflow/code`, { headers: auth });
  expect(code.status).toBe(200);

  const stopped = await (await fetch(`${mock.url}/sessions/${session.session_id}/stop`, { method: 'DELETE', headers: auth })).json();
  expect(stopped.session_id).toBe(session.session_id); // a path parameter comes back in a field of its name
});
