/**
 * Writes src/generated/*.ts from openapi.json and control-plane.openapi.json: the operation ids and,
 * per operation, its input (path, query, headers, body) and output (per status) as TypeScript types;
 * and, for the Python package (python/), the control plane's schemas as TypedDicts (PYTHON_TARGETS):
 * the package index this project can reach has no Python code generator.
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
  const parse = (t) => JSON.parse(readFileSync(join(from, t.document), 'utf8'));
  return new Map([
    ...TARGETS.map((t) => [t.output, generate(parse(t), t)]),
    ...PYTHON_TARGETS.map((t) => [t.output, generatePython(parse(t), t)]),
  ]);
}

/** Documents whose schemas the Python package (python/) gets as TypedDicts. */
export const PYTHON_TARGETS = [
  { document: 'control-plane.openapi.json', output: 'python/src/cloud_browser_mock/control_plane.py', what: 'the control plane under /__mock' },
];

const PY_KEYWORDS = new Set(['False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield']);
const PY_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const pascal = (name) => name.replace(/(^|[^A-Za-z0-9])([A-Za-z0-9])/g, (_, __, c) => c.toUpperCase());
/** A Python string literal (JSON's escapes are Python's for the strings the documents hold). */
const pyString = (value) => JSON.stringify(value);
/** A description as a `#:` comment line (the attribute-doc convention Sphinx and IDEs read). */
const pyComment = (text, indent) => (text ? `${indent}#: ${String(text).replace(/\s+/g, ' ')}\n` : '');

/**
 * The text of the Python module for one document: a TypedDict per object schema (inline objects
 * are named after their parent and property), a type alias per other schema. Python 3.9 has no
 * NotRequired, so an object with both required and optional keys is two classes: the required
 * keys in `_NameRequired`, the optional ones in `Name(_NameRequired, total=False)`, which keeps
 * the package free of a typing_extensions dependency.
 */
export function generatePython(document, target) {
  const schemas = document.components?.schemas ?? {};
  const blocks = [];
  const inline = [];
  const defined = new Set();

  function pyType(schema, hint, quoteRefs) {
    if (!schema || typeof schema !== 'object') return 'Any';
    if (schema.$ref) {
      const name = schema.$ref.match(/^#\/components\/schemas\/(.+)$/)?.[1];
      if (!name) throw new Error(`unsupported $ref ${schema.$ref}`);
      return quoteRefs ? pyString(name) : name;
    }
    if (schema.anyOf || schema.oneOf) {
      const parts = [...new Set((schema.anyOf ?? schema.oneOf).map((s, i) => pyType(s, `${hint}${i}`, quoteRefs)))];
      return parts.length === 1 ? parts[0] : `Union[${parts.join(', ')}]`;
    }
    if (schema.allOf) return objectClass(hint, schema.allOf, inline);
    if (schema.enum) return `Literal[${schema.enum.map((v) => (v === null ? 'None' : JSON.stringify(v))).join(', ')}]`;
    switch (schema.type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `List[${pyType(schema.items, `${hint}Item`, quoteRefs)}]`;
      case 'object':
      case undefined: {
        if (schema.properties && Object.keys(schema.properties).length) return objectClass(hint, [schema], inline);
        const extra = schema.additionalProperties;
        if (schema.type === undefined && extra === undefined) return 'Any';
        return `Dict[str, ${extra === undefined || typeof extra === 'boolean' ? 'Any' : pyType(extra, `${hint}Value`, quoteRefs)}]`;
      }
      default:
        throw new Error(`unsupported type ${JSON.stringify(schema.type)}`);
    }
  }

  /** A TypedDict from object schemas and $refs to others (its bases); returns its name. */
  function objectClass(name, parts, into) {
    const bases = [];
    const required = [];
    const optional = [];
    for (const part of parts) {
      if (part.$ref) {
        const base = pyType(part, name, false);
        if (!defined.has(base)) throw new Error(`${name}: its base ${base} must be defined before it`);
        bases.push(base);
        continue;
      }
      for (const [key, s] of Object.entries(part.properties ?? {})) {
        if (!PY_IDENTIFIER.test(key) || PY_KEYWORDS.has(key)) throw new Error(`${name}.${key} is not a Python identifier, and the generator writes class-form TypedDicts only`);
        const line = `${pyComment(s.description, '    ')}    ${key}: ${pyType(s, `${name}${pascal(key)}`, false)}`;
        // As in the TypeScript types: a property with a default is always present in an answer.
        ((part.required ?? []).includes(key) || s.default !== undefined ? required : optional).push(line);
      }
    }
    const description = parts.map((p) => p.description).filter(Boolean).join(' ');
    const docLine = description ? `    ${pyString(description.replace(/\s+/g, ' '))}\n` : '';
    const head = bases.length ? bases.join(', ') : 'TypedDict';
    const body = (lines) => (lines.length ? lines.join('\n') : '    pass');
    let text;
    if (required.length && optional.length) {
      text = `class _${name}Required(${head}):\n${body(required)}\n\n\nclass ${name}(_${name}Required, total=False):\n${docLine}${body(optional)}\n`;
    } else if (optional.length) {
      text = `class ${name}(${head}, total=False):\n${docLine}${body(optional)}\n`;
    } else {
      text = `class ${name}(${head}):\n${docLine}${body(required)}\n`;
    }
    into.push(text);
    defined.add(name);
    return name;
  }

  for (const [name, schema] of Object.entries(schemas)) {
    if (!PY_IDENTIFIER.test(name)) throw new Error(`schema ${name} is not a Python identifier`);
    const isObject = (schema.type === 'object' || schema.type === undefined) && schema.properties && Object.keys(schema.properties).length;
    if (isObject || schema.allOf) {
      objectClass(name, schema.allOf ?? [schema], blocks);
    } else {
      // Module-level aliases are evaluated at import, before later classes exist: references are
      // quoted, except a plain alias of a class defined above (a former name), which must be the
      // class itself for a type checker to take it as a type.
      const target = schema.$ref?.match(/^#\/components\/schemas\/(.+)$/)?.[1];
      blocks.push(`${pyComment(schema.description, '')}${name} = ${pyType(schema, name, !(target && defined.has(target)))}\n`);
      defined.add(name);
    }
  }

  const out = [];
  out.push(`"""The schemas of ${target.document} (${target.what}) as TypedDicts and type aliases.`);
  out.push('');
  out.push(`Generated by scripts/generate-api-types.mjs from ${target.document}: do not edit; run \`npm run generate\`.`);
  out.push('"""');
  out.push('');
  out.push('from __future__ import annotations');
  out.push('');
  out.push('from typing import Any, Dict, List, Literal, TypedDict, Union');
  out.push('');
  out.push('__all__ = [');
  for (const name of [...defined].sort()) out.push(`    ${pyString(name)},`);
  out.push(']');
  for (const block of [...blocks, ...inline]) {
    out.push('');
    out.push('');
    out.push(block.replace(/\n$/, ''));
  }
  out.push('');
  return out.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [output, text] of generateAll()) {
    writeFileSync(join(root, output), text);
    console.log(`wrote ${output}`);
  }
}
