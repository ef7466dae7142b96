/**
 * The workspace data model: what a workspace holds (on disk and in memory), its data format and
 * the listing order of its files. Below both store/ (which keeps records) and scenarios/ (which
 * makes the records a workspace starts from), so neither imports the other for them.
 * Timestamps are epoch milliseconds; the API formats them.
 */
export type FileSource = 'user_upload' | 'session_download';
export type MailboxProvider = 'gmail' | 'microsoft_outlook';
export type SecretNamespace = 'llm_provider' | 'function_env';

export interface StoredFile {
  id: string;
  session_id: string;
  filename: string;
  mime_type: string;
  size: number;
  checksum: string;
  created_at: number;
  expires_at: number;
  source: FileSource;
  /** Name of the blob holding an uploaded file's bytes. */
  blob?: string;
  /** Literal UTF-8 content of a scenario file; absent: bytes are derived from id and size. */
  content?: string;
  /** Literal bytes of a scenario file, base64-encoded (a recording's downloads). */
  content_base64?: string;
}

export type Action = Record<string, unknown> & { type: string };

export interface StoredSession {
  id: string;
  actions: Action[];
  /** Newest first: created_at descending, then id descending (the listing order, compareFiles). */
  files: StoredFile[];
}

export interface StoredMailbox {
  id: string;
  email_address: string;
  provider: MailboxProvider;
  healthy: boolean;
  authorized_scopes: string[];
  allow_all_senders: boolean;
  allowed_sender_domains: string[];
  created_at: number | null;
  updated_at: number | null;
  /** The provider connection's real state, which the next sync reports as `healthy`. */
  connection_healthy: boolean;
}

export interface StoredSecret {
  id: string;
  namespace: SecretNamespace;
  name: string;
  value: string;
  key_hint: string;
  created_at: number;
  last_used_at: number | null;
}

export interface WorkspaceData {
  format: number;
  principal: string;
  /** Position of the id generator, persisted so ids never repeat after a restart. */
  next_id: number;
  sessions: StoredSession[];
  mailboxes: StoredMailbox[];
  secrets: StoredSecret[];
}

/**
 * The data format of a data directory (meta.json and every workspace file): the one place it is
 * kept. 2: API keys became their owners' principals and other tokens' principal ids grew to 24
 * hex digits (issue 11), which renamed workspaces on disk. 3: state directories (crash-atomic
 * resets) and a blob folder per workspace (issue 15). An older directory stops start-up, naming
 * --reset-data, rather than leave its workspaces silently orphaned.
 */
export const DATA_FORMAT = 3;
export const WORKSPACE_FORMAT = DATA_FORMAT;

/** The listing order: newest first, then id descending. */
export function compareFiles(a: { created_at: number; id: string }, b: { created_at: number; id: string }): number {
  if (a.created_at !== b.created_at) return b.created_at - a.created_at;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
