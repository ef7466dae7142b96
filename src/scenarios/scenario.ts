/**
 * Scenarios: the data a new workspace starts from (CONTRACT §7, §8). A scenario file is validated
 * against fixtures/scenario.schema.json at load; a bad one stops start-up with one line naming
 * the file, the JSON path and what is wrong. Timestamps are relative to `generated_at`.
 */
import { readFileSync } from 'node:fs';
import { readScenarioBytes, ScenarioError, type Unreadable } from './read-scenario-bytes.js';
import { isAbsolute, join, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { componentsCompiler } from '../primitives/ajv.js';
import { clampInstant } from '../primitives/clock.js';
import { packageRoot } from '../primitives/package-root.js';
import { keyHint } from '../model/secret-rules.js';
import { compareFiles, WORKSPACE_FORMAT, type StoredFile, type StoredMailbox, type StoredSecret, type StoredSession, type WorkspaceData } from '../model/records.js';
import { scenarioFileBytes, sha256Hex } from './seeded-content.js';
import { JsonDecodeError, pyJsonLoads } from '../python/json-decode.js';

export const BUILT_IN_SCENARIOS = ['default', 'empty', 'paging', 'expiring', 'unhealthy-mailboxes'] as const;

export interface ScenarioFile {
  $schema?: string;
  name: string;
  description?: string;
  generated_at: string;
  users: { username: string; password: string }[];
  /** Each key belongs to one of `users`: the key and that user's issued tokens share a workspace. */
  api_keys: { key: string; owner: string }[];
  sessions: { id: string; actions: Record<string, unknown>[]; files: ScenarioFileRecord[] }[];
  mailboxes: (Omit<StoredMailbox, 'created_at' | 'updated_at'> & { created_at: string | null; updated_at: string | null })[];
  secrets: { id: string; namespace: StoredSecret['namespace']; name: string; value: string; created_at: string; last_used_at: string | null }[];
  /** Fixed answers for operations a --spec document adds (records/pins.ts); checked against the document at start-up. */
  pins?: ScenarioPin[];
}

/** A scenario file's pinned answer, as control-plane.openapi.json's PinRequest. */
export interface ScenarioPin {
  operationId: string;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  path_params?: Record<string, string>;
  principal?: string;
  times?: number;
}

export interface ScenarioFileRecord {
  id: string;
  filename: string;
  mime_type: string;
  size: number;
  checksum: string;
  created_at: string;
  expires_at: string;
  source: StoredFile['source'];
  content?: string;
  /** Any bytes, base64-encoded (a recording's downloads); never together with `content`. */
  content_base64?: string;
  /** Ignored on load; a recording explains here what it could not capture. */
  note?: string;
}

/** A scenario loaded at an instant: its template workspace has absolute timestamps. */
export interface LoadedScenario {
  /** The name (built-in) or the path as given. */
  ref: string;
  users: Map<string, string>;
  /** API key → the username that owns it. */
  apiKeys: Map<string, string>;
  template: Omit<WorkspaceData, 'principal'>;
  /** The file's pins, as written (no timestamps to move). */
  pins: readonly ScenarioPin[];
}

export { ScenarioError } from './read-scenario-bytes.js';

/**
 * The scenario schema, compiled on the first scenario that needs checking: Ajv and the compile
 * cost more than the rest of start-up, and the built-in scenarios do not need them (see
 * readScenarioFile). The validator is held by whoever holds this — the store a createApp made —
 * and compiled once per process (componentsCompiler's pure cache: the next app's store takes it
 * compiled). The schema is ours and test/scenarios.test.ts checks it against the meta-schema, so
 * Ajv need not compile the meta-schema at run time.
 */
export class ScenarioSchema {
  #validator: ValidateFunction | undefined;

  /** The first problem with `data`, or null when it is a valid scenario file. */
  check(data: unknown) {
    this.#validator ??= componentsCompiler({}, { allErrors: false }).compile(JSON.parse(readFileSync(scenarioSchemaPath(), 'utf8')));
    return this.#validator(data) ? null : this.#validator.errors![0];
  }
}

export const scenarioSchemaPath = () => join(packageRoot, 'fixtures', 'scenario.schema.json');

const isBuiltIn = (ref: string) => (BUILT_IN_SCENARIOS as readonly string[]).includes(ref);

export function scenarioPath(ref: string, cwd = process.cwd()): string {
  if (isBuiltIn(ref)) return join(packageRoot, 'fixtures', `${ref}.json`);
  return isAbsolute(ref) ? ref : resolve(cwd, ref);
}

/**
 * How a read treats the file. Errors quote its content by default — start-up's file, named on the
 * command line by the developer; the control plane's never do (`quoteContent: false`) — its path
 * comes from an HTTP request, and the answer must not become a way to read `/etc/shadow` a few
 * bytes at a time.
 */
export interface ReadOptions {
  trustBuiltIn?: boolean;
  quoteContent?: boolean;
  /** The compiled schema to reuse; without it one is compiled for this read, if it needs one. */
  schema?: ScenarioSchema;
}

/** The errors for a path that names no file or a directory: they list the built-in scenarios. */
const unreadable = (ref: string, file: string): Unreadable => ({
  missing: () => new ScenarioError(`scenario ${JSON.stringify(ref)} not found: no file ${file} (built-in scenarios: ${BUILT_IN_SCENARIOS.join(', ')})`),
  directory: () => new ScenarioError(`scenario ${file} is a directory; name a scenario file (JSON) or a built-in scenario (${BUILT_IN_SCENARIOS.join(', ')})`),
});

/** Where JSON.parse failed, in Python's words, which never quote the text (V8's message does). */
function jsonProblem(text: string): string {
  try {
    pyJsonLoads(text);
  } catch (e) {
    if (e instanceof JsonDecodeError) return `${e.msg} at character ${e.pos}`;
  }
  return 'not JSON';
}

/**
 * Reads and checks a scenario file. `trustBuiltIn` skips the schema check of a built-in scenario:
 * those files are the seeded generator's output, which test/scenarios.test.ts compares byte for
 * byte and validates, so start-up spares itself Ajv (the consistency checks still run).
 */
export async function readScenarioFile(ref: string, cwd?: string, options: ReadOptions = {}): Promise<ScenarioFile> {
  const file = scenarioPath(ref, cwd);
  return parseScenario(await readScenarioBytes(file, unreadable(ref, file)), ref, file, { quoteContent: true, ...options });
}

function parseScenario(bytes: Buffer, ref: string, file: string, { trustBuiltIn = false, quoteContent = false, schema }: ReadOptions): ScenarioFile {
  const text = bytes.toString('utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ScenarioError(`scenario file ${file} is not valid JSON: ${quoteContent ? (e as Error).message : jsonProblem(text)}`);
  }
  const problem = trustBuiltIn && isBuiltIn(ref) ? null : (schema ?? new ScenarioSchema()).check(data);
  if (problem) {
    const where = problem.instancePath ? `$${problem.instancePath.replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.')}` : '$';
    const extra = quoteContent && problem.params && 'additionalProperty' in problem.params ? ` (${String(problem.params.additionalProperty)})` : '';
    // The schema's only `not` is the file record's: content and content_base64 exclude each other.
    const message = problem.keyword === 'not' ? 'has both content and content_base64; give one' : problem.message;
    throw new ScenarioError(`scenario file ${file}: ${where} ${message}${extra}`);
  }
  checkConsistency(data as ScenarioFile, file, quoteContent);
  return data as ScenarioFile;
}

/** What the schema cannot say: unique ids, and checksums that match the bytes served. */
function checkConsistency(s: ScenarioFile, file: string, quoteContent: boolean) {
  const fail = (where: string, what: string) => {
    throw new ScenarioError(`scenario file ${file}: ${where} ${what}`);
  };
  const repeats = (id: string) => (quoteContent ? `repeats ${id}` : 'repeats an earlier id');
  const users = new Set(s.users.map((u) => u.username));
  const keys = new Set<string>();
  s.api_keys.forEach((k, i) => {
    if (!users.has(k.owner)) fail(`$.api_keys[${i}].owner`, `${JSON.stringify(k.owner)} is not one of the scenario's users`);
    if (keys.has(k.key)) fail(`$.api_keys[${i}].key`, 'repeats an earlier key');
    keys.add(k.key);
  });
  const seen = new Set<string>();
  s.sessions.forEach((session, i) => {
    if (seen.has(session.id)) fail(`$.sessions[${i}].id`, repeats(session.id));
    seen.add(session.id);
    session.files.forEach((f, j) => {
      const where = `$.sessions[${i}].files[${j}]`;
      if (seen.has(f.id)) fail(`${where}.id`, repeats(f.id));
      seen.add(f.id);
      if (f.content !== undefined && Buffer.byteLength(f.content, 'utf8') !== f.size) fail(`${where}.size`, `is ${f.size} but content has ${Buffer.byteLength(f.content, 'utf8')} bytes`);
      if (f.content_base64 !== undefined) {
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(f.content_base64) || f.content_base64.length % 4 !== 0) fail(`${where}.content_base64`, 'is not base64');
        const n = Buffer.from(f.content_base64, 'base64').length;
        if (n !== f.size) fail(`${where}.size`, `is ${f.size} but content_base64 has ${n} bytes`);
      }
      // Checking every derived checksum would cost seconds on the 5,000-file scenario; literal
      // content is checked, derived bytes are checked by the fixture tests.
      const literal = f.content !== undefined ? 'content' : f.content_base64 !== undefined ? 'content_base64' : null;
      if (literal && sha256Hex(scenarioFileBytes(f)) !== f.checksum) fail(`${where}.checksum`, `is not the SHA-256 of ${literal}`);
    });
  });
  s.mailboxes.forEach((m, i) => {
    if (seen.has(m.id)) fail(`$.mailboxes[${i}].id`, repeats(m.id));
    seen.add(m.id);
  });
  s.secrets.forEach((sec, i) => {
    if (seen.has(sec.id)) fail(`$.secrets[${i}].id`, repeats(sec.id));
    seen.add(sec.id);
  });
}

