/**
 * express-openapi-validator (eov) as the validation stage of both APIs. eov decides validity;
 * this file only hands it what it needs. Routing stays ours (FastAPI's declaration order, which
 * eov cannot follow), so eov gets a private copy of the document with one path per operation
 * (`/<operationId>/{param}…`) and is called with the request already routed and with parameters
 * already parsed by Pydantic's rules (lax.ts), leaving its own coercion nothing to do.
 */
import { createHash } from 'node:crypto';
import { resolveRef, withoutNullBranch, type OpenApiDocument } from '../document/openapi.js';
import { ajvErrorOf, keepAjvErrors, type AjvError } from './ajv-errors.js';

/**
 * One error as eov reports it (its own fields pinned by a test), with the Ajv error it was made
 * from as `ajv` (not enumerable: eov's object otherwise as eov makes it). The mapper reads
 * `path`, `errorCode` and `ajv`; eov's English `message` is for people, never decided on.
 */
export interface EovError {
  path: string;
  errorCode: string;
  readonly ajv: AjvError;
}

/** What one routed request looks like to eov. */
export interface EovRequest {
  operationId: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  /** The media type the body was read as (the operation's own), or undefined without a body. */
  contentType?: string;
  body: unknown;
}

type Middleware = (req: any, res: any, next: (e?: unknown) => void) => unknown;

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

/** The body media types the read-body stage reads (http/body.ts). */
const READ_MEDIA = new Set(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);

/**
 * The private document: operation-keyed paths, no security, no response schemas, parameter and
 * form-field schemas without their null branch (eov's coercion would turn `?source=null` into null otherwise).
 */
export function privateDocument(doc: OpenApiDocument): OpenApiDocument {
  const paths: Record<string, any> = {};
  for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      if (!METHODS.has(method)) continue;
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const key = `/${op.operationId}${names.map((n) => `/{${n}}`).join('')}`;
      // Responses are checked by validation/responses.ts, never by eov, which would still walk and
      // compile every response schema when it starts (most of a large --spec document's start-up).
      const copy = { ...op, security: [], responses: { default: { description: 'not checked here' } } };
      // Cookies are not read (a supplied document's cookie parameters go unchecked).
      copy.parameters = (op.parameters ?? []).filter((p: any) => p.in !== 'cookie').map((p: any) => ({ ...p, schema: withoutNullBranch(doc, p.schema) }));
      if (op.requestBody) {
        const content: Record<string, any> = {};
        for (const [media, m] of Object.entries((op.requestBody.content ?? {}) as Record<string, any>)) {
          // A body of another type (a supplied document's raw upload) is not read, so not checked.
          if (!READ_MEDIA.has(media)) continue;
          if (media === 'application/json') content[media] = m;
          else {
            const body = resolveRef(doc, m.schema);
            const properties = Object.fromEntries(Object.entries((body.properties ?? {}) as Record<string, any>).map(([k, s]) => [k, withoutNullBranch(doc, s)]));
            content[media] = { ...m, schema: { ...body, properties } };
          }
        }
        if (Object.keys(content).length) copy.requestBody = { ...op.requestBody, content };
        else delete copy.requestBody;
      }
      paths[key] = { [method]: copy };
    }
  }
  const { security: _s, servers: _v, ...rest } = doc;
  return { ...rest, paths };
}

export interface OpenApiRequestValidator {
  /** Resolves with eov's errors (an empty list when the request is valid). */
  validate(r: EovRequest): Promise<EovError[]>;
  /** Compiles every operation's validators (after listen, so /health never waits for Ajv). */
  warm(stopped?: () => boolean): Promise<void>;
}

const noop = {};

/**
 * eov 5.6.2 (pinned) builds an OpenAPISchemaValidator for every middleware it makes, even with
 * `validateApiSpec: false` (which we always pass): that compiles the whole OpenAPI 3.1 meta-schema
 * with Ajv to validate nothing, once per operation of a --spec union (one eov each, above) — most
 * of the CPU of a union's first requests, and of every test app serving one. The class is made
 * lazy: it compiles the meta-schema only if asked to validate, which eov never is here. The CLI's
 * bundle replaces the same class at build time (scripts/build-cli.mjs); there this is a no-op.
 */
