/**
 * createRuntime(options): the one place the options become the running mock's state — the served
 * document and its validator, the store, the clock, the auth configuration, the journal, faults,
 * coverage and pins (runtime/runtime.ts). createApp mounts both APIs over what it returns.
 */
import { pino } from 'pino';
import { buildOperations, readOpenApi } from '../document/openapi.js';
import { loadSpec } from '../document/spec-file.js';
import { buildUnion } from '../document/union.js';
import { Auth } from '../operations/auth.js';
import { DEFAULTS, durations, type MockOptions } from '../options.js';
import { Clock } from '../primitives/clock.js';
import { Coverage } from '../records/coverage.js';
import { Faults } from '../records/faults.js';
import { Journal } from '../records/journal.js';
import { Pins } from '../records/pins.js';
import { assembleRuntime, type Runtime } from '../runtime/runtime.js';
import { ScenarioError, scenarioPath, type LoadedScenario } from '../scenarios/scenario.js';
import { StartupError, type Store } from '../store/store.js';
import { createOpenApiValidator } from '../validation/eov.js';
import { scenarioPinsProblem } from '../control-plane/pin-checks.js';
import { createStore } from './create-store.js';
import { proxyDeps, responseValidator } from './proxy-deps.js';

export interface RuntimeOptions extends MockOptions {
  /** A store to use instead of opening one (createApp's `store`): its scenario, seed and clock are then the runtime's. */
  store?: Store;
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  if (options.store && options.clock && options.clock !== options.store.clock) {
    throw new StartupError('createApp: options.clock is not the clock of options.store; leave clock out (the store\'s is used) or open the store with it');
  }
  const clock = options.clock ?? options.store?.clock ?? new Clock();
  // A clock passed in stays the caller's object; a full reset puts back the settings it had here.
  const clockAtStart = clock.state();
  const logger = pino({ level: options.logLevel ?? DEFAULTS.logLevel, base: undefined }, (options.logDestination as pino.DestinationStream | undefined) ?? pino.destination(1));
  // With --spec, the served document is the union (document/union.ts); without it, openapi.json.
  const builtIn = readOpenApi();
  const union = options.spec !== undefined ? buildUnion(builtIn, loadSpec(options.spec, options.cwd), options.spec) : undefined;
  if (union?.warning) logger.warn(union.warning);
  const document = union?.document ?? builtIn;
  const operations = buildOperations(document, new Set(union?.added));
  // The generator (json-schema-faker) is loaded only with --spec: without it, start-up reads none of it.
  const answers = union ? await import('../answers/index.js') : undefined;
  const answerer = answers?.createAnswerer(document);
  // One express-openapi-validator for the document: the pipeline's, also the proxy's client-drift check.
  // The fifteen's operations keep their dereferenced validators with --spec (the built-in document has no cycle).
  const validator = createOpenApiValidator(document, union ? 'bundle' : 'dereference', new Set(operations.filter((o) => !o.added).map((o) => o.id)));
  const { fileTtlMs, tokenTtlMs, upstreamTimeoutMs } = durations(options);
  // Checked before the store opens, so a bad --upstream/--record leaves nothing open behind it.
  const proxy = await proxyDeps(options, upstreamTimeoutMs, document, validator, clock, logger);
  const pins = new Pins(operations.map((o) => ({ id: o.id, pathParams: o.pathParams, statuses: o.statuses })));
  const checkPinBody = answerer ? (operationId: string, status: number, body: unknown) => answerer.validateAnswer(operationId, status, body) : undefined;
  // Checked as the scenario loads, before a data directory is made for it.
  const acceptScenario = (scenario: LoadedScenario) => {
    const problem = scenarioPinsProblem({ pins, checkPinBody }, scenario.pins);
    if (!problem) return;
    const line = `scenario file ${scenarioPath(scenario.ref, options.cwd)}: ${problem}`;
    throw new StartupError(line, { cause: new ScenarioError(line) });
  };
  // A store passed in is used as it is (its scenario, seed, data directory); else one is opened.
  if (options.store) acceptScenario(options.store.scenario);
  const store = options.store ?? (await createStore({ ...options, clock }, { proxy: Boolean(proxy), warn: (line) => logger.warn(line), onCompaction: (c) => logger.debug(c, 'workspace compacted'), acceptScenario }));
  pins.loadScenario(store.scenario.pins);
  return assembleRuntime({
    clockAtStart,
    store,
    clock,
    auth: new Auth({ mode: options.auth ?? DEFAULTS.auth, tokenTtlMs, clock, keys: store }),
    logger,
    document,
    operations,
    validator,
    fileTtlMs,
    maxUploadBytes: options.maxUploadBytes ?? DEFAULTS.maxUploadBytes,
    journal: new Journal(options.journalSize ?? DEFAULTS.journalSize, options.journalMaxBytes ?? DEFAULTS.journalMaxBytes),
    faults: new Faults(operations.map((o) => o.id), store.seed),
    coverage: new Coverage(operations),
    pins,
    checkPinBody,
    answerer,
    added: answers && answerer ? { answerer, PreferError: answers.PreferError, pins, seed: options.seed ?? store.seed } : undefined,
    proxy,
    validateResponse: options.validateResponses ? await responseValidator(document) : undefined,
  });
}
