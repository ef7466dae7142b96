/**
 * The stages of an operation a supplied document added (--spec, issue 30), where they differ from
 * the fifteen's: it authenticates by its own security requirements, a pinned answer comes after
 * validation and before `Prefer`, and it is answered by the generator (src/answers/), statelessly
 * but for one thing: the answer of a secured `POST` without `{session_id}` in its path that
 * carries a top-level string `session_id` makes that session exist in the caller's workspace.
 */
import { authenticate, type AuthContext } from '../operations/auth.js';
import { DETAIL, unauthorized } from '../errors/http-error.js';
import type { Operation, SecurityCheck } from '../document/openapi.js';
import type { GeneratedAnswer, AnswerRequest } from '../answers/index.js';
import type { Reply } from '../http/reply.js';
import type { ParsedBody } from '../http/body.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../primitives/clock.js';
import { toPlain } from '../python/values.js';
import type { Workspace } from '../store/workspace.js';
import type { AddedDeps } from '../runtime/runtime.js';

/** What the pipeline needs to answer added operations: the runtime's generator, pins and seed. */
export type { AddedDeps };

function checkOne(check: SecurityCheck, headers: Record<string, string | string[] | undefined>, auth: AuthContext): string {
  if (check.kind === 'bearer') return authenticate(headerText(headers.authorization), auth);
  // An API key in a header is a token as a bearer token is: the same principals, the same modes.
  const key = headerText(headers[check.header]);
  if (key === undefined || key === '') throw unauthorized(DETAIL.notAuthenticated);
  return authenticate(`Bearer ${key}`, auth);
}

const headerText = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h);

/**
 * The caller's principal by the operation's requirements (any one alternative, every check of
 * it), or the 401 of the first alternative tried; null for an open operation.
 */
export function authenticateAdded(op: Operation, headers: Record<string, string | string[] | undefined>, auth: AuthContext): string | null {
  const alternatives = op.added!.security;
  if (!op.secured) {
    // An optional requirement (`{}` among them): a principal when one is given and valid.
    for (const alt of alternatives) {
      if (alt.length === 0) continue;
      try {
        return alt.map((c) => checkOne(c, headers, auth))[0];
      } catch {
        // not this one
      }
    }
    return null;
  }
  let first: unknown;
  for (const alt of alternatives) {
    try {
      return alt.map((c) => checkOne(c, headers, auth))[0];
    } catch (e) {
      first ??= e;
    }
  }
  throw first;
}

/** `Prefer: example=NAME` (Prism's): which named example to answer with. */
export function preferredExample(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join(',') : header ?? '';
  for (const part of text.split(/[,;]/)) {
    const m = /^\s*example\s*=\s*"?([^"]*)"?\s*$/i.exec(part);
    if (m) return m[1];
  }
  return undefined;
}

/** A pinned answer as a reply; a pin without a body answers the generated body for its status. */
export function pinnedReply(answer: { status: number; body?: unknown; headers?: Record<string, string> }, generated: () => GeneratedAnswer): Reply {
  if (answer.body !== undefined) return { status: answer.status, headers: answer.headers, jsonText: JSON.stringify(answer.body) };
  const out = toReply(generated());
  return { ...out, headers: { ...out.headers, ...answer.headers } };
}

export function toReply(a: GeneratedAnswer): Reply {
  const headers = { ...a.headers };
  if (a.noBody || (a.json === undefined && a.bytes === undefined)) return { status: a.status, headers };
  if (a.bytes !== undefined) return { status: a.status, body: a.bytes, headers: { 'Content-Type': a.contentType ?? 'application/octet-stream', ...headers } };
  return { status: a.status, json: a.json, headers };
}

export interface AnswerInput {
  op: Operation;
  pathParams: Record<string, string>;
  query: Map<string, string>;
  body: ParsedBody;
  principal: string | null;
  prefer: { code?: number; example?: string };
  store: Store;
  clock: Clock;
  deps: AddedDeps;
}

/**
 * The generated answer (a `Prefer: code=` the operation does not document is ignored, with the
 * returned warning), and a session the answer says was started made to exist in the caller's
 * workspace (idempotent; no actions).
 */
export async function answerAdded(input: AnswerInput): Promise<{ reply: Reply; warning?: string }> {
  const { op, principal, store, deps } = input;
  const workspace: Workspace | null = principal ? await store.workspace(principal) : null;
  let idsTaken = false;
  const request: AnswerRequest = {
    operation: op.added!.operation,
    operationId: op.id,
    pathParams: input.pathParams,
    query: Object.fromEntries(input.query),
    sentBody: input.body.kind === 'json' ? toPlain(input.body.value) : undefined,
    prefer: input.prefer,
    seed: deps.seed,
    now: new Date(input.clock.now()),
    newId: workspace
      ? (field) => {
          if (field !== 'session_id') return undefined;
          idsTaken = true;
          return workspace.newId('sess');
        }
      : undefined,
  };
  let warning: string | undefined;
  let answer: GeneratedAnswer;
  try {
    answer = deps.answerer.answer(request);
  } catch (e) {
    if (!(e instanceof deps.PreferError)) throw e;
    warning = e.message;
    answer = deps.answerer.answer({ ...request, prefer: { example: input.prefer.example } });
  }
  if (workspace) {
    const id = startsSession(op) && answer.status >= 200 && answer.status < 300 ? (answer.json as Record<string, unknown> | null)?.session_id : undefined;
    await workspace.recordGeneratedAnswer(idsTaken, typeof id === 'string' && id !== '' ? id : undefined);
  }
  return { reply: toReply(answer), warning };
}

/** A secured POST whose path names no session: its answer's `session_id` is a session it started. */
function startsSession(op: Operation): boolean {
  return op.method === 'POST' && op.secured && !op.pathParams.includes('session_id');
}
