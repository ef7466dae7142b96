/**
 * Recording (`--record FILE`): what the real service answered, kept as a scenario file that
 * `--scenario FILE` serves statefully. The file is rewritten after every answer that changed it,
 * each time to a temporary file renamed over the old one, so a killed proxy leaves the last
 * complete recording. Tokens are never recorded: the scenario gets a placeholder user and API key.
 */
import { rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import type { OperationId } from '../generated/service-api.js';
import { isoTime, type Clock } from '../primitives/clock.js';
import type { ScenarioFile, ScenarioFileRecord } from '../scenarios/scenario.js';
import { seededBytes, sha256Hex } from '../scenarios/seeded-content.js';
import { RecordedPins } from './recorded-pins.js';

/** What a recording gives `--auth strict` instead of the tokens it never keeps (docs/real-service.md). */
export const RECORDED_USER = { username: 'recorded@cloud-browser-mock.invalid', password: 'recorded' };
export const RECORDED_API_KEY = 'sk_recorded_placeholder';

/** A downloaded file's bytes are kept up to this size; larger ones get derived bytes and a note. */
export const MAX_RECORDED_BYTES = 16 * 1024 * 1024;

type Json = Record<string, any>;
type FileEntry = ScenarioFileRecord & { note?: string; content_base64?: string };
type Secret = ScenarioFile['secrets'][number];

export interface Observed {
  operationId: string;
  status: number;
  pathParams: Record<string, string>;
  query: Map<string, string>;
  /** The parsed JSON answer, when it was JSON. */
  json?: unknown;
  /** A download: its headers and (when small enough) bytes. */
  download?: { bytes?: Buffer; size: number; checksum: string; contentType?: string; disposition?: string };
}

/** A secret value the recording may hold: one that gives the same key_hint (values are not kept). */
function placeholderValue(keyHint: string): string {
  const m = /^(.+)\*\*\*$/u.exec(keyHint);
  return m && keyHint !== '***' ? `${m[1]}-not-recorded` : 'unrec';
}

/** Scenario timestamps need a zone; a service that omits it means UTC. */
function zoned<F extends string | null>(t: unknown, fallback: F): string | F {
  if (typeof t !== 'string') return fallback;
  const z = /(Z|[+-]\d\d:?\d\d)$/i.test(t) ? t : `${t}Z`;
  return /^\d{4}-\d\d-\d\dT/.test(z) && !Number.isNaN(Date.parse(z)) ? z : fallback;
}

function filenameOf(disposition: string | undefined): string | undefined {
  if (!disposition) return undefined;
  const star = /filename\*=(?:UTF-8|utf-8)''([^;]+)/.exec(disposition);
  if (star) return decodeURIComponent(star[1]);
  return /filename="?([^";]+)"?/.exec(disposition)?.[1];
}

export class Recorder {
  #sessions = new Map<string, { actions: Json[]; files: Map<string, FileEntry> }>();
  #mailboxes = new Map<string, ScenarioFile['mailboxes'][number]>();
  #secrets = new Map<string, Secret>();
  /** Values read by getSecret, by namespace and name (only with recordSecretValues). */
  #values = new Map<string, string>();
  /** Sessions whose actions came from an answer without inferred response formats. */
  #plainActions = new Set<string>();
  /** The answers of the operations a --spec document adds, as pins. */
  #pins = new RecordedPins();
  #dirty = false;
  #writing: Promise<void> | null = null;

  constructor(
    private readonly file: string,
    private readonly opts: { upstreamOrigin: string; clock: Clock; logger: Logger; secretValues: boolean },
  ) {}

