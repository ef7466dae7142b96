/**
 * Browser code of the inspector page, part 3: the Workspaces panel (each principal's sessions,
 * paged files with expiry against the mock's clock, mailboxes, secrets' metadata — never a
 * value — and resets) and the Clock panel. Sent to the browser as source; see inspector-core.ts.
 */
import { api, attempt, byId, bytes, h, loadClock, say, span, st } from './inspector-core.js';

/** A captioned table, or `empty` when there are no rows; a heading ending in " #" is a number column. */
export function table(caption: string, head: string[], rows: HTMLElement[], empty: string): HTMLElement {
  if (!rows.length) return h('p', null, empty);
  const cols = head.map((c) => (c.endsWith(' #') ? h('th', { scope: 'col', class: 'num' }, c.slice(0, -2)) : h('th', { scope: 'col' }, c)));
  return h('div', { class: 'scroll' }, h('table', null, h('caption', null, caption), h('thead', null, h('tr', null, cols)), h('tbody', null, rows)));
}

export async function loadWorkspaces(): Promise<void> {
  const { items } = await api('GET', '/workspaces');
  const rows = items.map((w: any) =>
    h('tr', null,
      h('th', { scope: 'row' }, w.principal),
      h('td', { class: 'num' }, w.sessions), h('td', { class: 'num' }, w.files), h('td', { class: 'num' }, w.mailboxes), h('td', { class: 'num' }, w.secrets),
      h('td', null,
        h('button', { type: 'button', onclick: () => attempt('Open', () => openWorkspace(w.principal)) }, 'Open'), ' ',
        h('button', { type: 'button', onclick: () => attempt('Reset', () => resetWorkspace(w.principal)) }, 'Reset'))),
  );
  byId('ws-list').replaceChildren(table('Workspaces with state', ['Principal', 'Sessions #', 'Files #', 'Mailboxes #', 'Secrets #', ''], rows, 'No workspace yet: one appears when a principal first calls the mock.'));
  const s = st();
  if (s.principal && items.some((w: any) => w.principal === s.principal)) await openWorkspace(s.principal);
  else byId('ws-detail').replaceChildren();
}

export async function resetWorkspace(principal: string): Promise<void> {
  await api('POST', `/reset?principal=${encodeURIComponent(principal)}`);
  say(`Workspace ${principal} reset to the scenario`);
  await loadWorkspaces();
}

export async function openWorkspace(principal: string): Promise<void> {
  const s = st();
  if (s.principal !== principal) (s.session = null), (s.offset = 0);
  s.principal = principal;
  const ws = await api('GET', `/workspaces/${encodeURIComponent(principal)}/overview`);
  const sessions = ws.sessions.map((x: any) =>
    h('tr', { 'aria-current': x.id === s.session ? 'true' : null },
      h('th', { scope: 'row' }, x.id), h('td', { class: 'num' }, x.actions), h('td', { class: 'num' }, x.files), h('td', { class: 'num' }, x.expired_files),
      h('td', null, h('button', { type: 'button', onclick: () => attempt('Files', () => ((s.session = x.id), (s.offset = 0), openWorkspace(principal))) }, `Files of ${x.id}`))),
  );
  const mailboxes = ws.mailboxes.map((m: any) =>
    h('tr', null, h('th', { scope: 'row' }, m.id), h('td', null, m.email_address), h('td', null, m.provider), h('td', null, m.healthy ? 'healthy' : 'unhealthy'), h('td', null, m.connection_healthy ? 'up' : 'down (next sync)')),
  );
  const secrets = ws.secrets.map((x: any) =>
    h('tr', null, h('td', null, x.namespace), h('th', { scope: 'row' }, x.name), h('td', null, x.key_hint), h('td', null, x.created_at), h('td', null, x.last_used_at ?? 'never')),
  );
  byId('ws-detail').replaceChildren(
    h('h3', null, `Workspace ${principal}`),
    table('Sessions', ['Session', 'Actions #', 'Files #', 'Expired #', ''], sessions, 'No sessions.'),
    s.session ? await filesSection(principal, s.session) : '',
    table('Mailboxes', ['Mailbox', 'Address', 'Provider', 'Reported', 'Connection'], mailboxes, 'No mailboxes.'),
    table('Secrets (metadata only: the page never receives a value)', ['Namespace', 'Name', 'Key hint', 'Created', 'Last used'], secrets, 'No secrets.'),
  );
}

