/** Connected mailboxes: list, get, update sender rules, sync, delete (CONTRACT §1, §2). */
import { DETAIL, notFound } from '../errors/http-error.js';
import { isoTime } from '../primitives/clock.js';
import type { MailboxProvider, StoredMailbox } from '../model/records.js';
import type { Workspace } from '../store/workspace.js';
import { workspaceOf, type Handler, type OperationDescriptor } from './types.js';

export function mailboxView(m: StoredMailbox) {
  return {
    id: m.id,
    email_address: m.email_address,
    provider: m.provider,
    healthy: m.healthy,
    authorized_scopes: m.authorized_scopes,
    allow_all_senders: m.allow_all_senders,
    allowed_sender_domains: m.allowed_sender_domains,
    created_at: m.created_at === null ? null : isoTime(m.created_at),
    updated_at: m.updated_at === null ? null : isoTime(m.updated_at),
  };
}

/** What a mailbox may be given from outside the service: the control plane's connect, a snapshot. */
export interface MailboxFields {
  id: string;
  email_address: string;
  provider: MailboxProvider;
  healthy?: boolean;
  /** The provider connection's state; without it, `healthy` (else healthy). */
  connection_healthy?: boolean;
  authorized_scopes?: string[];
  allow_all_senders?: boolean;
  allowed_sender_domains?: string[];
  created_at?: number | null;
  updated_at?: number | null;
}

/** A stored mailbox from given fields, the rest defaulted; times not given are `now`. */
export function mailboxRecord(m: MailboxFields, now: number): StoredMailbox {
  const connection = m.connection_healthy ?? m.healthy ?? true;
  return {
    id: m.id,
    email_address: m.email_address,
    provider: m.provider,
    healthy: m.healthy ?? connection,
    authorized_scopes: m.authorized_scopes ?? [],
    allow_all_senders: m.allow_all_senders ?? false,
    allowed_sender_domains: m.allowed_sender_domains ?? [],
    created_at: m.created_at ?? now,
    updated_at: m.updated_at ?? now,
    connection_healthy: connection,
  };
}

/** Listed by created_at, then id (CONTRACT §8); a mailbox without created_at comes first. */
function sorted(ws: Workspace): StoredMailbox[] {
  return [...ws.mailboxes()].sort((a, b) => (a.created_at ?? -Infinity) - (b.created_at ?? -Infinity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function mailboxOr404(ws: Workspace, id: string): StoredMailbox {
  const m = ws.mailbox(id);
  if (!m) throw notFound(DETAIL.mailboxNotFound);
  return m;
}

export const listMailboxes: Handler<'listMailboxes'> = async (_input, ctx) => ({ status: 200, json: { items: sorted(workspaceOf(ctx)).map(mailboxView) } });

export const getMailbox: Handler<'getMailbox'> = async ({ path }, ctx) => ({ status: 200, json: mailboxView(mailboxOr404(workspaceOf(ctx), path.mailbox_id)) });

export const updateMailbox: Handler<'updateMailbox'> = async ({ path, body }, ctx) => {
  const ws = workspaceOf(ctx);
  const m = await ws.changeMailbox(mailboxOr404(ws, path.mailbox_id), {
    allow_all_senders: body.allow_all_senders,
    // Omitted or null: unchanged (CONTRACT §2, §5).
    ...(body.allowed_sender_domains !== undefined && body.allowed_sender_domains !== null ? { allowed_sender_domains: body.allowed_sender_domains } : {}),
    updated_at: ctx.clock.now(),
  });
  return { status: 200, json: mailboxView(m) };
};

/**
 * Re-checks the selected mailboxes (all when nothing selects): `healthy` becomes the state of
 * the provider connection, a hidden field scenarios and the control plane set.
 */
export const syncMailboxes: Handler<'syncMailboxes'> = async ({ body }, ctx) => {
  const ws = workspaceOf(ctx);
  const mailboxId: string | null = body?.mailbox_id ?? null;
  const provider: string | null = body?.provider ?? null;
  if (mailboxId !== null) mailboxOr404(ws, mailboxId);
  const now = ctx.clock.now();
  const selected = await ws.changeMailboxes(
    sorted(ws)
      .filter((m) => (mailboxId === null || m.id === mailboxId) && (provider === null || m.provider === provider))
      .map((m) => [m, { healthy: m.connection_healthy, updated_at: now }] as const),
  );
  return { status: 200, json: { items: selected.map(mailboxView) } };
};

export const deleteMailbox: Handler<'deleteMailbox'> = async ({ path }, ctx) => {
  if (!(await workspaceOf(ctx).deleteMailbox(path.mailbox_id))) throw notFound(DETAIL.mailboxNotFound);
  return { status: 204 };
};

export const listMailboxesDescriptor: OperationDescriptor<'listMailboxes'> = { prefer: {} };
export const getMailboxDescriptor: OperationDescriptor<'getMailbox'> = { prefer: { 404: DETAIL.mailboxNotFound } };
export const updateMailboxDescriptor: OperationDescriptor<'updateMailbox'> = {
  prefer: { 400: DETAIL.bodyParseError, 404: DETAIL.mailboxNotFound, 413: DETAIL.bodyTooLarge },
};
export const syncMailboxesDescriptor: OperationDescriptor<'syncMailboxes'> = {
  prefer: { 400: DETAIL.bodyParseError, 404: DETAIL.mailboxNotFound, 413: DETAIL.bodyTooLarge },
};
export const deleteMailboxDescriptor: OperationDescriptor<'deleteMailbox'> = { prefer: { 404: DETAIL.mailboxNotFound } };
