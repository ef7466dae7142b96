/**
 * The whole-service test document itself (test/fixtures/whole-service): the committed JSON is what
 * its generator writes, and it still carries every trap of the service's published document that
 * issue 30 lists — so an edit that drops one fails here, not silently in the tests that rely on it.
 */
import { afterAll, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, ROOT } from './helpers.js';

const DIR = join(FIXTURES, 'whole-service');
const doc = JSON.parse(readFileSync(join(DIR, 'service.openapi.json'), 'utf8'));
const builtIn = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
const operations = Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).map(([method, op]) => ({ path, method, op })));
const schemas = doc.components.schemas;
const text = JSON.stringify(doc);

const work = mkdtempSync(join(tmpdir(), 'cbm-whole-doc-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test('the committed document is what generate.mjs writes', () => {
  copyFileSync(join(DIR, 'generate.mjs'), join(work, 'generate.mjs'));
  const r = spawnSync(process.execPath, [join(work, 'generate.mjs')], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(readFileSync(join(work, 'service.openapi.json'), 'utf8')).toBe(readFileSync(join(DIR, 'service.openapi.json'), 'utf8'));
});

test('it is OpenAPI 3.1 with 60–70 operations over the service’s tags', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(operations.length).toBeGreaterThanOrEqual(60);
  expect(operations.length).toBeLessThanOrEqual(70);
  const tags = new Set(operations.flatMap((o) => o.op.tags));
  for (const tag of ['sessions', 'agents', 'debug', 'page', 'storage', 'vaults', 'personas', 'scrape', 'health', 'usage', 'audit', 'functions', 'network']) expect([tag, tags.has(tag)]).toEqual([tag, true]);
});

test('it carries the traps of issue 30', () => {
  const op = (method: string, path: string) => doc.paths[path]?.[method];
  // start/stop/status of a session, in FastAPI's route order (/sessions/start before /sessions/{session_id}).
  expect([op('post', '/sessions/start')?.operationId, op('delete', '/sessions/{session_id}/stop')?.operationId, op('get', '/sessions/{session_id}')?.operationId]).toEqual(['session_start', 'session_stop', 'session_status']);
  const order = Object.keys(doc.paths);
  expect(order.indexOf('/sessions/start')).toBeLessThan(order.indexOf('/sessions/{session_id}'));
  // A paged list, a 204, an open operation, its own GET /health, an operation without an id.
  expect(Object.keys(schemas.SessionListPage.properties)).toEqual(expect.arrayContaining(['items', 'total', 'limit', 'offset']));
  expect(operations.some((o) => o.op.responses['204'] && !o.op.responses['204'].content)).toBe(true);
  expect(operations.filter((o) => Array.isArray(o.op.security) && o.op.security.length === 0).length).toBeGreaterThan(0);
  expect(op('get', '/health')).toBeDefined();
  expect(operations.filter((o) => !o.op.operationId).length).toBeGreaterThan(0);
  // A multipart upload with a contentMediaType file part; a binary download; another media type.
  expect(schemas.Body_storage_file_upload.properties.file.contentMediaType).toBe('application/octet-stream');
  expect(Object.keys(op('get', '/storage/files/{file_id}/content').responses['200'].content)).toEqual(['application/octet-stream']);
  // A type-discriminated union whose `type` is optional in every member.
  for (const member of ['ChromiumSettings', 'FirefoxSettings', 'AgentTaskBrowse', 'AgentTaskExtract']) {
    expect([member, schemas[member].properties.type.const !== undefined, (schemas[member].required ?? []).includes('type')]).toEqual([member, true, false]);
  }
  // anyOf-null, required readOnly, duration and password formats, writeOnly, {} answer, recursion, propertyNames + minProperties.
  expect((text.match(/\{"type":"null"\}/g) ?? []).length).toBeGreaterThan(20);
  expect(schemas.SessionStartResponse.required).toContain('session_id');
  expect(schemas.SessionStartResponse.properties.session_id.readOnly).toBe(true);
  expect(schemas.SessionStartResponse.properties.timeout.format).toBe('duration');
  expect(schemas.VaultCredentialCreate.properties.password).toMatchObject({ format: 'password', writeOnly: true });
  expect(op('post', '/debug/echo').responses['200'].content['application/json'].schema).toEqual({});
  expect(schemas.DomNode.properties.children.items).toEqual({ $ref: '#/components/schemas/DomNode' });
  expect(schemas.DomNode.properties.attributes).toMatchObject({ propertyNames: expect.any(Object), minProperties: 1 });
  // A component named like a built-in one with other content; an operation the built-in document shadows.
  expect(builtIn.components.schemas.SessionFile).toBeDefined();
  expect(schemas.SessionFile).not.toEqual(builtIn.components.schemas.SessionFile);
  expect(builtIn.paths['/sessions/{session_id}/files'].get).toBeDefined();
  expect(op('get', '/sessions/{session_id}/files')).toBeDefined();
  // HTTP bearer document-wide, an apiKey in x-api-key on one operation.
  expect(doc.security).toEqual([{ bearerAuth: [] }]);
  expect(doc.components.securitySchemes.apiKeyAuth).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  expect(operations.filter((o) => JSON.stringify(o.op.security ?? []).includes('apiKeyAuth')).length).toBe(1);
});

test('its operationIds follow FastAPI’s naming and none is used twice or clashes with a built-in one', () => {
  const ids = operations.map((o) => o.op.operationId).filter(Boolean);
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) expect(id).toMatch(/^[a-z]+(_[a-z]+)*$/);
  const builtInIds = Object.values<any>(builtIn.paths).flatMap((item) => Object.values<any>(item).map((o) => o.operationId));
  expect(ids.filter((id) => builtInIds.includes(id))).toEqual([]);
});