let lazied: Promise<void> | undefined;
function lazyApiSpecValidator(): Promise<void> {
  lazied ??= import('express-openapi-validator/dist/framework/openapi.schema.validator.js').then((m: any) => {
    const exports = m.default ?? m;
    const Original = exports.OpenAPISchemaValidator;
    if (typeof Original !== 'function' || Original.lazy) return;
    exports.OpenAPISchemaValidator = class OpenAPISchemaValidator {
      static lazy = true;
      private compiled: any;
      constructor(private readonly opts: unknown) {}
      validate(apiDoc: unknown) {
        this.compiled ??= new Original(this.opts);
        return this.compiled.validate(apiDoc);
      }
    };
  });
  return lazied;
}

/**
 * Compiled eov chains, shared by the validators over one document in this process (the many apps
 * of a test file, a createApp after another): eov's middleware keeps no state of a request, and
 * compiling the fifteen's schemas is most of what an in-process app's first requests cost. A pure
 * cache, not state (it changes no answer), keyed by the private document's digest and how it is
 * read; the few documents used last are kept.
 */
const compiled = new Map<string, Map<string, Promise<Middleware[]>>>();
const COMPILED_DOCUMENTS = 8;

function compiledChains(key: string): Map<string, Promise<Middleware[]>> {
  let chains = compiled.get(key);
  if (chains) compiled.delete(key);
  else chains = new Map();
  compiled.set(key, chains);
  if (compiled.size > COMPILED_DOCUMENTS) compiled.delete(compiled.keys().next().value!);
  return chains;
}

/**
 * `refs`: how eov's $ref parser reads the document. The built-in documents are dereferenced (as
 * they always were); a union with a supplied document may hold a recursive schema, whose
 * dereferenced form is a cycle eov's schema walk cannot leave, so it is bundled (refs kept).
 *
 * A bundled union gets one eov per operation, made on the operation's first request from a
 * document holding that operation and the components it reaches: eov bundles, walks and adds to
 * its Ajv every schema of the document it is given, which for a 70-operation union is most of a
 * second before the first answer of any of them (issue 30's cold start). The fifteen's built-in
 * document keeps its one eov. `dereferenced`: operations of a bundled union whose schemas hold no
 * cycle (the fifteen's), dereferenced as they are without --spec, so they validate as they do there.
 */
