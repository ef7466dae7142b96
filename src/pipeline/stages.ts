/**
 * One request path for both APIs, after Prism: a request is a RequestContext handed through named
 * stages. Every stage has one signature, `Stage<D> = (ctx) => Reply | void | Promise<Reply | void>`:
 * it reads and fills the context; returning a Reply (or throwing an HttpError, which becomes its
 * `{"detail": …}` reply) ends the request's front stages. Then the closing stages run with
 * `ctx.reply` set (the `reply` stage checks it against its document, when asked, and sends it).
 * One lifecycle, `runStages`, serves both APIs: the body a stage read is discarded in its
 * `finally` (an upload the operation stored — `ctx.committed` — is kept).
 *
 * Each API composes the stages in its own documented order, which does not change:
 * - the service (pipeline/service-request.ts, CONTRACT §8): route → fault → proxy → read body →
 *   authenticate → validate → prefer → operate, closing with reply; record is the app's
 *   (app/service-requests.ts), from the facts the stages leave on the context;
 * - the control plane (control-plane/dispatch.ts): guards → admin token → route → read body →
 *   validate → operate, closing with reply; it has no faults and no `Prefer`.
 *
 * The stage functions are module-level and get what they need from `ctx.deps` (one object per
 * API, made once), so a request allocates its context and nothing per stage.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../errors/http-error.js';
import { discardBody, readBody as readRequestBody, type ParsedBody, type ReadBodyOptions } from '../http/body.js';
import { errorReply, sendReply, type JsonWriter, type Reply } from '../http/reply.js';
import type { OpenApiDocument, Operation } from '../document/openapi.js';
import type { ValidatedInput } from '../operations/types.js';
import { parseQuery } from '../python/url.js';
import type { BlobStore } from '../store/blobs.js';
import type { OpenApiRequestValidator } from '../validation/eov.js';
import { validateInput } from '../validation/input.js';
import type { RouteIndex } from './router.js';

/** What the shared stages need of an API. */
export interface StageDeps {
  operations: Operation[];
  /** The operations indexed for routing (router.ts). */
  routes: RouteIndex;
  document: OpenApiDocument;
  validator: OpenApiRequestValidator;
  blobs(): BlobStore;
  /** How the read-body stage reads this operation's body (its limits, its JSON parser). */
  bodyOptions(op: Operation): ReadBodyOptions;
  writeJson: JsonWriter;
  /**
   * Response validation (--validate-responses): checks a documented answer (`ctx.documented`,
   * status below 500) and returns the reply to send — the same, or one naming the mismatch.
   */
  checkReply?: (ctx: RequestContext<any>, reply: Reply) => Reply | Promise<Reply>;
}

/** The request target, split once (app/service-requests.ts does it for every request). */
export interface Target {
  path: string;
  /** The raw query; undefined when the target has no `?`. */
  query: string | undefined;
}

/** No body read (yet): nothing to discard. */
const NO_BODY: ParsedBody = Object.freeze({ kind: 'none' });

/** One request on its way through the stages. */
export class RequestContext<D extends StageDeps = StageDeps> {
  /** The matched operation (after the route stage). */
  op: Operation | undefined = undefined;
  pathParams: Record<string, string> = {};
  body: ParsedBody = NO_BODY;
  /** The operation stored what it was given: its upload is kept, not discarded. */
  committed = false;
  principal: string | null = null;
  input: ValidatedInput | undefined = undefined;
  /** Set by the stage that decided the answer. */
  reply: Reply | undefined = undefined;
  /** From here on the answer is one the document describes (response validation checks it). */
  documented = false;
  /** Added to whatever is answered after it was set (`Prefer: code=` not applied). */
  warning: string | undefined = undefined;
  private parsedQuery: Map<string, string> | undefined = undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly deps: D,
    readonly target: Target,
  ) {}

  get method(): string {
    return this.req.method ?? 'GET';
  }

  /** The query as Starlette's QueryParams has it, parsed on first use and once. */
  get query(): Map<string, string> {
    return (this.parsedQuery ??= parseQuery(this.target.query ?? ''));
  }

  /** The matched operation; a stage after the route stage may rely on it. */
  get operation(): Operation {
    if (!this.op) throw new Error('stage used before the route stage');
    return this.op;
  }
}


export type Stage<D extends StageDeps = StageDeps, C extends RequestContext<D> = RequestContext<D>> = (ctx: C) => Reply | void | Promise<Reply | void>;

