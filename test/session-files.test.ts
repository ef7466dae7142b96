/** Session files over HTTP: paging, upload → list → download, delete, expiry, limits. */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { DETAIL } from '../src/errors/http-error.js';
import { Clock } from '../src/primitives/clock.js';
import { bearer, multipart, testApp } from './helpers.js';

const AUTH = bearer('sk_test_files');
let app: MockApp;
let clock: Clock;

beforeEach(async () => {
  clock = new Clock();
  app = await testApp({ clock });
});
afterEach(() => app.mock.close());

const list = (session: string, query = '') => request(app).get(`/sessions/${session}/files${query}`).set(AUTH);
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('listSessionFiles', () => {
  test('when no paging is given, returns the first 100 of sess_many_files with total 150', async () => {
    const res = await list('sess_many_files');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 150, limit: 100, offset: 0 });
    expect(res.body.files).toHaveLength(100);
  });

  test('pages are newest first, stable, and together hold every file exactly once', async () => {
    const seen: any[] = [];
    for (let offset = 0; offset < 150; offset += 40) {
      const res = await list('sess_many_files', `?limit=40&offset=${offset}`);
      expect(res.body.total).toBe(150);
      seen.push(...res.body.files);
    }
    expect(new Set(seen.map((f) => f.id)).size).toBe(150);
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1], seen[i]];
      expect(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id)).toBe(true);
    }
  });

  test.each(['user_upload', 'session_download'])('when source=%s, lists and counts only that source', async (source) => {
    const all = (await list('sess_many_files', '?limit=1000')).body.files;
    const res = await list('sess_many_files', `?source=${source}&limit=1000`);
    const expected = all.filter((f: any) => f.source === source);
    expect(expected.length).toBeGreaterThan(0);
    expect(res.body.total).toBe(expected.length);
    expect(res.body.files.map((f: any) => f.id)).toEqual(expected.map((f: any) => f.id));
  });

  test('when offset is past the end, returns no files and the full total', async () => {
    const res = await list('sess_many_files', '?offset=500');
    expect(res.body).toEqual({ files: [], total: 150, limit: 100, offset: 500 });
  });

  test('when the session has no files, returns an empty page', async () => {
    expect((await list('sess_empty')).body).toEqual({ files: [], total: 0, limit: 100, offset: 0 });
  });

  test('when the session does not exist, returns 404 Session not found', async () => {
    const res = await list('sess_nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: DETAIL.sessionNotFound });
  });

  test('expired files are neither listed nor counted', async () => {
    clock.advance(8 * 24 * 3600 * 1000);
    expect((await list('sess_demo')).body.total).toBe(0);
  });
});

