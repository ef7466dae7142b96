/**
 * Writes src/generated/*.ts from openapi.json and control-plane.openapi.json: the operation ids and,
 * per operation, its input (path, query, headers, body) and output (per status) as TypeScript types.
 * Plain JavaScript run by Node, so it needs no build; `npm run generate` runs it, and
 * test/generated-types.test.ts fails when the committed files differ from what it writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Each document and the file generated from it. */
export const TARGETS = [
  { document: 'openapi.json', output: 'src/generated/service-api.ts', what: 'the service' },
  { document: 'control-plane.openapi.json', output: 'src/generated/control-plane-api.ts', what: 'the control plane under /__mock' },
];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
/** A description as a one-line TSDoc comment (`*​/` cannot end it early). */
const doc = (text, indent) => (text ? `${indent}/** ${String(text).replace(/\s+/g, ' ').replace(/\*\//g, '*\\/')} */\n` : '');

/** `T | null` unless T already admits null (`Optional[X]` is `anyOf: [X, null]`). */
const orNull = (t) => (/(^|\| )null( \||$)/.test(t) ? t : `${t} | null`);

function resolve(document, schema) {
  let s = schema ?? {};
  for (let i = 0; s.$ref && i < 32; i++) s = s.$ref.split('/').slice(1).reduce((o, k) => o?.[k], document) ?? {};
  return s;
}

/**
 * A schema as a type. The documents use a small JSON-Schema subset: $ref to components, anyOf
 * (mostly with null), allOf, enum, arrays, objects with properties and/or additionalProperties,
 * strings (binary ones included: a multipart field), numbers, booleans, and `{}` for any value.
 */
