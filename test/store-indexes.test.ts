/**
 * The store's shortcuts must be invisible: kept JSON text serialises exactly as JSON.stringify,
 * the file index pages exactly as filtering and sorting every file would, and records cannot be
 * changed behind the store's back.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { SessionFileIndex } from '../src/store/file-index.js';
import { deepFreeze, serializeJson, type TextCache } from '../src/store/json-text.js';
import { compareFiles, type FileSource, type StoredFile } from '../src/model/records.js';
import { codePoint } from './arbitraries.js';
import { bearer, testApp } from './helpers.js';
import { storedWorkspaces, workspacesDir } from './data-layout.js';

/** Any code points, lone surrogates too (JSON.stringify escapes those; UTF-8 must not see them). */
const anyText = fc.string({ unit: fc.oneof(fc.string({ unit: codePoint, minLength: 1, maxLength: 1 }), fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c))) });

/** A JSON value in which some objects and arrays are deep-frozen (kept) and others not. */
const jsonWithFrozenParts = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -1.5, 1e21, '', ','),
    anyText,
    fc.double({ noNaN: false }),
    tie('array'),
    tie('object'),
  ),
  array: fc.tuple(fc.array(tie('value'), { maxLength: 5 }), fc.boolean()).map(([a, frozen]) => (frozen ? deepFreeze(a) : a)),
  object: fc
    .tuple(fc.dictionary(anyText, fc.oneof(tie('value'), fc.constant(undefined)), { maxKeys: 5 }), fc.boolean())
    .map(([o, frozen]) => (frozen ? deepFreeze(o) : o)),
}));

describe('serializeJson', () => {
  test('writes exactly the bytes of JSON.stringify, kept text or not, first time and again', () => {
    fc.assert(
      fc.property(jsonWithFrozenParts.value, (value) => {
        const cache: TextCache = new WeakMap();
        const expected = Buffer.from(JSON.stringify(value), 'utf8');
        expect(serializeJson(value, cache).equals(expected)).toBe(true);
        expect(serializeJson(value, cache).equals(expected)).toBe(true);
      }),
    );
  });

  test('a replaced record is written anew; its unchanged neighbours come from the cache', () => {
    const cache: TextCache = new WeakMap();
    const doc = { secrets: [deepFreeze({ name: 'A', value: 'one' }), deepFreeze({ name: 'B', value: 'two' })] };
    serializeJson(doc, cache);
    doc.secrets[1] = deepFreeze({ ...doc.secrets[1], value: 'three' });
    expect(serializeJson(doc, cache).toString('utf8')).toBe('{"secrets":[{"name":"A","value":"one"},{"name":"B","value":"three"}]}');
  });
});

describe('SessionFileIndex', () => {
  const HOUR = 3600_000;
  const file = (n: number, source: FileSource, created: number, expires: number): StoredFile =>
    deepFreeze({ id: `file_${n.toString(16).padStart(4, '0')}`, session_id: 's', filename: 'f', mime_type: 'text/plain', size: 1, checksum: '', created_at: created, expires_at: expires, source });

  /** What listSessionFiles answered before the index: filter every file, then slice. */
  function reference(files: StoredFile[], source: FileSource | null, now: number, offset: number, limit: number) {
    const matching = [...files].sort(compareFiles).filter((f) => f.expires_at > now && (source === null || f.source === source));
    return { ids: matching.slice(offset, offset + limit).map((f) => f.id), total: matching.length };
  }

  const op = fc.oneof(
    fc.record({ kind: fc.constant('add' as const), created: fc.integer({ min: 0, max: 20 }), life: fc.integer({ min: 1, max: 20 }), source: fc.constantFrom<FileSource>('user_upload', 'session_download') }),
    fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
    fc.record({
      kind: fc.constant('page' as const),
      source: fc.constantFrom<FileSource | null>(null, 'user_upload', 'session_download'),
      now: fc.integer({ min: 0, max: 40 }),
      offset: fc.integer({ min: 0, max: 12 }),
      limit: fc.integer({ min: 1, max: 6 }),
    }),
  );

  test('after any adds and removes, every page and total equal filtering and sorting every file', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const stored: StoredFile[] = [];
        const index = new SessionFileIndex(stored);
        const all: StoredFile[] = [];
        let n = 0;
        for (const o of ops) {
          if (o.kind === 'add') {
            const f = file(n++, o.source, o.created * HOUR, (o.created + o.life) * HOUR);
            all.push(f);
            index.add(f);
          } else if (o.kind === 'remove') {
            if (!all.length) continue;
            const [f] = all.splice(o.pick % all.length, 1);
            expect(index.remove(f.id)).toBe(f);
            expect(index.get(f.id)).toBeUndefined();
          } else {
            const page = index.page(o.source, o.now * HOUR, o.offset, o.limit);
            expect({ ids: page.files.map((f) => f.id), total: page.total }).toEqual(reference(all, o.source, o.now * HOUR, o.offset, o.limit));
          }
        }
        // The persisted list stays in listing order, holding exactly the files.
        expect(stored.map((f) => f.id)).toEqual([...all].sort(compareFiles).map((f) => f.id));
      }),
    );
  });
});

describe('records are immutable values', () => {
  test('when a handler-side change bypasses the workspace, it throws instead of going unsaved', async () => {
    const app = await testApp();
    try {
      const ws = await app.mock.store.workspace('key:test');
      const secret = ws.secret('llm_provider', 'OPENAI_API_KEY')!;
      expect(() => {
        (secret as { value: string }).value = 'changed';
      }).toThrow(TypeError);
    } finally {
      await app.mock.close();
    }
  });

  test('a read stamp, a replaced value and a mailbox update are all on disk after the answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cbm-kept-text-'));
    try {
      const app = await testApp({ dataDir: dir });
      const auth = bearer('kept-text');
      try {
        await request(app).get('/secrets/OPENAI_API_KEY?namespace=llm_provider').set(auth).expect(200);
        await request(app).post('/secrets').set(auth).send({ name: 'SCRAPER_TOKEN', value: 'replaced-value' }).expect(201);
        await request(app).patch('/mailboxes/mbx_gmail').set(auth).send({ allow_all_senders: false }).expect(200);
        // Read while the app still runs: acknowledged means already on disk.
        // The snapshot and every line of the change log are exactly JSON.stringify's bytes.
        for (const name of readdirSync(workspacesDir(dir))) {
          const text = readFileSync(join(workspacesDir(dir), name), 'utf8');
          const docs = name.endsWith('.log') ? text.split('\n').filter(Boolean) : [text];
          for (const doc of docs) expect(doc).toBe(JSON.stringify(JSON.parse(doc)));
        }
        const [data] = storedWorkspaces(dir).values();
        expect(data.secrets.find((s: any) => s.name === 'OPENAI_API_KEY').last_used_at).not.toBeNull();
        expect(data.secrets.find((s: any) => s.name === 'SCRAPER_TOKEN').value).toBe('replaced-value');
        expect(data.mailboxes.find((m: any) => m.id === 'mbx_gmail').allow_all_senders).toBe(false);
      } finally {
        await app.mock.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('workspaces share the scenario’s records but never each other’s changes', async () => {
    const app = await testApp();
    try {
      await request(app).post('/secrets').set(bearer('one')).send({ name: 'OPENAI_API_KEY', value: 'only-for-one', namespace: 'llm_provider' }).expect(201);
      const two = await request(app).get('/secrets/OPENAI_API_KEY?namespace=llm_provider').set(bearer('two')).expect(200);
      expect(two.body.value).not.toBe('only-for-one');
    } finally {
      await app.mock.close();
    }
  });
});
