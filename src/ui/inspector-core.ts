/**
 * Browser code of the inspector page (/__mock/ui), part 1: state, calls to the control plane,
 * DOM helpers and formatting. These functions are not run by Node: the page module sends their
 * source (Function.prototype.toString) inside one inline <script>, so they are type-checked like
 * the rest of the mock but must use nothing outside their own files' functions and the browser.
 */

/**
 * The page's state, one object on `globalThis`. Only exported functions travel to the page, so
 * these files hold no module-level values and every function is exported.
 */
export function st(): any {
  const g = globalThis as any;
  return (g.cbmInspector ??= { entries: [], after: null, selected: null, ops: [], clock: null, clockAt: 0, principal: null, session: null, offset: 0, tick: 0, failed: false });
}

export function tokenRequired(): boolean {
  return document.body.dataset.adminToken === 'required';
}

/** One control-plane call: JSON in and out, the admin token on every call when there is one. */
export async function api(method: string, path: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = {};
  const token = sessionStorage.getItem('cbm-admin-token');
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  // Where the control plane is: the page says (ui/inspector-page.ts writes it from primitives/own-paths.ts).
  const res = await fetch(`${document.body.dataset.controlPlane}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 401 && tokenRequired()) {
    sessionStorage.removeItem('cbm-admin-token');
    showGate('The mock refused that token.');
    throw new Error('admin token refused');
  }
  if (!res.ok) {
    const text = await res.text();
    let msg = text;
    try {
      const d = JSON.parse(text).detail;
      msg = typeof d === 'string' ? d : (d as any[]).map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; ');
    } catch {
      // not JSON: the text as it came
    }
    throw new Error(`${res.status}: ${msg}`);
  }
  return res.status === 204 ? null : res.json();
}

/** Element builder; text goes in as text nodes, never as HTML, so nothing journalled can inject markup. */
export function h(tag: string, attrs: Record<string, any> | null = null, ...children: any[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

export function byId(id: string): HTMLElement {
  return document.getElementById(id)!;
}

/** Says what happened in the live region (errors too), for eyes and screen readers. */
export function say(msg: string, error = false): void {
  const el = byId('status');
  el.textContent = msg;
  el.className = error ? 'error' : '';
}

/** Runs an action from a button or form, reporting its failure instead of throwing. */
export async function attempt(what: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    say(`${what} failed: ${(e as Error).message}`, true);
  }
}

export function showGate(msg: string): void {
  byId('app').hidden = true;
  byId('gate').hidden = false;
  byId('gate-msg').textContent = msg;
  (byId('token') as HTMLInputElement).focus();
}

export function saveToken(token: string): void {
  sessionStorage.setItem('cbm-admin-token', token);
}

export function haveToken(): boolean {
  return !!sessionStorage.getItem('cbm-admin-token');
}

/** "6d 23h", "2h 5m", "45s": the two largest units of a span. */
export function span(ms: number): string {
  let s = Math.round(Math.abs(ms) / 1000);
  const parts: string[] = [];
  for (const [n, u] of [[86400, 'd'], [3600, 'h'], [60, 'm'], [1, 's']] as [number, string][]) {
    if (s >= n || (u === 's' && !parts.length)) parts.push(`${Math.floor(s / n)}${u}`);
    s %= n;
  }
  return parts.slice(0, 2).join(' ');
}

export function bytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;
}

/** The status class a journal status belongs to: 2, 3, 4, 5, or 0 for a dropped connection. */
export function statusClass(status: number): number {
  return Math.floor(status / 100);
}

/** The mock's clock as the page last learned it, moved on by real time unless frozen. */
export function mockNow(): number {
  const s = st();
  if (!s.clock) return Date.now();
  const at = Date.parse(s.clock.now);
  return s.clock.frozen ? at : at + (Date.now() - s.clockAt);
}

export async function loadClock(): Promise<void> {
  const s = st();
  s.clock = await api('GET', '/clock');
  s.clockAt = Date.now();
  showClock();
}

export function showClock(): void {
  const s = st();
  if (!s.clock) return;
  const now = new Date(mockNow()).toISOString().replace(/\.\d+Z$/, 'Z');
  const off = s.clock.offset_seconds;
  const offText = Math.abs(off) < 1 ? 'real time' : `${off > 0 ? '+' : '−'}${span(off * 1000)}`;
  byId('clock-badge').textContent = `mock clock ${now} (${offText}${s.clock.frozen ? ', frozen' : ''})`;
  byId('clock-now').textContent = now;
  byId('clock-offset').textContent = `${off} s (${offText})`;
  byId('clock-frozen').textContent = s.clock.frozen ? 'yes' : 'no';
}
