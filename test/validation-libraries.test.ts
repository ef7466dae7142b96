/**
 * The libraries on the request path, pinned where the glue depends on them: the shape of
 * express-openapi-validator's errors (the mapper reads `path`, `errorCode` and the Ajv error kept beside them), the
 * file object multer hands a StorageEngine, and a constraint added to the document being enforced
 * with no code change (the hand-written walker this replaced accepted anything it did not know).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import express from 'express';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import request from 'supertest';
import type { MockServer } from '../src/server.js';
import { createOpenApiValidator } from '../src/validation/eov.js';
import { commandWithDocuments } from './edited-documents.js';
import { ROOT, bearer, rawRequest, testServer } from './helpers.js';

const document = () => JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));

test("express-openapi-validator's errors keep the fields the mapper reads", async () => {
  const eov = createOpenApiValidator(document());
  const errors = await eov.validate({ operationId: 'storeSecret', params: {}, query: {}, headers: {}, contentType: 'application/json', body: { name: '', namespace: 'x' } });
  expect(errors).toEqual([
    { path: '/body/value', message: "must have required property 'value'", errorCode: 'required.openapi.validation' },
    { path: '/body/name', message: 'must NOT have fewer than 1 characters', errorCode: 'minLength.openapi.validation' },
    { path: '/body/namespace', message: 'must be equal to one of the allowed values: llm_provider, function_env', errorCode: 'enum.openapi.validation' },
  ]);
});

test("express-openapi-validator's errors carry the Ajv error each was made from: what the mapper decides from", async () => {
  const eov = createOpenApiValidator(document());
  const errors = await eov.validate({ operationId: 'storeSecret', params: {}, query: {}, headers: {}, contentType: 'application/json', body: { name: 5, value: 'v', namespace: 'x' } });
  expect(errors.map((e) => [e.errorCode, e.ajv])).toEqual([
    ['type.openapi.validation', { keyword: 'type', params: { type: 'string' }, instancePath: '/body/name', schemaPath: expect.stringMatching(/\/name\/type$/) }],
    ['enum.openapi.validation', { keyword: 'enum', params: { allowedValues: ['llm_provider', 'function_env'] }, instancePath: '/body/namespace', schemaPath: expect.stringMatching(/\/enum$/) }],
  ]);
  // Kept out of sight: eov's object serialises as eov makes it.
  expect(JSON.parse(JSON.stringify(errors[0]))).toEqual({ path: '/body/name', message: 'must be string', errorCode: 'type.openapi.validation' });
});

test('multer hands the StorageEngine the part name as sent to busboy, and the stream', async () => {
  const multer = createRequire(import.meta.url)('multer');
  const seen: Record<string, unknown>[] = [];
  const storage = {
    _handleFile(_req: unknown, file: { fieldname: string; originalname: string; stream: Readable }, cb: (e: Error | null, info?: object) => void) {
      seen.push({ fieldname: file.fieldname, originalname: file.originalname, readable: typeof file.stream?.pipe === 'function' });
      file.stream.resume();
      file.stream.on('end', () => cb(null, {}));
    },
    _removeFile: (_req: unknown, _file: unknown, cb: (e: Error | null) => void) => cb(null),
  };
  const app = express();
  app.post('/', multer({ storage }).any(), (_req, res) => void res.status(204).end());
  const body = '--b\r\nContent-Disposition: form-data; name="p0"; filename="p0"\r\n\r\nabc\r\n--b\r\nContent-Disposition: form-data; name="a%22b"; filename="c%22d"\r\n\r\nx\r\n--b--\r\n';
  const res = await request(app).post('/').set('Content-Type', 'multipart/form-data; boundary=b').send(body);
  expect(res.status).toBe(204);
  // multer decodes %22 in names: why part-headers.ts shows busboy only `p<n>` names.
  expect(seen).toEqual([
    { fieldname: 'p0', originalname: 'p0', readable: true },
    { fieldname: 'a"b', originalname: 'c"d', readable: true },
  ]);
});

describe('a constraint added to openapi.json is enforced with no code change', () => {
  const clearDomains = (url: string) =>
    request(url).patch('/mailboxes/mbx_gmail').set(bearer('sk_test_demo')).send({ allow_all_senders: false, allowed_sender_domains: [] });

  test('minItems: 1 on allowed_sender_domains: the command serving the edited copy answers 422 too_short over HTTP', async () => {
    const doc = document();
    doc.components.schemas.MailboxUpdateRequest.properties.allowed_sender_domains.anyOf[0].minItems = 1;
    const mock = await commandWithDocuments({ 'openapi.json': doc });
    try {
      const res = await clearDomains(mock.url);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [
          { type: 'too_short', loc: ['body', 'allowed_sender_domains'], msg: 'List should have at least 1 item after validation, not 0', input: [], ctx: { field_type: 'List', min_length: 1, actual_length: 0 } },
        ],
      });
    } finally {
      await mock.stop();
    }
  });

  test('the same request against the unedited document is accepted (the constraint is what refused it)', async () => {
    const mock = await commandWithDocuments({});
    try {
      const res = await clearDomains(mock.url);
      expect(res.status).toBe(200);
      expect(res.body.allowed_sender_domains).toEqual([]);
    } finally {
      await mock.stop();
    }
  });
});

describe('multipart parts as FastAPI (python-multipart 0.0.32) reads them', () => {
  let server: MockServer;
  beforeAll(async () => {
    server = await testServer();
  });
  afterAll(async () => {
    await server.close();
  });
  const upload = (disposition: string) =>
    rawRequest(server.url, {
      method: 'POST',
      path: '/sessions/sess_demo/files',
      headers: { ...bearer('sk_test_demo'), 'Content-Type': 'multipart/form-data; boundary=bb' },
      body: `--bb\r\nContent-Disposition: form-data; ${disposition}\r\nContent-Type: text/plain\r\n\r\nhello\r\n--bb--\r\n`,
    });

  test('filename="" is a file', async () => {
    const res = await upload('name="file"; filename=""');
    expect(res.status).toBe(201);
  });

  test('a part with only filename*= is a plain field: "Expected UploadFile"', async () => {
    const res = await upload("name=\"file\"; filename*=UTF-8''a.txt");
    expect([res.status, JSON.parse(res.text)]).toEqual([
      422,
      { detail: [{ type: 'value_error', loc: ['body', 'file'], msg: "Value error, Expected UploadFile, received: <class 'str'>", input: 'hello', ctx: { error: {} } }] },
    ]);
  });

  test('a name is kept as sent: "fil%65" is not "file"', async () => {
    const res = await upload('name="fil%65"; filename="a.txt"');
    expect([res.status, JSON.parse(res.text).detail[0].type]).toEqual([422, 'missing']);
  });
});