describe('upload → list → download → delete', () => {
  const content = Buffer.from('a,b\n1,2\n\u00e9\u20ac\n', 'utf8');
  const upload = (body: Buffer, boundary = 'XyZ') =>
    request(app).post('/sessions/sess_demo/files').set(AUTH).set('Content-Type', `multipart/form-data; boundary=${boundary}`).send(body);

  test('an uploaded file is listed first and downloads as the same bytes', async () => {
    const up = await upload(multipart('XyZ', [{ name: 'file', filename: 'data.csv', type: 'text/csv', content }]));
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ session_id: 'sess_demo', filename: 'data.csv', mime_type: 'text/csv', size: content.length, checksum: sha256(content), source: 'user_upload' });
    expect(up.body.id).toMatch(/^file_[0-9a-f]{16}$/);
    expect(Date.parse(up.body.expires_at) - Date.parse(up.body.created_at)).toBe(7 * 24 * 3600 * 1000);

    const listed = await list('sess_demo');
    expect(listed.body.total).toBe(3);
    expect(listed.body.files[0]).toEqual(up.body);

    const down = await request(app).get(`/sessions/sess_demo/files/${up.body.id}`).set(AUTH).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(down.status).toBe(200);
    expect(sha256(down.body as Buffer)).toBe(up.body.checksum);
    expect((down.body as Buffer).length).toBe(up.body.size);
    expect(down.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(down.headers['content-length']).toBe(String(content.length));
    expect(down.headers['content-disposition']).toBe('attachment; filename="data.csv"');

    const del = await request(app).delete(`/sessions/sess_demo/files/${up.body.id}`).set(AUTH);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await list('sess_demo')).body.total).toBe(2);
    expect((await request(app).get(`/sessions/sess_demo/files/${up.body.id}`).set(AUTH)).status).toBe(404);
  });

  test('a seeded file downloads as bytes matching its listed checksum and size', async () => {
    const files = (await list('sess_many_files', '?limit=5')).body.files;
    for (const f of files) {
      const res = await request(app).get(`/sessions/sess_many_files/files/${f.id}`).set(AUTH).buffer(true).parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
      expect(res.status).toBe(200);
      expect((res.body as Buffer).length).toBe(f.size);
      expect(sha256(res.body as Buffer)).toBe(f.checksum);
    }
  });

  test.each([
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\win.ini', 'win.ini'],
    ['/abs/path/report.pdf', 'report.pdf'],
    ['bad\u0000na\u0007me.txt', 'badname.txt'],
    ['', 'upload'],
    ['dir/', 'upload'],
  ])('the client file name %j is stored as %j', async (given, stored) => {
    const res = await upload(multipart('XyZ', [{ name: 'file', filename: given, type: 'text/plain', content: 'x' }]));
    expect(res.status).toBe(201);
    expect(res.body.filename).toBe(stored);
  });

  test.each([
    ['photo.png', undefined, 'image/png'],
    ['photo.png', 'application/octet-stream', 'image/png'],
    ['notes', undefined, 'application/octet-stream'],
    ['x.bin', 'application/pdf', 'application/pdf'],
  ])('the mime type of %j sent as %j is %j', async (filename, type, expected) => {
    const res = await upload(multipart('XyZ', [{ name: 'file', filename, type, content: 'x' }]));
    expect(res.body.mime_type).toBe(expected);
  });

  test('a non-ASCII name is given as RFC 6266 filename* on download', async () => {
    const up = await upload(multipart('XyZ', [{ name: 'file', filename: 'résumé 1.txt', type: 'text/plain', content: 'x' }]));
    const res = await request(app).get(`/sessions/sess_demo/files/${up.body.id}`).set(AUTH);
    expect(res.headers['content-disposition']).toBe("attachment; filename*=utf-8''r%C3%A9sum%C3%A9%201.txt");
  });

  test('when the upload is over --max-upload, returns 413 File too large and stores nothing', async () => {
    const small = await testApp({ maxUploadBytes: 10 });
    try {
      const res = await request(small)
        .post('/sessions/sess_demo/files')
        .set(AUTH)
        .set('Content-Type', 'multipart/form-data; boundary=XyZ')
        .send(multipart('XyZ', [{ name: 'file', filename: 'big.txt', content: 'x'.repeat(11) }]));
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ detail: DETAIL.fileTooLarge });
      expect((await request(small).get('/sessions/sess_demo/files').set(AUTH)).body.total).toBe(2);
    } finally {
      await small.mock.close();
    }
  });

  test('when uploading to an unknown session, returns 404 Session not found', async () => {
    const res = await request(app)
      .post('/sessions/sess_nope/files')
      .set(AUTH)
      .set('Content-Type', 'multipart/form-data; boundary=XyZ')
      .send(multipart('XyZ', [{ name: 'file', filename: 'a.txt', content: 'a' }]));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: DETAIL.sessionNotFound });
  });
});

describe('expiry', () => {
  test('a file downloads until expires_at, then answers 410 File expired; deleting it is still 204', async () => {
    const f = (await list('sess_demo')).body.files[0];
    expect((await request(app).get(`/sessions/sess_demo/files/${f.id}`).set(AUTH)).status).toBe(200);
    clock.set(Date.parse(f.expires_at));
    const res = await request(app).get(`/sessions/sess_demo/files/${f.id}`).set(AUTH);
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ detail: DETAIL.fileExpired });
    expect((await request(app).delete(`/sessions/sess_demo/files/${f.id}`).set(AUTH)).status).toBe(204);
  });

  test('an unknown file id answers 404 File not found for download and delete', async () => {
    for (const method of ['get', 'delete'] as const) {
      const res = await request(app)[method]('/sessions/sess_demo/files/file_nope').set(AUTH);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: DETAIL.fileNotFound });
    }
  });
});
