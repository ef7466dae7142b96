/**
 * Control-plane handlers for the mock's runtime state: reset, scenario switch, the request
 * journal, the clock, faults and coverage.
 */
import { HttpError } from '../errors/http-error.js';
import type { Reply } from '../http/reply.js';
import { BUILT_IN_SCENARIOS } from '../scenarios/scenario.js';
import { ClockRangeError, isoTime } from '../primitives/clock.js';
import { parseDuration } from '../primitives/units.js';
import { faultProblem, parseInstant } from './control-input.js';
import { driftJunit } from './drift-junit.js';
import { scenarioPinsProblem } from './pin-checks.js';
import type { JournalId } from '../records/journal.js';
import type { ControlContext, ControlHandlerMap, ControlJson, ControlStatus } from './handler-types.js';
import type { OperationId as ControlOperationId } from '../generated/control-plane-api.js';

/** The JSON answer documented for the handler's operation and status (a mismatch fails to compile). */
export const json = <Id extends ControlOperationId, S extends ControlStatus<Id>>(_ctx: ControlContext<Id>, status: S, value: ControlJson<Id, S>): Reply => ({ status, json: value });
const NO_CONTENT: Reply = Object.freeze({ status: 204 });
export const noContent = (_ctx: ControlContext): Reply => NO_CONTENT;
/** A JUnit XML report (coverage, drift) for CI. */
const xml = (_ctx: ControlContext, text: string): Reply => ({ status: 200, headers: { 'Content-Type': 'application/xml; charset=utf-8' }, body: text });
export const unprocessable = (detail: string) => new HttpError(422, detail);