export async function filesSection(principal: string, session: string): Promise<HTMLElement> {
  const s = st();
  const page = await api('GET', `/workspaces/${encodeURIComponent(principal)}/sessions/${encodeURIComponent(session)}/files?offset=${s.offset}&limit=${50}`);
  const now = Date.parse(page.now);
  const rows = page.items.map((f: any) => {
    const left = Date.parse(f.expires_at) - now;
    return h('tr', { class: f.expired ? 'expired' : null, 'data-file': f.id },
      h('th', { scope: 'row' }, f.filename), h('td', { class: 'num' }, bytes(f.size)), h('td', null, f.source), h('td', null, f.created_at),
      h('td', null, f.expired ? h('strong', null, `expired ${span(left)} ago`) : `in ${span(left)}`));
  });
  const go = (offset: number) => () => attempt('Page', () => ((s.offset = offset), openWorkspace(principal)));
  const last = Math.min(page.offset + page.items.length, page.total);
  const range = page.total ? `${page.offset + 1}–${last} of ${page.total}` : 'none';
  return h('section', { 'aria-label': `Files of ${session}` },
    table(`Files of ${session}: ${range} (expiry by the mock's clock, ${page.now})`, ['Name', 'Size #', 'Source', 'Created', 'Expires'], rows, `No files in ${session}.`),
    h('p', null,
      h('button', { type: 'button', disabled: page.offset === 0, onclick: go(Math.max(0, page.offset - 50)) }, 'Previous page'), ' ',
      h('button', { type: 'button', disabled: last >= page.total, onclick: go(page.offset + 50) }, 'Next page')));
}

/** "+8 days", "8d", "2 h", "90" (seconds) → seconds; anything else goes to the mock as written (P8D). */
export function advanceAmount(text: string): number | string {
  const m = /^\+?\s*(\d+(?:\.\d+)?)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hours?|d|days?|w|weeks?)?$/i.exec(text.trim());
  if (!m) return text.trim();
  const unit = (m[2] ?? 's')[0].toLowerCase();
  return Number(m[1]) * ({ s: 1, m: 60, h: 3600, d: 86400, w: 604800 } as Record<string, number>)[unit];
}

export async function clockChanged(): Promise<void> {
  await loadClock();
  const s = st();
  // Expiry columns follow the clock.
  if (s.principal) await attempt('Workspace', () => openWorkspace(s.principal));
}

export function setUpWorkspacesAndClock(): void {
  byId('ws-refresh').addEventListener('click', () => attempt('Refresh', loadWorkspaces));
  byId('ws-reset-all').addEventListener('click', () =>
    attempt('Reset all', async () => {
      await api('POST', '/reset');
      st().principal = null;
      say('Every workspace reset to the scenario; journal, faults, coverage and run-time pins cleared');
      await loadWorkspaces();
    }),
  );
  byId('clock-advance').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = (byId('clock-advance-by') as HTMLInputElement).value;
    void attempt('Advance', async () => (await api('POST', '/clock', { advance: advanceAmount(text) }), await clockChanged(), say(`Clock advanced by ${text.trim()}`)));
  });
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-advance]')) {
    b.addEventListener('click', () => attempt('Advance', async () => (await api('POST', '/clock', { advance: advanceAmount(b.dataset.advance!) }), await clockChanged(), say(`Clock advanced by ${b.dataset.advance}`))));
  }
  byId('clock-set').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const at = (byId('clock-set-at') as HTMLInputElement).value.trim();
    void attempt('Set', async () => (await api('POST', '/clock', { set: at }), await clockChanged(), say(`Clock frozen at ${at}`)));
  });
  byId('clock-reset').addEventListener('click', () => attempt('Reset clock', async () => (await api('POST', '/clock/reset'), await clockChanged(), say('Clock back to real time'))));
}
