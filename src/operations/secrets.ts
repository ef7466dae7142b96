/** Stored secrets: store, list, read by name, delete (CONTRACT §1, §2). */
import { DETAIL, notFound } from '../errors/http-error.js';
import { isoTime } from '../primitives/clock.js';
import type { StoredSecret } from '../model/records.js';
import { workspaceOf, type Handler, type OperationDescriptor } from './types.js';

/** The metadata of a secret: never its value. */
export function secretView(s: StoredSecret) {
  return {
    id: s.id,
    namespace: s.namespace,
    name: s.name,
    key_hint: s.key_hint,
    created_at: isoTime(s.created_at),
    last_used_at: s.last_used_at === null ? null : isoTime(s.last_used_at),
  };
}

/** Python compares strings by code point; JavaScript's `<` by UTF-16 unit. */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d) return d;
  }
}

export const storeSecret: Handler<'storeSecret'> = async ({ body }, ctx) => {
  const ws = workspaceOf(ctx);
  const { name, value, namespace } = body;
  // Storing a name that exists in the namespace replaces the value and keeps id and created_at (chosen).
  const secret = await ws.storeSecret(namespace, name, value, ctx.clock.now());
  return { status: 201, json: secretView(secret) };
};

export const listSecrets: Handler<'listSecrets'> = async ({ query }, ctx) => {
  const ns: string | null = query.namespace ?? null;
  const items = workspaceOf(ctx)
    .secrets()
    .filter((s) => ns === null || s.namespace === ns)
    .sort((a, b) => compareCodePoints(a.name, b.name) || compareCodePoints(a.namespace, b.namespace));
  return { status: 200, json: { items: items.map(secretView) } };
};

export const getSecret: Handler<'getSecret'> = async ({ path, query }, ctx) => {
  const ws = workspaceOf(ctx);
  const secret = ws.secret(query.namespace, path.name);
  if (!secret) throw notFound(DETAIL.secretNotFound);
  await ws.useSecret(secret, ctx.clock.now());
  return { status: 200, json: { value: secret.value } };
};

export const deleteSecret: Handler<'deleteSecret'> = async ({ path }, ctx) => {
  if (!(await workspaceOf(ctx).deleteSecret(path.secret_id))) throw notFound(DETAIL.secretNotFound);
  return { status: 204 };
};

export const storeSecretDescriptor: OperationDescriptor<'storeSecret'> = {
  prefer: { 400: DETAIL.bodyParseError, 413: DETAIL.bodyTooLarge },
  secretBody: { shown: ['name', 'namespace'] },
};
export const listSecretsDescriptor: OperationDescriptor<'listSecrets'> = { prefer: {} };
export const getSecretDescriptor: OperationDescriptor<'getSecret'> = { prefer: { 404: DETAIL.secretNotFound } };
export const deleteSecretDescriptor: OperationDescriptor<'deleteSecret'> = { prefer: { 404: DETAIL.secretNotFound } };
