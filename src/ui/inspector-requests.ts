/**
 * Browser code of the inspector page, part 2: the Requests panel — the journal polled with an
 * `after=` cursor (each poll returns only what is new), filtered in the page, newest first, with
 * a row's details and "copy as curl". Sent to the browser as source; see inspector-core.ts.
 */
import { api, attempt, byId, h, say, st, statusClass } from './inspector-core.js';

/** Fetches what was journalled since the last poll; after a failed poll (a restarted mock), everything again. */
export async function pollJournal(): Promise<void> {
  const s = st();
  const reload = s.failed;
  if (reload) {
    s.entries = [];
    s.after = null;
  }
  let items: any[];
  try {
    items = (await api('GET', s.after ? `/requests?after=${s.after}` : '/requests?limit=1000')).items;
    s.failed = false;
  } catch (e) {
    s.failed = true;
    throw e;
  }
  if (!items.length && !reload) return;
  if (items.length) s.after = items[0].id;
  s.entries = items.concat(s.entries).slice(0, 1000); // as many as the journal keeps by default
  renderRequests();
}

export function matches(e: any): boolean {
  const op = (byId('f-op') as HTMLSelectElement).value;
  const principal = (byId('f-principal') as HTMLSelectElement).value;
  const cls = (byId('f-status') as HTMLSelectElement).value;
  const unmatched = (byId('f-unmatched') as HTMLInputElement).checked;
  if (op && e.operationId !== op) return false;
  if (principal && (e.principal ?? '') !== principal) return false;
  if (cls && statusClass(e.status) !== Number(cls)) return false;
  if (unmatched && e.operationId !== null) return false;
  return true;
}

/** Keeps a <select>'s options to the given values, the current choice kept. */
export function fillSelect(sel: HTMLSelectElement, values: [string, string][], anyLabel: string): void {
  const keep = sel.value;
  const want = [['', anyLabel], ...values];
  if (sel.options.length === want.length && want.every(([v], i) => sel.options[i].value === v)) return;
  sel.replaceChildren(...want.map(([v, label]) => h('option', { value: v }, label)));
  sel.value = want.some(([v]) => v === keep) ? keep : '';
}

export function renderRequests(): void {
  const s = st();
  const principals = [...new Set(s.entries.map((e: any) => e.principal).filter(Boolean))].sort() as string[];
  fillSelect(byId('f-principal') as HTMLSelectElement, principals.map((p) => [p, p]), 'any principal');
  const shown = s.entries.filter(matches);
  byId('req-count').textContent = `${shown.length} of ${s.entries.length} shown`;
  const rows = shown.map((e: any) =>
    h('tr', { tabindex: 0, 'data-id': e.id, 'aria-selected': String(e.id === s.selected), onclick: () => select(e.id), onkeydown: (ev: KeyboardEvent) => (ev.key === 'Enter' || ev.key === ' ') && (ev.preventDefault(), select(e.id)) },
      h('td', { class: 'nw' }, h('time', { datetime: e.time }, e.time.slice(11, 23).replace(/Z$/, ''))),
      h('td', null, e.method),
      h('td', { class: 'path' }, e.path),
      h('td', { class: 'nw' }, h('span', { class: `st s${statusClass(e.status)}` }, e.status === 0 ? 'dropped' : e.status)),
      h('td', null, e.operationId ?? h('span', { class: 'unmatched' }, 'unmatched', e.hint ? h('span', { class: 'hint' }, e.hint) : '')),
      h('td', { class: 'who' }, e.principal ?? '—'),
      h('td', { class: 'num nw' }, e.duration_ms.toFixed(1))),
  );
  byId('req-rows').replaceChildren(...rows);
  byId('req-empty').hidden = rows.length > 0;
}

export function select(id: string): void {
  const s = st();
  s.selected = id;
  for (const tr of byId('req-rows').querySelectorAll('tr')) tr.setAttribute('aria-selected', String(tr.dataset.id === id));
  const e = s.entries.find((x: any) => x.id === id);
  if (e) showDetail(e);
}

export function pretty(v: unknown): string {
  return JSON.stringify(v, null, 2);
}

export function showDetail(e: any): void {
  const curl = curlFor(e);
  const copy = h('button', { type: 'button', onclick: () => attempt('Copy', async () => (await navigator.clipboard.writeText(curl), say('curl command copied; set CBM_TOKEN to a token first'))) }, 'Copy as curl');
  byId('req-detail').replaceChildren(
    h('h3', null, `${e.method} ${e.path} → ${e.status === 0 ? 'dropped' : e.status}`),
    h('dl', null,
      h('dt', null, 'Time'), h('dd', null, e.time),
      h('dt', null, 'Operation'), h('dd', null, e.operationId ?? 'unmatched'),
      ...(e.operationId === null ? [h('dt', null, 'Hint'), h('dd', null, e.hint ?? 'none')] : []),
      h('dt', null, 'Principal'), h('dd', null, e.principal ?? 'none'),
      h('dt', null, 'Status'), h('dd', null, h('span', { class: `st s${statusClass(e.status)}` }, e.status === 0 ? 'dropped (no answer)' : e.status)),
      h('dt', null, 'Duration'), h('dd', null, `${e.duration_ms} ms`)),
    h('h4', null, 'Query'),
    Object.keys(e.query).length ? h('pre', null, pretty(e.query)) : h('p', null, 'none'),
    h('h4', null, 'Body (redacted: secret values and passwords as ***, uploads as name, size, checksum)'),
    e.body === null ? h('p', null, 'none') : h('pre', { id: 'req-body' }, pretty(e.body)),
    h('h4', null, 'As curl'),
    h('pre', { id: 'req-curl' }, curl),
    copy,
  );
}

/** Single-quoted for a POSIX shell. */
export function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The request as a curl command, with $CBM_TOKEN where the token went (the journal never has it). */
export function curlFor(e: any): string {
  const qs = new URLSearchParams(e.query).toString();
  const parts = ['curl', '-i', '-X', e.method, sq(`${location.origin}${e.path}${qs ? `?${qs}` : ''}`)];
  if (e.operationId !== 'createToken') parts.push('-H', '"Authorization: Bearer $CBM_TOKEN"');
  const body = e.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const values = Object.entries(body);
    const upload = values.some(([, v]) => v && typeof v === 'object' && 'filename' in (v as object));
    if (upload) for (const [k, v] of values) parts.push('-F', sq(v && typeof v === 'object' ? `${k}=@${(v as any).filename}` : `${k}=${v}`));
    else if (e.operationId === 'createToken') for (const [k, v] of values) parts.push('--data-urlencode', sq(`${k}=${v}`));
    else parts.push('-H', sq('Content-Type: application/json'), '--data', sq(JSON.stringify(body)));
  } else if (body !== null && body !== undefined) {
    parts.push('-H', sq('Content-Type: application/json'), '--data', sq(JSON.stringify(body)));
  }
  return parts.join(' ');
}

export function setUpRequests(): void {
  for (const id of ['f-op', 'f-principal', 'f-status', 'f-unmatched']) byId(id).addEventListener('change', renderRequests);
  byId('req-clear').addEventListener('click', () =>
    attempt('Clear', async () => {
      await api('DELETE', '/requests');
      const s = st();
      // Ids keep growing after a clear, so the cursor stays valid.
      s.entries = [];
      s.selected = null;
      byId('req-detail').replaceChildren(h('p', null, 'Select a request to see its details.'));
      renderRequests();
      say('Journal cleared');
    }),
  );
}
