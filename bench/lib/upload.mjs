/**
 * One large multipart upload, streamed from memory-light chunks: the client never holds the
 * whole body, and it hashes what it sends so the mock's checksum can be checked.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request } from 'node:http';

export async function uploadFile(url, token, size) {
  const boundary = `----cbm-bench-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const block = randomBytes(1 << 20);
  const hash = createHash('sha256');
  const t0 = performance.now();
  const req = request(url, {
    method: 'POST',
    agent: false,
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': String(head.length + size + tail.length),
    },
  });
  const response = new Promise((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
    });
  });
  req.write(head);
  for (let sent = 0; sent < size; ) {
    const piece = block.subarray(0, Math.min(block.length, size - sent));
    hash.update(piece);
    sent += piece.length;
    if (!req.write(piece)) await Promise.race([once(req, 'drain'), response]);
  }
  req.end(tail);
  const res = await response;
  const ms = performance.now() - t0;
  const checksum = hash.digest('hex');
  let record;
  try {
    record = JSON.parse(res.body);
  } catch {
    record = null;
  }
  const ok = res.status === 201 && record?.checksum === checksum && record?.size === size;
  return { ms, status: res.status, ok, record };
}
