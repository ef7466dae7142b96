/** Helpers for the --upstream tests: a log that can be read back, and a client flow to replay. */
import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A pino destination that keeps every line, to look for what must never be logged. */
export function logCapture(): { stream: Writable; text(): string } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => lines.join('') };
}

export interface Answer {
  step: string;
  status: number;
  contentType: string | null;
  disposition: string | null;
  /** Text for JSON answers; SHA-256 of the bytes for anything else. */
  body: string;
}

async function answer(step: string, res: Response): Promise<Answer> {
  const bytes = Buffer.from(await res.arrayBuffer());
  const contentType = res.headers.get('content-type');
  const body = contentType?.startsWith('application/json') ? bytes.toString('utf8') : `sha256:${sha256(bytes)}`;
  return { step, status: res.status, contentType, disposition: res.headers.get('content-disposition'), body };
}

export const SECRET_VALUE = 'flow-secret-value-0f3a9c';
/** Bytes no text encoding survives: every byte value, then random ones. */
export const UPLOAD = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(200_000)]);

/** Everything a client does with the service, in order; every answer is kept. */
export async function clientFlow(base: string, token: string): Promise<Answer[]> {
  const out: Answer[] = [];
  const auth = { Authorization: `Bearer ${token}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const call = async (step: string, path: string, init: RequestInit = {}) => {
    const res = await fetch(`${base}${path}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });
    const a = await answer(step, res);
    out.push(a);
    return a;
  };
  await call('createToken', '/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'username=dev@example.com&password=password' });
  const listed = JSON.parse((await call('listSessionFiles', '/sessions/sess_demo/files?limit=100')).body);
  const form = new FormData();
  form.append('file', new Blob([UPLOAD], { type: 'application/octet-stream' }), 'capture.bin');
  const uploaded = JSON.parse((await call('uploadSessionFile', '/sessions/sess_demo/files', { method: 'POST', body: form })).body);
  await call('downloadSessionFile uploaded', `/sessions/sess_demo/files/${uploaded.id}`);
  for (const f of listed.files) await call(`downloadSessionFile ${f.id}`, `/sessions/sess_demo/files/${f.id}`);
  await call('listSessionFiles sess_many_files', '/sessions/sess_many_files/files?limit=3');
  await call('deleteSessionFile', `/sessions/sess_many_files/files/${JSON.parse(out[out.length - 1].body).files[0].id}`, { method: 'DELETE' });
  await call('getSessionScript', '/sessions/sess_demo/workflow/code?as_workflow=true');
  // Inferred response formats must not replace the recorded actions.
  await call('getSessionScript inferred', '/sessions/sess_demo/workflow/code?infer_response_format=true');
  await call('listMailboxes', '/mailboxes');
  await call('updateMailbox', '/mailboxes/mbx_gmail', { method: 'PATCH', headers: json, body: JSON.stringify({ allow_all_senders: false, allowed_sender_domains: ['example.com'] }) });
  await call('syncMailboxes', '/mailboxes/sync', { method: 'POST', headers: json, body: JSON.stringify({ provider: 'gmail' }) });
  await call('deleteMailbox', '/mailboxes/mbx_outlook', { method: 'DELETE' });
  await call('storeSecret', '/secrets', { method: 'POST', headers: json, body: JSON.stringify({ name: 'FLOW_SECRET', value: SECRET_VALUE, namespace: 'function_env' }) });
  await call('listSecrets', '/secrets');
  await call('getSecret', '/secrets/FLOW_SECRET?namespace=function_env');
  await call('deleteSecret', '/secrets/sec_scraper', { method: 'DELETE' });
  await call('a missing session', '/sessions/sess_nope/files');
  await call('a forbidden limit', '/sessions/sess_demo/files?limit=2000');
  await call('no token', '/mailboxes', { headers: { Authorization: '' } });
  // The state the recording must reproduce.
  await call('listSessionFiles at the end', '/sessions/sess_demo/files?limit=100');
  await call('getMailbox at the end', '/mailboxes/mbx_gmail');
  await call('listSecrets at the end', '/secrets');
  return out;
}
