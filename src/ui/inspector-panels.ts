/**
 * Browser code of the inspector page, part 4: the Faults, Pins and Coverage panels, the tabs, the
 * admin-token gate and the poll loop (start-up is `inspectorMain`). Sent to the browser as
 * source; see inspector-core.ts.
 */
import { api, attempt, byId, h, haveToken, loadClock, saveToken, say, showClock, st, tokenRequired } from './inspector-core.js';
import { fillSelect, pollJournal, renderRequests, setUpRequests } from './inspector-requests.js';
import { loadWorkspaces, setUpWorkspacesAndClock, table } from './inspector-workspaces.js';

/** The documented operations (from the coverage report) for the pickers. */
export async function loadOperations(): Promise<void> {
  const report = await api('GET', '/coverage');
  st().ops = report.operations;
  const choices = report.operations.map((o: any) => [o.operationId, `${o.operationId} (${o.method} ${o.path})`]);
  fillSelect(byId('f-op') as HTMLSelectElement, choices, 'any operation');
  fillSelect(byId('fault-op') as HTMLSelectElement, choices, 'every operation (*)');
  renderRequests();
}

export async function loadFaults(): Promise<void> {
  const { items } = await api('GET', '/faults');
  const rows = items.map((f: any) =>
    h('tr', null,
      h('th', { scope: 'row' }, f.id), h('td', null, f.operationId), h('td', null, f.principal ?? 'any'), h('td', null, f.status === 0 ? '0 (drop)' : f.status),
      h('td', { class: 'num' }, f.delay_ms), h('td', { class: 'num' }, f.times ?? '∞'), h('td', { class: 'num' }, f.probability), h('td', { class: 'num' }, f.hits),
      h('td', null, h('button', { type: 'button', onclick: () => attempt('Delete', async () => (await api('DELETE', `/faults/${encodeURIComponent(f.id)}`), say(`Fault ${f.id} deleted`), await loadFaults())) }, `Delete ${f.id}`))),
  );
  byId('fault-list').replaceChildren(table('Active faults', ['Fault', 'Operation', 'Principal', 'Status', 'Delay ms #', 'Times left #', 'Probability #', 'Fired #', ''], rows, 'No faults: the service answers normally.'));
}

export async function loadPins(): Promise<void> {
  const { items } = await api('GET', '/pins');
  const rows = items.map((p: any) =>
    h('tr', null,
      h('th', { scope: 'row' }, p.id), h('td', null, p.operationId), h('td', null, p.status),
      h('td', null, p.path_params ? Object.entries(p.path_params).map(([k, v]) => `${k}=${v}`).join(', ') : 'any'), h('td', null, p.principal ?? 'any'),
      h('td', null, 'body' in p ? h('code', null, JSON.stringify(p.body)) : 'generated'),
      h('td', { class: 'num' }, p.times ?? '∞'), h('td', { class: 'num' }, p.hits), h('td', null, p.source === 'scenario' ? 'scenario file' : 'run time'),
      h('td', null, h('button', { type: 'button', onclick: () => attempt('Delete', async () => (await api('DELETE', `/pins/${encodeURIComponent(p.id)}`), say(`Pin ${p.id} deleted`), await loadPins())) }, `Delete ${p.id}`))),
  );
  byId('pin-list').replaceChildren(table('Active pins', ['Pin', 'Operation', 'Status', 'Path parameters', 'Principal', 'Body', 'Times left #', 'Answered #', 'From', ''], rows, 'No pins: added operations answer generated bodies.'));
}

export function faultFromForm(): Record<string, unknown> {
  const v = (id: string) => (byId(id) as HTMLInputElement).value.trim();
  const spec: Record<string, unknown> = { operationId: v('fault-op') || '*', status: Number(v('fault-status')) };
  if (v('fault-delay')) spec.delay_ms = Number(v('fault-delay'));
  if (v('fault-times')) spec.times = Number(v('fault-times'));
  if (v('fault-probability')) spec.probability = Number(v('fault-probability'));
  if (v('fault-principal')) spec.principal = v('fault-principal');
  if (v('fault-body')) spec.body = JSON.parse(v('fault-body'));
  return spec;
}

