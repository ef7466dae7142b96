/**
 * A document of the user's (`--spec PATH`): read (at most 32 MiB), parsed as JSON or YAML (the
 * `yaml` package: YAML 1.2, so `on`/`yes` stay strings as in JSON), checked to be OpenAPI 3.x with
 * every `$ref` resolvable and only the security schemes the mock can check, and a 3.0 document
 * normalised to 3.1's meaning (normalise-3-0.ts). Every problem is a SpecError: one line naming
 * the file and what is wrong, which the CLI prints and exits 2 on.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import { normalise30 } from './normalise-3-0.js';
import type { OpenApiDocument } from './openapi.js';

/** A supplied document the mock cannot serve; the message is one line and names the file. */
export class SpecError extends Error {
  override name = 'SpecError';
}

export const MAX_SPEC_BYTES = 32 * 1024 * 1024;

/** The security scheme types an added operation may use (auth.ts checks a bearer token or an API key). */
export function unsupportedScheme(scheme: Record<string, any>): string | undefined {
  if (scheme?.type === 'oauth2') return undefined;
  if (scheme?.type === 'http' && String(scheme.scheme ?? '').toLowerCase() === 'bearer') return undefined;
  if (scheme?.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string' && scheme.name !== '') return undefined;
  if (scheme?.type === 'http') return `http scheme ${JSON.stringify(scheme.scheme)}`;
  if (scheme?.type === 'apiKey') return `apiKey in ${JSON.stringify(scheme.in)}`;
  return `type ${JSON.stringify(scheme?.type)}`;
}

/** Reads, checks and normalises the document at `path` (relative paths against `cwd`). */
export function loadSpec(path: string, cwd: string = process.cwd()): OpenApiDocument {
  const file = isAbsolute(path) ? path : resolve(cwd, path);
  const fail = (problem: string): never => {
    throw new SpecError(`--spec ${path}: ${problem}`);
  };
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_SPEC_BYTES) fail(`is ${size} bytes; a document may be at most 32 MiB`);
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof SpecError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory, not a document' : `cannot be read (${code ?? (e as Error).message})`);
  }
  const doc = parseDocument(text, fail);
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return fail('is not an OpenAPI document (not a JSON or YAML object)');
  const version = (doc as any).openapi;
  if (typeof version !== 'string' || !/^3\.[01]\.\d+/.test(version)) {
    const seen = typeof version === 'string' ? `openapi ${JSON.stringify(version)}` : (doc as any).swagger ? `swagger ${JSON.stringify((doc as any).swagger)}` : 'no openapi field';
    return fail(`is not an OpenAPI 3.0 or 3.1 document (${seen})`);
  }
  if (typeof (doc as any).paths !== 'object' || (doc as any).paths === null) fail('has no paths object');
  const bad = firstUnresolvedRef(doc);
  if (bad) fail(`unresolvable $ref ${JSON.stringify(bad.ref)} at ${bad.at}`);
  for (const [name, scheme] of Object.entries(((doc as any).components?.securitySchemes ?? {}) as Record<string, any>)) {
    const why = unsupportedScheme(scheme);
    if (why) fail(`security scheme ${JSON.stringify(name)} (${why}) is not supported: the mock checks OAuth2 and HTTP bearer tokens and API keys in a header`);
  }
  return version.startsWith('3.0') ? normalise30(doc as OpenApiDocument) : (doc as OpenApiDocument);
}

function parseDocument(text: string, fail: (problem: string) => never): unknown {
  const body = text.replace(/^\uFEFF/, '');
  if (/^\s*[{[]/.test(body)) {
    try {
      return JSON.parse(body);
    } catch (e) {
      return fail(`is not valid JSON (${(e as Error).message.split('\n')[0]})`);
    }
  }
  try {
    // Loaded here, not on import: the parser is ~0.3 CPU-s to load and only a YAML document needs it.
    const { parse: parseYaml } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    return parseYaml(body, { maxAliasCount: 1000 });
  } catch (e) {
    return fail(`is neither JSON nor valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (key: string) => decodeURIComponent(key).replace(/~1/g, '/').replace(/~0/g, '~');

/** The first `$ref` that does not point into the document, with the JSON pointer of where it is. */
function firstUnresolvedRef(doc: unknown): { ref: string; at: string } | undefined {
  const stack: [unknown, string][] = [[doc, '#']];
  while (stack.length) {
    const [node, at] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && typeof (node as any).$ref === 'string') {
      const ref: string = (node as any).$ref;
      if (!ref.startsWith('#')) return { ref, at: `${at}/$ref` };
      let target: any = doc;
      for (const key of ref.slice(1).split('/').slice(1)) target = target !== null && typeof target === 'object' ? target[unescapePointer(key)] : undefined;
      if (target === undefined) return { ref, at: `${at}/$ref` };
    }
    const entries = Array.isArray(node) ? node.map((v, i) => [String(i), v] as const) : Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i][1], `${at}/${escapePointer(entries[i][0])}`]);
  }
  return undefined;
}
