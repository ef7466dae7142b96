/**
 * The proxy stage (`--upstream`): in the pipeline it takes the place of read-body → validate →
 * operate, after routing and faults. The request goes to the real service as it came; a bounded
 * copy of a JSON or form body is validated afterwards, never blocking (a forbidden request is
 * forwarded and becomes client drift); the real answer goes back unchanged and is checked for
 * drift and, with --record, recorded. The local store is never touched.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { Logger } from 'pino';
import type { PydanticError } from '../errors/catalogue.js';
import { HttpError } from '../errors/http-error.js';
import { MAX_FORM_BODY, decodeFormBody, decodeJsonBody, isJsonType, type ParsedBody } from '../http/body.js';
import type { BodyRecord, ParsedRequest } from '../records/journal.js';
import { descriptorOf } from '../operations/descriptors.js';
import type { Operation } from '../document/openapi.js';
import { JsonDecodeError } from '../python/json-decode.js';
import type { OpenApiDocument } from '../document/openapi.js';
import type { OpenApiRequestValidator } from '../validation/eov.js';
import { validateInput } from '../validation/input.js';
import type { DriftLog } from './drift.js';
import { typeName, type DriftProblem } from './drift-problem.js';
import { forward, type Upstream } from './forward.js';
import { MAX_RECORDED_BYTES, type Recorder } from './recorder.js';

export interface ProxyDeps {
  upstream: Upstream;
  drift: DriftLog;
  recorder?: Recorder;
  logger: Logger;
  /** The validation stage's express-openapi-validator over openapi.json, for client drift. */
  validator: OpenApiRequestValidator;
  document: OpenApiDocument;
}

/** What the stage tells the journal (the same facts the local pipeline gives it). */
export interface ProxyFacts {
  parsed?: ParsedRequest;
}

/** JSON answers are kept up to this size for the drift check; larger ones are passed on unchecked. */
const MAX_CHECKED_JSON = 8 * 1024 * 1024;

const mediaType = (ct: string | undefined) => (ct ?? '').split(';')[0].trim().toLowerCase();

/** A kept copy of some bytes, dropped (`over`) once past its limit. */
class Kept {
  chunks: Buffer[] = [];
  size = 0;
  over = false;
  constructor(private readonly limit: number) {}
  add(chunk: Buffer) {
    this.size += chunk.length;
    if (this.over) return;
    if (this.size > this.limit) {
      this.over = true;
      this.chunks = [];
    } else this.chunks.push(chunk);
  }
  bytes(): Buffer | undefined {
    return this.over ? undefined : Buffer.concat(this.chunks);
  }
}