export type StageName = 'guards' | 'admin token' | 'route' | 'fault' | 'proxy' | 'read body' | 'authenticate' | 'validate' | 'prefer' | 'operate' | 'reply';

export interface NamedStage<D extends StageDeps = StageDeps, C extends RequestContext<D> = RequestContext<D>> {
  name: StageName;
  run: Stage<D, C>;
}

/** An API's stages in its order: the front ones until one replies, then the closing ones. */
export interface Composition<D extends StageDeps = StageDeps, C extends RequestContext<D> = RequestContext<D>> {
  front: readonly NamedStage<D, C>[];
  closing: readonly NamedStage<D, C>[];
}

/** The composition with the stage called `name` replaced by `run` (a stand-in, in a test); the order stays. */
export function replaceStage<D extends StageDeps, C extends RequestContext<D>>(c: Composition<D, C>, name: StageName, run: Stage<D, C>): Composition<D, C> {
  const swap = (stages: readonly NamedStage<D, C>[]) => stages.map((s) => (s.name === name ? { name, run } : s));
  if (![...c.front, ...c.closing].some((s) => s.name === name)) throw new Error(`no stage named ${name}`);
  return { front: swap(c.front), closing: swap(c.closing) };
}

/**
 * Answers that the reply stage does not send: the request is not this API's (it goes on to the
 * next Express handler), or its answer was written by a writer of its own (the proxy's).
 */
export const NOT_MINE: Reply = Object.freeze({ status: 0 });
export const WRITTEN_ELSEWHERE: Reply = Object.freeze({ status: 0 });

/**
 * Runs one request through a composition. An HttpError from a front stage is its reply; any
 * other error propagates (the app answers it as an unexpected fault). The body read is
 * discarded last, whatever happened.
 */
export async function runStages<D extends StageDeps, C extends RequestContext<D>>(ctx: C, { front, closing }: Composition<D, C>): Promise<void> {
  try {
    try {
      for (let i = 0; i < front.length && ctx.reply === undefined; i++) {
        const out = front[i].run(ctx);
        const reply = out instanceof Promise ? await out : out;
        if (reply) ctx.reply = reply;
      }
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      ctx.reply = errorReply(e);
    }
    for (let i = 0; i < closing.length; i++) {
      const out = closing[i].run(ctx);
      if (out instanceof Promise) await out;
    }
  } finally {
    // The upload that was stored is committed (renamed); anything else parsed is dropped.
    if (ctx.body !== NO_BODY) await discardBody(ctx.body, ctx.deps.blobs(), ctx.committed);
  }
}

/** read body: the operation's body, by its kind, with the API's limits and parser. */
export function readBody(ctx: RequestContext): Promise<void> | void {
  const op = ctx.operation;
  // No promise for an operation without a body (most of the service's traffic).
  if (op.body) return readInto(ctx, op.body.kind, ctx.deps.bodyOptions(op));
}

async function readInto(ctx: RequestContext, kind: NonNullable<Operation['body']>['kind'], options: ReadBodyOptions): Promise<void> {
  ctx.body = await readRequestBody(ctx.req, kind, options);
}

/** validate: parameters and body against the API's document (Pydantic-style 422s). */
export async function validate(ctx: RequestContext): Promise<void> {
  ctx.input = await validateInput(ctx.deps.validator, ctx.deps.document, ctx.operation, { path: ctx.pathParams, query: ctx.query, headers: ctx.req.headers }, ctx.body);
}

/** reply: the decided answer, checked when response validation is on, written by the one sender. */
export function reply(ctx: RequestContext): Promise<void> | void {
  const out = ctx.reply;
  if (out === NOT_MINE || out === WRITTEN_ELSEWHERE) return;
  if (!out) throw new Error(`no stage answered ${ctx.method} ${ctx.target.path}`);
  const check = ctx.deps.checkReply;
  if (check && ctx.documented && out.status < 500) {
    const checked = check(ctx, out);
    if (checked instanceof Promise) return checked.then((r) => send(ctx, r));
    return send(ctx, checked);
  }
  send(ctx, out);
}

function send(ctx: RequestContext, out: Reply): void {
  // Prefer's warning goes out first, as a header set before the answer was written would.
  if (ctx.warning !== undefined) out = { ...out, headers: { 'X-Mock-Warning': ctx.warning, ...out.headers } };
  sendReply(ctx.res, out, ctx.deps.writeJson);
}
