/**
 * The parts createApp loads only when asked for: the response validator (--validate-responses)
 * and the proxy stage's (--upstream, --record), each imported on demand to keep start-up cheap.
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { OpenApiDocument } from '../document/openapi.js';
import { brokenRule, type MockOptions } from '../options.js';
import type { Clock } from '../primitives/clock.js';
import type { ProxyDeps } from '../proxy/proxy-stage.js';
import { StartupError } from '../store/store.js';
import type { OpenApiRequestValidator } from '../validation/eov.js';
import type { ResponseValidator } from '../validation/responses.js';

/** Loaded only when asked for: Ajv and its compiled schemas are the dearest part of start-up. */
export async function responseValidator(document: OpenApiDocument): Promise<ResponseValidator> {
  const { createResponseValidator } = await import('../validation/responses.js');
  return createResponseValidator(document);
}

/**
 * The proxy stage's parts, only with --upstream: Ajv and the strict schemas are loaded for it alone.
 */
export async function proxyDeps(options: MockOptions, upstreamTimeoutMs: number, document: OpenApiDocument, validator: OpenApiRequestValidator, clock: Clock, logger: Logger): Promise<ProxyDeps | undefined> {
  const broken = brokenRule(options);
  if (broken) throw new StartupError(`--${broken.flag} ${broken.needs}`);
  if (!options.upstream) return undefined;
  const { parseUpstream, ProxySetupError, UpstreamUrlError } = await import('../proxy/forward.js');
  let upstream;
  try {
    upstream = parseUpstream(options.upstream, upstreamTimeoutMs);
  } catch (e) {
    if (e instanceof UpstreamUrlError) throw new ProxySetupError(e.message);
    throw e;
  }
  const { DriftLog } = await import('../proxy/drift.js');
  const drift = new DriftLog(document, clock, logger);
  let recorder;
  if (options.record) {
    const { Recorder } = await import('../proxy/recorder.js');
    const file = resolve(options.cwd ?? process.cwd(), options.record);
    recorder = new Recorder(file, { upstreamOrigin: upstream.origin, clock, logger, secretValues: options.recordSecretValues ?? false });
    try {
      await recorder.write();
    } catch (e) {
      throw new ProxySetupError(`--record ${file}: cannot write there (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    logger.info({ file }, 'recording into one scenario everything seen through this proxy, whatever the token (tokens themselves are never recorded)');
  }
  logger.info({ upstream: upstream.origin }, 'forwarding service requests to the upstream; the local store is not used');
  return { upstream, drift, recorder, logger, validator, document };
}
