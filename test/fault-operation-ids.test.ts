/**
 * A fault for an operation the service does not have is refused, never stored to sit there
 * unfired (issue 13): over HTTP a 422, through the in-process runtime a thrown error, and both
 * say what was meant (MSW's "did you mean…?", nearest first) and list every valid operationId.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { UnknownOperationError } from '../src/records/faults.js';
import { testApp } from './helpers.js';

const ALL =
  'createToken, listSessionFiles, uploadSessionFile, downloadSessionFile, deleteSessionFile, getSessionScript, listMailboxes, getMailbox, updateMailbox, syncMailboxes, deleteMailbox, storeSecret, listSecrets, getSecret, deleteSecret';

let app: MockApp;
beforeAll(async () => {
  app = await testApp();
});
afterAll(() => app.mock.close());

describe.each([
  ['a missing letter', 'listSecret', 'unknown operationId "listSecret" — did you mean one of listSecrets, getSecret? operationId must be * or one of ' + ALL],
  ['the wrong case', 'listsecrets', 'unknown operationId "listsecrets" — did you mean listSecrets? operationId must be * or one of ' + ALL],
  ['a near miss of several, nearest first', 'getMailboxes', 'unknown operationId "getMailboxes" — did you mean one of getMailbox, listMailboxes? operationId must be * or one of ' + ALL],
  ['nothing like any', 'typo', 'unknown operationId "typo" operationId must be * or one of ' + ALL],
])('a fault naming %s (%s)', (_case, operationId, message) => {
  test('POST /__mock/faults answers 422 with the guess and the valid ids, and stores nothing', async () => {
    const res = await request(app).post('/__mock/faults').send({ operationId, status: 503 });
    expect([res.status, res.body]).toEqual([422, { detail: message }]);
    expect((await request(app).get('/__mock/faults')).body.items).toEqual([]);
  });

  test('app.mock.faults.add throws an UnknownOperationError with the same message', () => {
    const add = () => app.mock.faults.add({ operationId, status: 503 });
    expect(add).toThrow(UnknownOperationError);
    expect(add).toThrow(new UnknownOperationError(message));
    expect(app.mock.faults.list()).toEqual([]);
  });
});

test('"*" and every operationId of the document are accepted', async () => {
  for (const operationId of ['*', ...ALL.split(', ')]) {
    expect((await request(app).post('/__mock/faults').send({ operationId, status: 503, probability: 0 })).status).toBe(201);
  }
  expect((await request(app).delete('/__mock/faults')).status).toBe(204);
});