export function createOpenApiValidator(doc: OpenApiDocument, refs: 'dereference' | 'bundle' = 'dereference', dereferenced: ReadonlySet<string> = new Set()): OpenApiRequestValidator {
  // eov is dear to load: imported on first use, not at import time (a dynamic import, so that
  // the CLI's bundle keeps it in a chunk of its own).
  let eovModule: Promise<any> | undefined;
  const routes = new Map<string, { method: string; url: string; key: string; media?: string }>();
  const meta = new Map<string, unknown>();
  const priv = privateDocument(doc);
  const chains = compiledChains(createHash('sha256').update(JSON.stringify([refs, [...dereferenced].sort(), priv])).digest('hex'));
  for (const [key, item] of Object.entries(priv.paths as Record<string, any>)) {
    const [method, op] = Object.entries(item)[0] as [string, any];
    const media = op.requestBody ? Object.keys(op.requestBody.content)[0] : undefined;
    routes.set(op.operationId, { method: method.toUpperCase(), url: key.replace(/\{[^}]+\}/g, 'x'), key, media });
  }
  const perOperation = refs === 'bundle';

  // The `dereferenced` operations share one eov over a document of their own paths, as the
  // built-in document has without --spec: the fifteen are validated by the same eov, whose Ajv
  // holds only their schemas, with or without a supplied document (issue 30's "no slower").
  const sharedKeys = perOperation ? [...routes].filter(([id]) => dereferenced.has(id)).map(([, r]) => r.key) : [];

  function middlewares(operationId: string): Promise<Middleware[]> {
    const own = perOperation && !dereferenced.has(operationId);
    const chainKey = own ? operationId : '';
    let chain = chains.get(chainKey);
    if (chain) return chain;
    eovModule ??= Promise.all([lazyApiSpecValidator(), keepAjvErrors()]).then(() => import('express-openapi-validator')).then((m) => (m as any).default ?? m);
    const apiSpec = own ? operationDocument(priv, [routes.get(operationId)!.key]) : perOperation ? operationDocument(priv, sharedKeys) : priv;
    chain = eovModule.then((eov) => eov.middleware({
      apiSpec,
      validateApiSpec: false,
      validateRequests: { allErrors: true, allowUnknownQueryParameters: true, coerceTypes: false },
      validateResponses: false,
      validateSecurity: false,
      fileUploader: false,
      $refParser: { mode: own ? refs : 'dereference' },
    }) as Middleware[]);
    chains.set(chainKey, chain);
    return chain;
  }

  const run = (mw: Middleware, req: any) =>
    new Promise<unknown>((resolve) => {
      void mw(req, noop, (e?: unknown) => resolve(e));
    });

  /** eov's own lookup, once per operation: the route metadata it needs on every request. */
  async function metadata(operationId: string): Promise<unknown> {
    let m = meta.get(operationId);
    if (m) return m;
    const route = routes.get(operationId);
    if (!route) throw new Error(`no operation ${operationId} in the document`);
    const req: any = { method: route.method, path: route.url, url: route.url, originalUrl: route.url, baseUrl: '', headers: {}, query: {}, params: {}, app: { enabled: () => false } };
    const [, metamw] = await middlewares(operationId);
    const e = await run(metamw, req);
    if (e) throw e;
    m = req.openapi;
    meta.set(operationId, m);
    return m;
  }

  // Requests being validated, and the warm-up waiting for there to be none: a request's own
  // operation is compiled before the warm-up compiles any other (the first answer after a start).
  let inFlight = 0;
  let quiet: Array<() => void> = [];
  const settled = () => {
    if (--inFlight > 0) return;
    const waiting = quiet;
    quiet = [];
    for (const resolve of waiting) resolve();
  };

  async function validate(r: EovRequest): Promise<EovError[]> {
    inFlight++;
    try {
      return await check(r);
    } finally {
      settled();
    }
  }

  async function check(r: EovRequest): Promise<EovError[]> {
    const openapi = { ...(await metadata(r.operationId)) as object, pathParams: r.params };
    const url = routes.get(r.operationId)!.url;
    const headers: Record<string, string> = { ...r.headers };
    if (r.contentType) headers['content-type'] = r.contentType;
    const req: any = { method: routes.get(r.operationId)!.method, path: url, url, originalUrl: url, baseUrl: '', headers, query: r.query, params: r.params, body: r.body, openapi };
    const stack = await middlewares(r.operationId);
    const requestMiddleware = stack[stack.length - 1];
    const e = (await run(requestMiddleware, req)) as { status?: number; errors?: object[] } | undefined;
    if (!e) return [];
    // A 400 eov raised itself, from no Ajv error, has nothing to map: it goes on as eov's failure.
    const ajv = e.status === 400 && Array.isArray(e.errors) ? e.errors.map(ajvErrorOf) : [undefined];
    if (ajv.some((a) => a === undefined)) throw e;
    return e.errors!.map((x, i) => Object.defineProperty(x, 'ajv', { value: ajv[i] }) as EovError);
  }

  return {
    validate,
    async warm(stopped = () => false) {
      // Each operation's validators are compiled on its first request; do it now, one operation
      // per turn of the event loop so requests arriving meanwhile are answered in between. An
      // operation a --spec document added is left to its first request: one eov each, compiled
      // for all seventy they held ~50 MB more at rest, and a heap that size slows every request.
      for (const [operationId, { media }] of routes) {
        if (perOperation && !dereferenced.has(operationId)) continue;
        await new Promise((resolve) => setImmediate(resolve));
        while (inFlight > 0) await new Promise<void>((resolve) => quiet.push(resolve));
        // A shutdown stops the warm-up: it must not keep the process alive.
        if (stopped()) return;
        await check({ operationId, params: {}, query: {}, headers: {}, contentType: media, body: undefined }).catch(() => undefined);
      }
    },
  };
}

/**
 * The private document cut to some paths (`keys`) and the components they reach, through `$ref`s
 * followed transitively; a copy of its own, since eov's walk writes into the schemas it is given.
 */
export function operationDocument(priv: OpenApiDocument, keys: readonly string[]): OpenApiDocument {
  const components = (priv.components ?? {}) as Record<string, Record<string, unknown>>;
  const kept: Record<string, Record<string, unknown>> = {};
  const paths = Object.fromEntries(keys.map((key) => [key, priv.paths[key]]));
  const pending: unknown[] = Object.values(paths);
  while (pending.length) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...node);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string') {
          const m = /^#\/components\/([^/]+)\/([^/]+)(?:\/|$)/.exec(v);
          // A reference elsewhere (into paths): the operation with the whole document's components.
          if (!m) return { ...priv, paths };
          const name = decodeURIComponent(m[2]).replace(/~1/g, '/').replace(/~0/g, '~');
          const target = components[m[1]]?.[name];
          if (target === undefined || kept[m[1]]?.[name] !== undefined) continue;
          (kept[m[1]] ??= {})[name] = target;
          pending.push(target);
        } else if (v && typeof v === 'object') pending.push(v);
      }
    }
  }
  return structuredClone({ ...priv, paths, components: kept });
}