/**
 * Loads a scenario at `now`: every timestamp moves by (now − generated_at). Built-in scenarios are
 * trusted (see readScenarioFile); the control plane passes `quoteContent: false`.
 */
export async function loadScenario(ref: string, now: number, cwd?: string, options: Omit<ReadOptions, 'trustBuiltIn'> = {}): Promise<LoadedScenario> {
  return scenarioAt(await readScenarioFile(ref, cwd, { ...options, trustBuiltIn: true }), ref, now);
}

function scenarioAt(s: ScenarioFile, ref: string, now: number): LoadedScenario {
  const shift = now - Date.parse(s.generated_at);
  // A scenario loaded with the clock near year 9999 keeps its expiries within what a datetime holds.
  const at = (t: string) => clampInstant(Date.parse(t) + shift);
  const atOrNull = (t: string | null) => (t === null ? null : at(t));
  const sessions: StoredSession[] = s.sessions.map((session) => ({
    id: session.id,
    actions: session.actions as StoredSession['actions'],
    files: session.files
      .map(({ note: _note, ...f }) => ({ ...f, session_id: session.id, created_at: at(f.created_at), expires_at: at(f.expires_at) }))
      .sort(compareFiles),
  }));
  const mailboxes: StoredMailbox[] = s.mailboxes.map((m) => ({ ...m, created_at: atOrNull(m.created_at), updated_at: atOrNull(m.updated_at) }));
  const secrets: StoredSecret[] = s.secrets.map((sec) => ({
    ...sec,
    key_hint: keyHint(sec.value),
    created_at: at(sec.created_at),
    last_used_at: atOrNull(sec.last_used_at),
  }));
  return {
    ref,
    users: new Map(s.users.map((u) => [u.username, u.password])),
    apiKeys: new Map(s.api_keys.map((k) => [k.key, k.owner])),
    template: { format: WORKSPACE_FORMAT, next_id: 0, sessions, mailboxes, secrets },
    pins: s.pins ?? [],
  };
}