function typeOf(schema, indent) {
  if (!schema || typeof schema !== 'object') return 'unknown';
  if (schema.$ref) {
    const name = schema.$ref.match(/^#\/components\/schemas\/(.+)$/)?.[1];
    if (!name) throw new Error(`unsupported $ref ${schema.$ref}`);
    return `Schemas[${JSON.stringify(name)}]`;
  }
  if (schema.anyOf || schema.oneOf) return (schema.anyOf ?? schema.oneOf).map((s) => wrap(typeOf(s, indent))).join(' | ');
  if (schema.allOf) return schema.allOf.map((s) => wrap(typeOf(s, indent))).join(' & ');
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${typeOf(schema.items, indent)}>`;
    case 'object':
      return objectType(schema, indent, (name) => (schema.required ?? []).includes(name) || schema.properties[name].default !== undefined ? '' : '?');
    case undefined:
      if (schema.properties || schema.additionalProperties !== undefined) return objectType(schema, indent, () => '?');
      return 'unknown';
    default:
      throw new Error(`unsupported type ${JSON.stringify(schema.type)}`);
  }
}

/** Parenthesises a union or intersection (at the top level, outside braces) before it is combined. */
function wrap(t) {
  let depth = 0;
  for (const c of t) {
    if ('{[(<'.includes(c)) depth++;
    else if ('}])>'.includes(c)) depth--;
    else if (depth === 0 && (c === '|' || c === '&')) return `(${t})`;
  }
  return t;
}

/**
 * An object type. A property with a default counts as present: in a request the validator fills
 * it in, and the service's models always serialise it in an answer.
 */
function objectType(schema, indent, mark) {
  const props = Object.entries(schema.properties ?? {});
  const extra = schema.additionalProperties;
  const extraType = extra === undefined || extra === false ? null : extra === true ? 'unknown' : typeOf(extra, `${indent}  `);
  if (!props.length) return extraType ? `Record<string, ${extraType}>` : extra === false ? 'Record<string, never>' : 'Record<string, unknown>';
  const lines = props.map(([name, s]) => `${doc(s.description, `${indent}  `)}${indent}  ${key(name)}${mark(name)}: ${typeOf(s, `${indent}  `)};`);
  // With declared properties too, the index signature must admit their types.
  if (extraType) lines.push(`${indent}  [key: string]: unknown;`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** Parameters of one location: every declared one is present, null when absent with no default. */
function paramsType(document, params, where, indent) {
  const mine = params.filter((p) => p.in === where);
  if (!mine.length) return 'Record<string, never>';
  const lines = mine.map((p) => {
    const s = p.schema ?? {};
    const absent = !p.required && resolve(document, s).default === undefined && s.default === undefined;
    const t = typeOf(s, `${indent}  `);
    return `${doc(p.description, `${indent}  `)}${indent}  ${key(p.name)}: ${absent ? orNull(t) : t};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/**
 * The body a handler sees. JSON: the schema's type (undefined when an optional body is absent).
 * A form: every declared field, null when absent with no default; binary fields arrive as the
 * upload instead, and are named in `upload`.
 */
function bodyType(document, op, indent) {
  if (!op.requestBody) return { body: 'undefined', upload: 'never' };
  const [mediaType, media] = Object.entries(op.requestBody.content)[0];
  if (mediaType === 'application/json') {
    const t = typeOf(media.schema, indent);
    return { body: op.requestBody.required ? t : `${wrap(t)} | undefined`, upload: 'never' };
  }
  const schema = resolve(document, media.schema);
  const required = schema.required ?? [];
  const lines = [];
  const binary = [];
  for (const [name, s] of Object.entries(schema.properties ?? {})) {
    const field = resolve(document, s);
    if (field.type === 'string' && field.format === 'binary') {
      binary.push(JSON.stringify(name));
      continue;
    }
    const absent = !required.includes(name) && s.default === undefined && field.default === undefined;
    const t = typeOf(s, `${indent}  `);
    lines.push(`${doc(s.description, `${indent}  `)}${indent}  ${key(name)}: ${absent ? orNull(t) : t};`);
  }
  return { body: lines.length ? `{\n${lines.join('\n')}\n${indent}}` : 'Record<string, never>', upload: binary.length ? binary.join(' | ') : 'never' };
}

/** Answers by status, each by media type; binary content is `Binary`, no content `{}`. */
function responsesType(responses, indent) {
  const lines = Object.entries(responses ?? {}).map(([status, r]) => {
    const media = Object.entries(r.content ?? {}).map(([type, m]) => {
      const s = m.schema ?? {};
      const t = s.type === 'string' && s.format === 'binary' ? 'Binary' : typeOf(s, `${indent}    `);
      return `${indent}    ${JSON.stringify(type)}: ${t};`;
    });
    const name = /^\d+$/.test(status) ? status : JSON.stringify(status);
    return `${doc(r.description, `${indent}  `)}${indent}  ${name}: ${media.length ? `{\n${media.join('\n')}\n${indent}  }` : 'Record<string, never>'};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function operationsOf(document) {
  const byId = new Map();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      if (!op.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      byId.set(op.operationId, { method, path, op, params: [...(item.parameters ?? []), ...(op.parameters ?? [])] });
    }
  }
  // Routing order (src/document/openapi.ts): x-route-order where the document records it, else document order.
  return (document['x-route-order'] ?? [...byId.keys()]).map((id) => [id, byId.get(id)]);
}

/** The text of the generated file for one document. */
export function generate(document, target) {
  const ops = operationsOf(document);
  const out = [];
  out.push('/**');
  out.push(` * The operations of ${target.document} (${target.what}) as types: their ids, and per operation the`);
  out.push(' * input a handler sees (path, query, headers, body, upload) and the answers by status and media type.');
  out.push(` * Generated by scripts/generate-api-types.mjs from ${target.document} — do not edit; run \`npm run generate\`.`);
  out.push(' */');
  out.push('');
  out.push('/** A binary answer: its bytes are streamed, never a JSON value. */');
  out.push('export type Binary = Uint8Array;');
  out.push('');
  out.push('export const OPERATION_IDS = [');
  for (const [id] of ops) out.push(`  ${JSON.stringify(id)},`);
  out.push('] as const;');
  out.push('export type OperationId = (typeof OPERATION_IDS)[number];');
  out.push('');
  out.push('export interface Schemas {');
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    out.push(`${doc(schema.description, '  ')}  ${key(name)}: ${typeOf(schema, '  ')};`);
  }
  out.push('}');
  out.push('');
  out.push('export interface Operations {');
  for (const [id, { method, path, op, params }] of ops) {
    const ind = '    ';
    const body = bodyType(document, op, ind);
    out.push(`  /** ${method.toUpperCase()} ${path}${op.summary ? `: ${op.summary.replace(/\*\//g, '*\\/')}` : ''} */`);
    out.push(`  ${key(id)}: {`);
    out.push(`    path: ${paramsType(document, params, 'path', ind)};`);
    out.push(`    query: ${paramsType(document, params, 'query', ind)};`);
    out.push(`    headers: ${paramsType(document, params, 'header', ind)};`);
    out.push(`    body: ${body.body};`);
    out.push(`    upload: ${body.upload};`);
    out.push(`    responses: ${responsesType(op.responses, ind)};`);
    out.push('  };');
  }
  out.push('}');
  out.push('');
  return out.join('\n');
}

/** Generates every target from the documents under `from`; returns file path → text. */
export function generateAll(from = root) {
  return new Map(TARGETS.map((t) => [t.output, generate(JSON.parse(readFileSync(join(from, t.document), 'utf8')), t)]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [output, text] of generateAll()) {
    writeFileSync(join(root, output), text);
    console.log(`wrote ${output}`);
  }
}
