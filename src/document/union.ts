/**
 * The served union of the built-in document and a supplied one (issue 30, item 2), with its
 * precedence: the mock's own paths win over everything, the built-in document wins for every
 * method and path template it has, and the supplied document adds the rest, in its declaration
 * order after the built-in routes (FastAPI's route order). Each shadowed supplied operation is
 * named in one warning line; a component of the supplied document named like a built-in one but
 * different is renamed (`NameSpec`) and its references rewritten; a missing operationId gets
 * FastAPI's generated form; a duplicate operationId across the union is a SpecError.
 */
import { SpecError } from './spec-file.js';
import type { OpenApiDocument } from './openapi.js';
import { isMockOwnRoute } from '../primitives/own-paths.js';

type Node = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface Union {
  document: OpenApiDocument;
  /** The supplied operations the union adds, by operationId, in routing order. */
  added: string[];
  /** One line naming every supplied operation shadowed, or undefined when none is. */
  warning?: string;
}

/**
 * The mock's own paths (its health check, served document, Swagger UI, landing page and control
 * plane): a request path, or a supplied template, that is one of them is never the service's.
 * Spelt in primitives/own-paths.ts; re-exported here, where the union's precedence uses it.
 */
export { isMockOwnRoute };

/** `/sessions/{session_id}/files` and `/sessions/{id}/files` are one route to Starlette. */
const shape = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

/**
 * FastAPI's generate_unique_id without an endpoint function to name it after: the route's name
 * is taken from the path's literal segments (`/sessions/{session_id}/stop` → `sessions_stop`), so
 * the id is `re.sub(r"\W", "_", name + path) + "_" + method` (`sessions_stop_sessions__session_id__stop_delete`).
 */
export function generatedOperationId(method: string, path: string): string {
  const literal = path.split('/').filter((s) => s !== '' && !s.includes('{'));
  const name = literal.length ? literal.join('_') : 'root';
  return `${name}${path}`.replace(/[^\p{L}\p{N}_]/gu, '_') + `_${method.toLowerCase()}`;
}

/** JSON text with keys in order: two components are the same when their texts are. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stable((v as Node)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

/** Rewrites `$ref`s (and security requirement names) of the supplied document after renames. */
function rewrite(node: unknown, refs: Map<string, string>, schemes: Map<string, string>, key = ''): unknown {
  if (Array.isArray(node)) return node.map((v) => rewrite(v, refs, schemes, key === 'security' ? 'security-item' : ''));
  if (node === null || typeof node !== 'object') return node;
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') {
      const m = /^(#\/components\/[^/]+\/[^/]+)(.*)$/.exec(v);
      out[k] = m && refs.has(m[1]) ? refs.get(m[1]) + m[2] : v;
      continue;
    }
    const name = key === 'security-item' && schemes.has(k) ? schemes.get(k)! : k;
    out[name] = rewrite(v, refs, schemes, k);
  }
  return out;
}