  #session(id: string) {
    let s = this.#sessions.get(id);
    if (!s) this.#sessions.set(id, (s = { actions: [], files: new Map() }));
    return s;
  }

  #file(sessionId: string, f: Json) {
    if (typeof f?.id !== 'string' || !f.id) return;
    const files = this.#session(sessionId).files;
    const known = files.get(f.id);
    const now = isoTime(this.opts.clock.now());
    const entry: FileEntry = {
      id: f.id,
      filename: String(f.filename || known?.filename || f.id),
      mime_type: String(f.mime_type || known?.mime_type || 'application/octet-stream'),
      size: Number.isInteger(f.size) && f.size >= 0 ? f.size : (known?.size ?? 0),
      checksum: String(f.checksum ?? known?.checksum ?? ''),
      created_at: zoned(f.created_at, known?.created_at ?? now),
      expires_at: zoned(f.expires_at, known?.expires_at ?? now),
      source: f.source === 'user_upload' || f.source === 'session_download' ? f.source : (known?.source ?? 'session_download'),
    };
    // Bytes seen in a download stay, as long as the listing still describes the same bytes.
    if (known?.content_base64 !== undefined && known.size === entry.size && (!f.checksum || f.checksum === known.checksum)) entry.content_base64 = known.content_base64;
    files.set(f.id, entry);
  }

  #mailbox(m: Json) {
    if (typeof m?.id !== 'string') return;
    const healthy = typeof m.healthy === 'boolean' ? m.healthy : true;
    this.#mailboxes.set(m.id, {
      id: m.id,
      // A drifted answer may lack fields the scenario needs; the recording stays loadable.
      email_address: typeof m.email_address === 'string' && m.email_address ? m.email_address : 'unknown@recorded.invalid',
      provider: m.provider === 'microsoft_outlook' ? 'microsoft_outlook' : 'gmail',
      healthy,
      authorized_scopes: Array.isArray(m.authorized_scopes) ? m.authorized_scopes.map(String) : [],
      allow_all_senders: m.allow_all_senders === true,
      allowed_sender_domains: Array.isArray(m.allowed_sender_domains) ? m.allowed_sender_domains.map(String) : [],
      created_at: zoned(m.created_at, null),
      updated_at: zoned(m.updated_at, null),
      // The connection's real state is hidden; the last answer's `healthy` is the best guess.
      connection_healthy: healthy,
    });
  }

  #secret(s: Json) {
    if (typeof s?.id !== 'string' || typeof s.name !== 'string' || !s.name) return;
    const namespace = s.namespace === 'llm_provider' ? 'llm_provider' : 'function_env';
    const value = this.#values.get(`${namespace}/${s.name}`) ?? placeholderValue(String(s.key_hint ?? '***'));
    this.#secrets.set(s.id, { id: s.id, namespace, name: String(s.name), value, created_at: zoned(s.created_at, isoTime(this.opts.clock.now())), last_used_at: zoned(s.last_used_at, null) });
  }

  /**
   * What each operation's successful answer adds to the recording; false when it changed nothing.
   * Typed by the generated ids, so a new operation must say what its answers record.
   */
  readonly #steps: { [Id in OperationId]: (o: Observed, j: Json) => boolean } = {
    createToken: () => false,
    listSessionFiles: ({ pathParams: p }, j) => {
      this.#session(p.session_id);
      if (Array.isArray(j.files)) for (const f of j.files) this.#file(p.session_id, f);
      return true;
    },
    uploadSessionFile: ({ pathParams: p }, j) => {
      this.#file(p.session_id, j);
      return true;
    },
    downloadSessionFile: ({ pathParams: { session_id: sessionId, file_id: fileId }, download }) => {
      const d = download!;
      const known = this.#session(sessionId).files.get(fileId);
      this.#file(sessionId, { ...known, id: fileId, size: d.size, checksum: d.checksum, filename: known?.filename ?? filenameOf(d.disposition), mime_type: known?.mime_type ?? d.contentType?.split(';')[0] });
      const entry = this.#session(sessionId).files.get(fileId)!;
      if (d.bytes) entry.content_base64 = d.bytes.toString('base64');
      return true;
    },
    deleteSessionFile: ({ pathParams: p }) => {
      this.#sessions.get(p.session_id)?.files.delete(p.file_id);
      return true;
    },
    getSessionScript: ({ pathParams: { session_id: sessionId }, query }, j) => {
      if (!Array.isArray(j.json_actions)) return false;
      // With infer_response_format the service adds response formats it inferred: those
      // actions are kept only until an answer without inference shows the recorded ones.
      const inferred = /^(1|t|y|on|yes|true)$/i.test(query.get('infer_response_format')?.trim() ?? '');
      const session = this.#session(sessionId);
      if (inferred && this.#plainActions.has(sessionId)) return false;
      if (!inferred) this.#plainActions.add(sessionId);
      session.actions = j.json_actions.filter((a: unknown) => a && typeof a === 'object' && typeof (a as Json).type === 'string');
      return true;
    },
    listMailboxes: (_o, j) => this.#mailboxItems(j),
    syncMailboxes: (_o, j) => this.#mailboxItems(j),
    getMailbox: (_o, j) => {
      this.#mailbox(j);
      return true;
    },
    updateMailbox: (_o, j) => {
      this.#mailbox(j);
      return true;
    },
    deleteMailbox: ({ pathParams: p }) => {
      this.#mailboxes.delete(p.mailbox_id);
      return true;
    },
    storeSecret: (_o, j) => {
      this.#secret(j);
      return true;
    },
    listSecrets: (_o, j) => {
      if (Array.isArray(j.items)) for (const s of j.items) this.#secret(s);
      return true;
    },
    getSecret: ({ pathParams: p, query }, j) => {
      if (!this.opts.secretValues || typeof j.value !== 'string' || !j.value) return false;
      const namespace = query.get('namespace') ?? 'function_env';
      this.#values.set(`${namespace}/${p.name}`, j.value);
      for (const s of this.#secrets.values()) if (s.namespace === namespace && s.name === p.name) s.value = j.value;
      return true;
    },
    deleteSecret: ({ pathParams: p }) => {
      this.#secrets.delete(p.secret_id);
      return true;
    },
  };

  #mailboxItems(j: Json): boolean {
    if (Array.isArray(j.items)) for (const m of j.items) this.#mailbox(m);
    return true;
  }

  /** Takes in one real answer; schedules a write when the recording changed. */
  observe(o: Observed): void {
    const ok = o.status >= 200 && o.status < 300;
    if (!ok) return;
    // Not one of the built-in operations: one a --spec document adds.
    if (!Object.hasOwn(this.#steps, o.operationId)) {
      if (this.#pins.observe(o)) this.schedule();
      return;
    }
    if (this.#steps[o.operationId as OperationId](o, (o.json ?? {}) as Json)) this.schedule();
  }

  /** The scenario as it stands; `generated_at` is now, and every timestamp is the service's own. */
  scenario(): ScenarioFile {
    const files = (s: { files: Map<string, FileEntry> }) =>
      [...s.files.values()].map((f) => {
        if (f.content_base64 !== undefined) return { ...f, checksum: sha256Hex(Buffer.from(f.content_base64, 'base64')) };
        // Never downloaded: bytes derived as for seeded files, of the real size.
        const derived = sha256Hex(seededBytes(f.id, f.size));
        return derived === f.checksum ? f : { ...f, checksum: derived, note: `bytes not recorded (never downloaded through the proxy); the service's checksum is ${f.checksum}` };
      });
    return {
      name: 'recorded',
      description: `Recorded by cloud-browser-mock from ${this.opts.upstreamOrigin}: everything seen through one proxy, whatever the token, in one scenario. Tokens are never recorded: the user ${RECORDED_USER.username} and the API key ${RECORDED_API_KEY} are placeholders.${this.opts.secretValues ? '' : ' Secret values are placeholders (run with --record-secret-values to keep values read through getSecret).'}`,
      generated_at: isoTime(this.opts.clock.now()),
      users: [RECORDED_USER],
      api_keys: [{ key: RECORDED_API_KEY, owner: RECORDED_USER.username }],
      sessions: [...this.#sessions].map(([id, s]) => ({ id, actions: s.actions, files: files(s) })),
      mailboxes: [...this.#mailboxes.values()],
      secrets: [...this.#secrets.values()],
      // Absent rather than empty: a recording of the built-in operations only stays as it was.
      ...(this.#pins.list().length ? { pins: this.#pins.list() } : {}),
    };
  }

  /** Writes soon; writes that pile up fold into one. */
  schedule(): void {
    this.#dirty = true;
    this.#writing ??= this.#drain();
  }

  /** One atomic write: a temporary file beside the recording, renamed over it. */
  async write(): Promise<void> {
    const tmp = join(dirname(this.file), `.${basename(this.file)}.${process.pid}.tmp`);
    await writeFile(tmp, `${JSON.stringify(this.scenario(), null, 2)}\n`);
    await rename(tmp, this.file);
  }

  async #drain(): Promise<void> {
    try {
      while (this.#dirty) {
        this.#dirty = false;
        await this.write();
      }
    } catch (e) {
      this.opts.logger.error({ file: this.file, error: (e as Error).message }, 'could not write the recording');
    } finally {
      this.#writing = null;
    }
  }

  /** Resolves once everything observed so far is on disk. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
  }
}
