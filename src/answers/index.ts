/**
 * TEMPORARY STUB (helper i30-core): stands in for helper i30-answers' src/answers/ (a maintained
 * generator, valid against every schema) until the lead merges theirs, which replaces this file.
 * Only the agreed interface (i30-shared.md, interface 2) and the least the core's tests need: a
 * documented example, else the `required` properties of the lowest 2xx schema with plain values,
 * path parameters and sent body fields echoed, `session_id` from `newId`.
 */
export interface AnswerRequest {
  operation: Record<string, any>;
  operationId: string;
  pathParams: Record<string, string>;
  query: Record<string, string | string[]>;
  /** The JSON body exactly as the client sent it (parsed), before validation filled defaults. */
  sentBody?: unknown;
  prefer?: { code?: number; example?: string };
  seed: number | string;
  now: Date;
  /** New id for a field (e.g. 'session_id' → 'sess_' + 16 hex) from the workspace generator; undefined = let the generator choose. */
  newId?: (field: string) => string | undefined;
}

export interface GeneratedAnswer {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  bytes?: Buffer;
  contentType?: string;
  noBody?: boolean;
}

/** A `Prefer: code=` the operation does not document. */
export class PreferError extends Error {
  override name = 'PreferError';
}

type Schema = Record<string, any>;

const FORMATS: Record<string, string> = { date: '2026-01-01', duration: 'PT1M', uri: 'https://example.com/', url: 'https://example.com/', email: 'user@example.com', uuid: '00000000-0000-4000-8000-000000000000', password: 'secret' };

export function createAnswerer(document: Record<string, any>): { answer(req: AnswerRequest): GeneratedAnswer; bodyFor(operationId: string, status: number): unknown } {
  const deref = (s: Schema | undefined): Schema => {
    let out = s ?? {};
    for (let i = 0; out.$ref && i < 16; i++) out = String(out.$ref).split('/').slice(1).reduce((o: any, k: string) => o?.[k], document) ?? {};
    return out;
  };
  const sample = (schema: Schema | undefined, field: string, req: AnswerRequest | undefined, depth: number): unknown => {
    const s = deref(schema);
    if ('const' in s) return s.const;
    if (Array.isArray(s.enum)) return s.enum[0];
    if (s.default !== undefined) return s.default;
    const branch = s.anyOf ?? s.oneOf;
    if (Array.isArray(branch)) return sample(branch.find((b: Schema) => deref(b).type !== 'null') ?? branch[0], field, req, depth);
    const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
    if (type === 'object' || s.properties) {
      if (depth > 6) return {};
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? []) out[name] = fitted(name, s.properties?.[name], req) ?? sample(s.properties?.[name], name, req, depth + 1);
      return out;
    }
    if (type === 'array') return [];
    if (type === 'integer' || type === 'number') return typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 0;
    if (type === 'boolean') return false;
    if (type === 'null') return null;
    if (s.format === 'date-time') return (req?.now ?? new Date(0)).toISOString();
    if (typeof s.format === 'string' && Object.hasOwn(FORMATS, s.format)) return FORMATS[s.format];
    const text = req?.newId?.(field) ?? field;
    return typeof s.minLength === 'number' && text.length < s.minLength ? text.padEnd(s.minLength, 'x') : text;
  };
  const fitted = (name: string, schema: Schema | undefined, req: AnswerRequest | undefined): unknown => {
    if (!req) return undefined;
    if (Object.hasOwn(req.pathParams, name)) return req.pathParams[name];
    const sent = req.sentBody as Record<string, unknown> | undefined;
    const type = deref(schema).type;
    if (sent && typeof sent === 'object' && Object.hasOwn(sent, name) && typeof sent[name] === type) return sent[name];
    return undefined;
  };
  const opById = new Map<string, Schema>();
  for (const item of Object.values((document.paths ?? {}) as Record<string, Schema>)) for (const op of Object.values(item)) if (op?.operationId) opById.set(op.operationId, op);
  const render = (operation: Schema, status: number, req: AnswerRequest | undefined): GeneratedAnswer => {
    const response = operation.responses?.[String(status)] ?? {};
    const [media, content] = (Object.entries(response.content ?? {})[0] ?? []) as [string | undefined, Schema | undefined];
    if (status === 204 || !media) return { status, noBody: true };
    const named = req?.prefer?.example !== undefined ? content?.examples?.[req.prefer.example]?.value : undefined;
    const example = named ?? content?.example ?? (content?.examples ? (Object.values(content.examples)[0] as Schema)?.value : undefined);
    if (media !== 'application/json') return { status, bytes: Buffer.from(typeof example === 'string' ? example : ''), contentType: media };
    return { status, json: example ?? sample(content?.schema, '', req, 0) };
  };
  return {
    answer(req) {
      const statuses = Object.keys(req.operation.responses ?? {});
      if (req.prefer?.code !== undefined && !statuses.includes(String(req.prefer.code))) throw new PreferError(`Prefer code=${req.prefer.code} ignored: not a documented response of ${req.operationId} (documented: ${statuses.join(', ')})`);
      const status = req.prefer?.code ?? Number(statuses.filter((s) => /^2\d\d$/.test(s)).sort()[0] ?? 200);
      return render(req.operation, status, req);
    },
    bodyFor(operationId, status) {
      const op = opById.get(operationId);
      return op ? render(op, status, undefined).json : undefined;
    },
  };
}