/** A token lifetime as people say it: "30 days", "1 hour", "90 seconds". */
function tokenLifetime(ms: number): string {
  const s = ms / 1000;
  const [n, unit] = s % 86400 === 0 ? [s / 86400, 'day'] : s % 3600 === 0 ? [s / 3600, 'hour'] : s % 60 === 0 ? [s / 60, 'minute'] : [s, 'second'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

const clockState = ({ deps }: ControlContext) => ({ now: isoTime(deps.clock.now()), offset_seconds: Math.round(deps.clock.offsetSeconds * 1000) / 1000, frozen: deps.clock.frozen });

export const runtimeHandlers = {
  getControlPlaneDocument: (_input, ctx) => json(ctx, 200, ctx.document),

  async resetWorkspaces({ query }, ctx) {
    await ctx.deps.reset(query.principal ?? undefined);
    return noContent(ctx);
  },

  // The token comes in the body, never the URL: URLs get logged.
  principalOf({ body: b }, ctx) {
    const standing = ctx.deps.auth.standing(b.token);
    if ('principal' in standing) return json(ctx, 200, { principal: standing.principal });
    // The service answers 401 to both; this says why, so a test knows whether to issue a new token.
    if (standing.refused === 'expired') throw unprocessable(`this token has expired: a token from POST /token lives ${tokenLifetime(ctx.deps.auth.tokenTtlMs)} on the mock's clock (--token-ttl); the service answers 401 to it`);
    throw unprocessable("this token is refused under --auth strict: only the scenario's API keys and tokens from POST /token are accepted");
  },

  async switchScenario({ body: b }, ctx) {
    const ref = b.name ?? b.path;
    if (!ref || (b.name && b.path)) throw unprocessable('give exactly one of name (a built-in scenario) and path (a scenario file)');
    if (b.name && !(BUILT_IN_SCENARIOS as readonly string[]).includes(b.name)) {
      throw unprocessable(`unknown scenario ${JSON.stringify(b.name)}: name is one of ${BUILT_IN_SCENARIOS.join(', ')}; give a file as path`);
    }
    const seed = b.seed ?? ctx.deps.store.seed;
    try {
      // A file whose pins could never answer is refused before anything changes.
      await ctx.deps.store.switchScenario(ref, seed, (scenario) => {
        const problem = scenarioPinsProblem(ctx.deps, scenario.pins);
        if (problem) throw unprocessable(`scenario file ${b.path ?? ref}: ${problem}`);
      });
    } catch (e) {
      if (e instanceof HttpError) throw e;
      throw unprocessable((e as Error).message);
    }
    ctx.deps.clearRunRecords();
    return json(ctx, 200, { scenario: ref, seed });
  },

  listRequests({ query: q }, ctx) {
    const since = q.since === null ? undefined : Date.parse(q.since);
    const pick = <K extends keyof typeof q>(k: K) => q[k] ?? undefined;
    // The document's pattern (^req_[1-9][0-9]*$) has made sure it is a journal id.
    const after = q.after === null ? undefined : (q.after as JournalId);
    const items = ctx.deps.journal.list({ operationId: pick('operationId'), method: pick('method'), path: pick('path'), principal: pick('principal'), status: pick('status'), limit: pick('limit'), since, unmatched: pick('unmatched'), after });
    return json(ctx, 200, { items });
  },

  clearRequests(_input, ctx) {
    ctx.deps.journal.clear();
    return noContent(ctx);
  },

  getClock: (_input, ctx) => json(ctx, 200, clockState(ctx)),

  setClock({ body: b }, ctx) {
    if ((b.set === undefined) === (b.advance === undefined)) throw unprocessable('give exactly one of set (an ISO-8601 instant) and advance (seconds or an ISO-8601 duration)');
    try {
      if (b.set !== undefined) {
        const at = parseInstant(b.set);
        if (at === null) throw unprocessable(`set must be an ISO-8601 instant from year 1 to 9999 such as 2030-01-01T00:00:00Z, not ${JSON.stringify(b.set)}`);
        ctx.deps.clock.set(at);
      } else {
        const seconds = typeof b.advance === 'number' ? b.advance : typeof b.advance === 'string' ? parseDuration(b.advance) : null;
        if (seconds === null || !Number.isFinite(seconds)) throw unprocessable(`advance must be seconds or an ISO-8601 duration such as P8D, not ${JSON.stringify(b.advance)}`);
        ctx.deps.clock.advance(seconds * 1000);
      }
    } catch (e) {
      if (e instanceof ClockRangeError) throw unprocessable(`advance ${JSON.stringify(b.advance)} would take the clock outside years 1 to 9999 (it is ${isoTime(ctx.deps.clock.now())})`);
      throw e;
    }
    return json(ctx, 200, clockState(ctx));
  },

  resetClock(_input, ctx) {
    ctx.deps.clock.reset();
    return json(ctx, 200, clockState(ctx));
  },

  addFault({ body: b }, ctx) {
    const problem = ctx.deps.faults.unknownOperation(b.operationId) ?? faultProblem(b);
    if (problem) throw unprocessable(problem);
    return json(ctx, 201, ctx.deps.faults.add(b));
  },

  listFaults: (_input, ctx) => json(ctx, 200, { items: ctx.deps.faults.list() }),

  clearFaults(_input, ctx) {
    ctx.deps.faults.clear();
    return noContent(ctx);
  },

  deleteFault({ path }, ctx) {
    if (!ctx.deps.faults.remove(String(path.fault_id))) throw new HttpError(404, `Fault ${String(path.fault_id)} not found`);
    return noContent(ctx);
  },

  getDrift({ query }, ctx) {
    const records = ctx.deps.drift?.list() ?? [];
    if (query.format === 'junit') return xml(ctx, driftJunit(ctx.deps.operations ?? [], records));
    return json(ctx, 200, { items: records });
  },

  clearDrift(_input, ctx) {
    ctx.deps.drift?.clear();
    return noContent(ctx);
  },

  getCoverage({ query }, ctx) {
    if (query.format === 'junit') return xml(ctx, ctx.deps.coverage.junit());
    return json(ctx, 200, ctx.deps.coverage.report());
  },
} satisfies Partial<ControlHandlerMap>;