function decoded(body: Buffer, encoding: string | undefined): Buffer | undefined {
  try {
    switch ((encoding ?? 'identity').trim().toLowerCase()) {
      case 'identity':
        return body;
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(body);
      case 'deflate':
        return inflateSync(body);
      case 'br':
        return brotliDecompressSync(body);
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

/**
 * The request as the validator sees it, decoded from the kept copy by readBody's decoders, and what
 * the journal is handed of it; multipart uploads stream and are not parsed here.
 */
function parsedRequest(op: Operation, req: IncomingMessage, kept: Kept): { body: ParsedBody; problems: DriftProblem[]; journal: BodyRecord } {
  const raw = kept.bytes();
  const ct = req.headers['content-type'];
  const none = { kind: 'none' } as const;
  if (!op.body || op.body.kind === 'multipart' || !raw) return { body: none, problems: [], journal: kept.size ? { kind: 'streamed', bytes: kept.size } : none };
  if (op.body.kind === 'json') {
    try {
      const body = decodeJsonBody(raw, ct);
      return { body, problems: [], journal: body.kind === 'raw' ? { kind: 'unparsed', bytes: raw.length } : body };
    } catch (e) {
      const problem = { where: 'body', what: e instanceof JsonDecodeError ? 'json_invalid' : 'undecodable body', expected: 'JSON', got: 'unparseable text' };
      return { body: none, problems: [problem], journal: { kind: 'unparsed', bytes: raw.length } };
    }
  }
  const body = decodeFormBody(raw, ct);
  // A form of another type than urlencoded is empty to the validator and leaves no body in the journal.
  return { body, problems: [], journal: mediaType(ct) === 'application/x-www-form-urlencoded' ? body : none };
}

/** Client drift: what the validator would have answered 422 for, as problems naming types only. */
async function requestProblems(deps: ProxyDeps, op: Operation, req: IncomingMessage, pathParams: Record<string, string>, query: Map<string, string>, parsed: ReturnType<typeof parsedRequest>): Promise<DriftProblem[]> {
  if (parsed.problems.length) return parsed.problems;
  // A multipart body is not parsed (it streams): its parameters are still checked.
  const checked = op.body?.kind === 'multipart' ? { ...op, body: undefined } : op;
  try {
    await validateInput(deps.validator, deps.document, checked, { path: pathParams, query, headers: req.headers }, parsed.body);
    return [];
  } catch (e) {
    if (!(e instanceof HttpError) || !Array.isArray(e.detail)) return [];
    return (e.detail as PydanticError[]).map((d) => ({ where: d.loc.join('.'), what: d.type, expected: d.msg, got: d.type === 'missing' ? 'absent' : typeName(d.input) }));
  }
}

/** Forwards one service request (its query as the route stage parsed it); resolves when the exchange is over. */
export function proxyRequest(req: IncomingMessage, res: ServerResponse, op: Operation, pathParams: Record<string, string>, query: Map<string, string>, deps: ProxyDeps, facts: ProxyFacts): Promise<void> {
  const requestCopy = new Kept(op.body && op.body.kind !== 'multipart' ? MAX_FORM_BODY : 0);
  const isDownload = descriptorOf(op.id)?.download === true;
  let status = 0;
  let contentType: string | undefined;
  let encoding: string | undefined;
  let responseCopy: Kept | undefined;
  let hash: ReturnType<typeof createHash> | undefined;
  let headers: IncomingMessage['headers'] = {};
  // The journal reads facts.parsed when the answer finishes: set it as soon as the body is in.
  let parsed: ReturnType<typeof parsedRequest> | undefined;
  const parseRequest = () => {
    parsed ??= parsedRequest(op, req, requestCopy);
    facts.parsed = { operationId: op.id, body: parsed.journal, secretFields: op.added?.secretFields };
    return parsed;
  };
  req.once('end', parseRequest);
  return new Promise((resolve) => {
    forward(req, res, deps.upstream, {
      onRequestChunk: (chunk) => requestCopy.add(chunk),
      onResponse: (upRes) => {
        status = upRes.statusCode ?? 0;
        headers = upRes.headers;
        contentType = upRes.headers['content-type'];
        encoding = upRes.headers['content-encoding'];
        const download = isDownload && status === 200;
        if (download) hash = createHash('sha256');
        // Download bytes are kept only for a recording, and only up to its limit.
        responseCopy = new Kept(download ? (deps.recorder ? MAX_RECORDED_BYTES : 0) : MAX_CHECKED_JSON);
      },
      onResponseChunk: (chunk) => {
        hash?.update(chunk);
        responseCopy!.add(chunk);
      },
      onEnd: ({ complete, failure }) => {
        try {
          const parsed = parseRequest();
          if (failure) deps.logger.warn({ operationId: op.id, upstream: deps.upstream.origin, status: failure.status }, failure.detail);
          if (!complete || failure) return;
          const kept = responseCopy?.bytes();
          const body = kept && !hash ? decoded(kept, encoding) : undefined;
          const serviceProblems = deps.drift.checkResponse(op, status, contentType, hash ? undefined : body);
          // The client's side first, as before the validator became asynchronous.
          void requestProblems(deps, op, req, pathParams, query, parsed).then((problems) => {
            deps.drift.record('client', op, status, problems);
            deps.drift.record('service', op, status, serviceProblems);
          });
          if (!deps.recorder) return;
          let json: unknown;
          if (body && isJsonType(contentType)) {
            try {
              json = JSON.parse(body.toString('utf8'));
            } catch {
              json = undefined;
            }
          }
          const download = hash ? { bytes: encoding && encoding !== 'identity' ? undefined : kept, size: responseCopy!.size, checksum: hash.digest('hex'), contentType, disposition: headers['content-disposition'] } : undefined;
          deps.recorder.observe({ operationId: op.id, status, pathParams, query, json, download });
        } catch (e) {
          deps.logger.error({ err: e, operationId: op.id }, 'proxy bookkeeping failed');
        } finally {
          resolve();
        }
      },
    });
  });
}