export async function loadCoverage(): Promise<void> {
  const r = await api('GET', '/coverage');
  const statuses = [...new Set(r.operations.flatMap((o: any) => Object.keys(o.responses)))].sort() as string[];
  const rows = r.operations.map((o: any) =>
    h('tr', null,
      h('th', { scope: 'row' }, h('code', null, o.operationId), h('br'), h('small', null, `${o.method} ${o.path}`)),
      statuses.map((code) =>
        code in o.responses
          ? h('td', { class: o.responses[code] > 0 ? 'hit num' : 'miss num', 'data-op': o.operationId, 'data-status': code, title: `${o.operationId} ${code}: answered ${o.responses[code]} times` }, o.responses[code] > 0 ? o.responses[code] : '0')
          : h('td', { class: 'na' }, h('span', { class: 'sr-only' }, 'not documented'))),
    ),
  );
  byId('cov-share').textContent = `${r.exercised} of ${r.documented} documented responses exercised (${Math.round(r.share * 1000) / 10}%)`;
  byId('cov-matrix').replaceChildren(table('Answered responses by operation and documented status since the last reset', ['Operation', ...statuses], rows, 'No operations.'));
}

/** The JUnit link works without a token as a plain link; with one, it is fetched and saved from here. */
export async function downloadJunit(ev: Event): Promise<void> {
  if (!tokenRequired()) return;
  ev.preventDefault();
  const res = await fetch(byId('cov-junit').getAttribute('href')!, { headers: { Authorization: `Bearer ${sessionStorage.getItem('cbm-admin-token')}` } });
  const url = URL.createObjectURL(await res.blob());
  h('a', { href: url, download: 'coverage-junit.xml' }).click();
  URL.revokeObjectURL(url);
}

/** What the visible tab needs, loaded on opening it and refreshed every few polls. */
export function refreshTab(initial: boolean): Promise<void> {
  const tab = document.querySelector('[role=tab][aria-selected=true]')?.id;
  if (tab === 'tab-faults') return loadFaults();
  if (tab === 'tab-pins') return loadPins();
  if (tab === 'tab-coverage') return loadCoverage();
  // Workspaces reload on demand (their buttons would lose focus under a user's fingers).
  if (tab === 'tab-workspaces' && initial) return loadWorkspaces();
  return Promise.resolve();
}

export function selectTab(tab: HTMLElement): void {
  for (const t of document.querySelectorAll<HTMLElement>('[role=tab]')) {
    const on = t === tab;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    byId(t.getAttribute('aria-controls')!).hidden = !on;
  }
  void attempt('Load', () => refreshTab(true));
}

/** One poll a second while the page is visible: the journal's new entries, and every 5 s the clock and the open tab. */
export async function tick(): Promise<void> {
  const s = st();
  if (document.visibilityState === 'visible' && !byId('app').hidden) {
    await attempt('Polling the journal', pollJournal);
    if (++s.tick % 5 === 0) await attempt('Refresh', async () => (await loadClock(), await refreshTab(false)));
    else showClock();
  }
  setTimeout(tick, 1000);
}

export async function start(): Promise<void> {
  byId('gate').hidden = true;
  await loadClock(); // fails on a refused token, back to the gate
  byId('app').hidden = false;
  await loadOperations();
  say('Connected');
  if (!st().polling) (st().polling = true), void tick();
}

export function inspectorMain(): void {
  const tabs = [...document.querySelectorAll<HTMLElement>('[role=tab]')];
  tabs.forEach((t, i) => {
    t.addEventListener('click', () => selectTab(t));
    t.addEventListener('keydown', (ev) => {
      const to = ev.key === 'ArrowRight' ? tabs[(i + 1) % tabs.length] : ev.key === 'ArrowLeft' ? tabs[(i + tabs.length - 1) % tabs.length] : null;
      if (to) (to.focus(), selectTab(to));
    });
  });
  setUpRequests();
  setUpWorkspacesAndClock();
  byId('fault-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    void attempt('Add fault', async () => {
      const f = await api('POST', '/faults', faultFromForm());
      say(`Fault ${f.id} added: ${f.operationId} answers ${f.status}`);
      await loadFaults();
    });
  });
  byId('pin-clear').addEventListener('click', () => attempt('Remove pins', async () => (await api('DELETE', '/pins'), say('Pins added at run time removed'), await loadPins())));
  byId('cov-refresh').addEventListener('click', () => attempt('Refresh', loadCoverage));
  byId('cov-junit').addEventListener('click', (ev) => void attempt('JUnit', () => downloadJunit(ev)));
  byId('gate').addEventListener('submit', (ev) => {
    ev.preventDefault();
    saveToken((byId('token') as HTMLInputElement).value.trim());
    void attempt('Sign in', start);
  });
  // With --admin-token nothing is fetched until the token is given; it stays for this tab's session.
  if (tokenRequired() && !haveToken()) return void byId('gate').removeAttribute('hidden');
  void attempt('Start', start);
}