function resolveLocal(doc: Node, value: Node | undefined): Node | undefined {
  let v = value;
  for (let i = 0; v && typeof v.$ref === 'string' && i < 16; i++) v = v.$ref.split('/').slice(1).reduce((o: any, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return v;
}

/** An added operation as the union serves it: path-level parameters merged in, references of parameters, body and responses followed, security made explicit. */
function materialise(doc: Node, item: Node, op: Node, id: string): Node {
  const params = new Map<string, Node>();
  for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
    const r = resolveLocal(doc, p);
    if (r && typeof r.name === 'string') params.set(`${r.in}\0${r.name}`, r);
  }
  const out: Node = { ...op, operationId: id };
  if (params.size) out.parameters = [...params.values()];
  else delete out.parameters;
  if (op.requestBody) out.requestBody = resolveLocal(doc, op.requestBody);
  out.responses = Object.fromEntries(Object.entries((op.responses ?? {}) as Node).map(([s, r]) => [s, resolveLocal(doc, r) ?? {}]));
  if (!('security' in op) && Array.isArray(doc.security)) out.security = doc.security;
  return out;
}

export function buildUnion(builtIn: OpenApiDocument, suppliedDoc: OpenApiDocument, label: string): Union {
  const fail = (problem: string): never => {
    throw new SpecError(`--spec ${label}: ${problem}`);
  };
  // Components: same name, same content → one; same name, other content → the supplied one renamed.
  const refs = new Map<string, string>();
  const schemes = new Map<string, string>();
  const builtInComponents: Node = builtIn.components ?? {};
  for (const [section, entries] of Object.entries((suppliedDoc.components ?? {}) as Node)) {
    if (entries === null || typeof entries !== 'object') continue;
    const taken = new Set([...Object.keys(builtInComponents[section] ?? {}), ...Object.keys(entries)]);
    for (const [name, value] of Object.entries(entries as Node)) {
      const mine = builtInComponents[section]?.[name];
      if (mine === undefined || stable(mine) === stable(value)) continue;
      let renamed = `${name}Spec`;
      for (let n = 2; taken.has(renamed); n++) renamed = `${name}Spec${n}`;
      taken.add(renamed);
      refs.set(`#/components/${section}/${name}`, `#/components/${section}/${renamed}`);
      if (section === 'securitySchemes') schemes.set(name, renamed);
    }
  }
  const supplied = rewrite(suppliedDoc, refs, schemes) as Node;
  const components: Node = structuredClone(builtInComponents);
  for (const [section, entries] of Object.entries((supplied.components ?? {}) as Node)) {
    if (entries === null || typeof entries !== 'object') continue;
    components[section] ??= {};
    for (const [name, value] of Object.entries(entries as Node)) {
      const target = refs.get(`#/components/${section}/${name}`)?.split('/').pop() ?? name;
      components[section][target] ??= value;
    }
  }

  const builtInRoutes = new Map<string, string>();
  const ids = new Map<string, string>();
  for (const [path, item] of Object.entries(builtIn.paths as Node)) {
    for (const m of METHODS) {
      if (!item[m]) continue;
      builtInRoutes.set(`${m} ${shape(path)}`, item[m].operationId);
      ids.set(item[m].operationId, `${m.toUpperCase()} ${path}`);
    }
  }
  const paths: Node = structuredClone(builtIn.paths);
  const added: string[] = [];
  const shadowed: string[] = [];
  for (const [path, item] of Object.entries((supplied.paths ?? {}) as Node)) {
    if (item === null || typeof item !== 'object') fail(`paths[${JSON.stringify(path)}] is not a path item`);
    if (!path.startsWith('/')) fail(`path ${JSON.stringify(path)} does not start with /`);
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      const route = `${m.toUpperCase()} ${path}`;
      const id = typeof op.operationId === 'string' && op.operationId !== '' ? op.operationId : generatedOperationId(m, path);
      if (isMockOwnRoute(path)) {
        shadowed.push(`${route} (${id}; the mock's own path)`);
        continue;
      }
      const mine = builtInRoutes.get(`${m} ${shape(path)}`);
      if (mine) {
        shadowed.push(`${route} (${id}; built-in ${mine})`);
        continue;
      }
      const before = ids.get(id);
      if (before) fail(`duplicate operationId ${JSON.stringify(id)} (${before} and ${route}); every operation of the served union needs its own`);
      ids.set(id, route);
      for (const [name] of Object.entries((op.security ?? supplied.security ?? []).reduce((a: Node, r: Node) => ({ ...a, ...r }), {}) as Node)) {
        if (!components.securitySchemes?.[name]) fail(`${route} names security scheme ${JSON.stringify(name)}, which components.securitySchemes does not declare`);
      }
      paths[path] ??= {};
      paths[path][m] = materialise({ ...supplied, components }, item, op, id);
      added.push(id);
    }
  }
  const tags = [...(builtIn.tags ?? [])];
  for (const t of supplied.tags ?? []) if (!tags.some((x: Node) => x.name === t?.name)) tags.push(t);
  const document: OpenApiDocument = {
    ...builtIn,
    paths,
    components,
    ...(tags.length ? { tags } : {}),
    'x-route-order': [...(builtIn['x-route-order'] ?? []), ...added],
  };
  const warning = shadowed.length
    ? `--spec ${label}: ${shadowed.length} operation${shadowed.length === 1 ? '' : 's'} of the document not served as written, the mock's own answering instead: ${shadowed.join(', ')}`
    : undefined;
  return { document, added, warning };
}
