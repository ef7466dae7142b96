/**
 * --validate-responses over both documents, the way a user meets it: the command serving an
 * edited copy of a document whose answer the mock no longer meets answers 500 naming the
 * operation and the document, and logs it; without the switch the same answer goes out as is.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { commandWithDocuments } from './edited-documents.js';
import { ROOT, bearer } from './helpers.js';

const read = (name: string) => JSON.parse(readFileSync(join(ROOT, name), 'utf8'));

/** The control plane's clock state now requires a field the mock never sends. */
function controlPlaneWithZone() {
  const doc = read('control-plane.openapi.json');
  const clock = doc.components.schemas.ClockState;
  clock.required = [...clock.required, 'zone'];
  clock.properties.zone = { type: 'string' };
  return doc;
}

/** The service's mailbox now requires a field the mock never sends. */
function serviceWithOwner() {
  const doc = read('openapi.json');
  const mailbox = doc.components.schemas.MailboxConnection;
  mailbox.required = [...(mailbox.required ?? []), 'owner'];
  mailbox.properties.owner = { type: 'string' };
  return doc;
}

describe('with --validate-responses', () => {
  let mock: Awaited<ReturnType<typeof commandWithDocuments>>;
  beforeAll(async () => {
    mock = await commandWithDocuments({ 'control-plane.openapi.json': controlPlaneWithZone(), 'openapi.json': serviceWithOwner() }, ['--validate-responses']);
  });
  afterAll(async () => {
    await mock.stop();
  });

  test('a control-plane answer that leaves control-plane.openapi.json is a 500 naming why, and is logged', async () => {
    const res = await request(mock.url).get('/__mock/clock');
    expect(res.status).toBe(500);
    expect(res.body.detail).toMatch(/^getClock 200 response does not match control-plane\.openapi\.json: .*zone/);
    await mock.waitFor(/getClock.*response validation failed|response validation failed.*getClock/);
  });

  test('a control-plane answer the edited document still describes goes out unchanged', async () => {
    const res = await request(mock.url).get('/__mock/faults');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [] });
  });

  test('a control-plane error answer is checked too: a bad clock body is still a documented 422', async () => {
    const res = await request(mock.url).post('/__mock/clock').send({ advance: 'later' });
    expect(res.status).toBe(422);
  });

  test('a service answer that leaves openapi.json is a 500 naming why', async () => {
    const res = await request(mock.url).get('/mailboxes/mbx_gmail').set(bearer('sk_test_demo'));
    expect(res.status).toBe(500);
    expect(res.text).toBe('Internal Server Error');
    await mock.waitFor(/getMailbox 200 response does not match openapi\.json/);
  });
});

test('without --validate-responses the same answers go out as the mock makes them', async () => {
  const mock = await commandWithDocuments({ 'control-plane.openapi.json': controlPlaneWithZone(), 'openapi.json': serviceWithOwner() });
  try {
    const clock = await request(mock.url).get('/__mock/clock');
    expect(clock.status).toBe(200);
    expect(Object.keys(clock.body).sort()).toEqual(['frozen', 'now', 'offset_seconds']);
    const mailbox = await request(mock.url).get('/mailboxes/mbx_gmail').set(bearer('sk_test_demo'));
    expect(mailbox.status).toBe(200);
  } finally {
    await mock.stop();
  }
});
