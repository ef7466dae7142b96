/**
 * GET /__mock/ui: the inspector page — one self-contained HTML document (style and script inline,
 * nothing else fetched) built on the control plane's public JSON API. Served before the admin-token
 * check, as /__mock/docs is: a browser navigation sends no token; the page asks for it and sends it
 * on every call. The script is the inspector-*.ts functions' own source, so no static asset has to
 * be copied next to the compiled code (package files, Dockerfile and tarball test stay as they are).
 */
import { Router, type Request, type Response } from 'express';
import { sendReply, stringifyJson } from '../http/reply.js';
import { escapeMarkup } from '../primitives/markup.js';
import { OWN_PATHS } from '../primitives/own-paths.js';
import * as core from './inspector-core.js';
import * as panels from './inspector-panels.js';
import * as requests from './inspector-requests.js';
import * as workspaces from './inspector-workspaces.js';

const STYLE = `
:root{color-scheme:light;--line:#d0d5dd;--muted:#555;--ok:#0a6b2d;--redir:#1a4fa0;--client:#8a4b00;--server:#b00020;--focus:#1a4fa0}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2129;background:#fff}
header{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:baseline;padding:.5rem 1rem;border-bottom:1px solid var(--line);background:#f6f7f9}
h1{font-size:1.15rem;margin:0}h2{font-size:1.05rem;margin:.25rem 0 .5rem}h3{font-size:1rem;margin:.75rem 0 .25rem}h4{font-size:.9rem;margin:.75rem 0 .25rem}
#clock-badge{color:var(--muted);font-variant-numeric:tabular-nums}#status{margin:0 0 0 auto;min-height:1.2em}#status.error{color:var(--server);font-weight:600}
main,#gate{padding:.5rem 1rem 2rem}nav{display:flex;flex-wrap:wrap;gap:.25rem;border-bottom:1px solid var(--line);margin-bottom:.75rem}
[role=tab]{font:inherit;padding:.4rem .9rem;border:1px solid var(--line);border-bottom:none;background:#f6f7f9;border-radius:4px 4px 0 0;cursor:pointer}
[role=tab][aria-selected=true]{background:#fff;font-weight:600;position:relative;top:1px}
:focus-visible{outline:2px solid var(--focus);outline-offset:1px}
button,input,select,textarea{font:inherit;max-width:100%}.bar label{max-width:100%}button{cursor:pointer;padding:.2rem .6rem}
.bar{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin-bottom:.5rem}
.split{display:grid;grid-template-columns:minmax(0,1fr) minmax(16rem,23rem);gap:1rem;align-items:start}
@media (max-width:900px){.split{grid-template-columns:1fr}}
.scroll{overflow:auto;max-width:100%}#req-scroll{max-height:calc(100vh - 12rem)}
table{border-collapse:collapse;min-width:min(100%,40rem)}.full{width:100%}#req-table{font-size:13px}caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{text-align:left;padding:.2rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}thead th{position:sticky;top:0;background:#f6f7f9}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}.path{overflow-wrap:anywhere;min-width:8rem}.nw{white-space:nowrap}.who{white-space:nowrap}#f-op{max-width:22rem}.hint{display:block;font-size:12px}
#req-rows tr{cursor:pointer}#req-rows tr:hover{background:#f0f4fb}#req-rows tr[aria-selected=true]{background:#e3ecfa}
.st{font-weight:600}.s2{color:var(--ok)}.s3{color:var(--redir)}.s4{color:var(--client)}.s5,.s0{color:var(--server)}.unmatched{color:var(--client)}
aside{border:1px solid var(--line);border-radius:4px;padding:.5rem .75rem;background:#fbfbfc}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .75rem;margin:0}dt{color:var(--muted)}dd{margin:0;word-break:break-all}
pre{background:#f3f4f6;padding:.5rem;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere;margin:.25rem 0}
tr.expired{background:#fff4f4}tr[aria-current=true]{background:#e3ecfa}th small{font-weight:normal}td.hit{font-weight:600}form.grid select,form.grid input{width:100%}tr.expired strong{color:var(--server)}
td.hit{background:#dff3e4}td.miss{background:#fde8e8;color:#8a1c1c}td.na{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#f1f2f4 4px,#f1f2f4 8px)}
form.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:.5rem 1rem;align-items:end;max-width:70rem}
form.grid label{display:flex;flex-direction:column;gap:.1rem}form.grid .wide{grid-column:1/-1}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

/** The browser code: every function the inspector-*.ts files export, then the start-up call. */
function script(): string {
  const fns = [core, requests, workspaces, panels].flatMap((m) => Object.values(m).filter((v): v is (...a: unknown[]) => unknown => typeof v === 'function'));
  // By name, not a literal: a bundler that renames functions renames this one consistently too;
  // __name is esbuild's keepNames helper, should a bundle of this file carry its calls.
  const source = `(() => {\n'use strict';\nconst __name = (f) => f;\n${fns.map((f) => f.toString()).join('\n')}\n${panels.inspectorMain.name}();\n})();`;
  // Inline in <script>: a "</script" in the source would end the element early.
  if (/<\/script/i.test(source)) throw new Error('inspector script contains </script');
  return source;
}

function inspectorPage(title: string, adminTokenRequired: boolean): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Inspector — ${escapeMarkup(title)}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body data-admin-token="${adminTokenRequired ? 'required' : 'none'}" data-control-plane="${OWN_PATHS.controlPlane}">
<header>
<h1>cloud-browser-mock inspector</h1>
<span id="clock-badge"></span>
<p id="status" role="status" aria-live="polite"></p>
</header>
<form id="gate" hidden>
<h2>Admin token</h2>
<p>This mock runs with <code>--admin-token</code>. Enter it to use the control plane; it is kept in this tab's session storage only.</p>
<p><label for="token">Admin token</label> <input id="token" type="password" autocomplete="off" required> <button type="submit">Open the inspector</button></p>
<p id="gate-msg" role="alert"></p>
</form>
<main id="app" hidden>
<nav role="tablist" aria-label="Panels">
<button type="button" role="tab" id="tab-requests" aria-controls="panel-requests" aria-selected="true">Requests</button>
<button type="button" role="tab" id="tab-workspaces" aria-controls="panel-workspaces" aria-selected="false" tabindex="-1">Workspaces</button>
<button type="button" role="tab" id="tab-clock" aria-controls="panel-clock" aria-selected="false" tabindex="-1">Clock</button>
<button type="button" role="tab" id="tab-faults" aria-controls="panel-faults" aria-selected="false" tabindex="-1">Faults</button>
<button type="button" role="tab" id="tab-pins" aria-controls="panel-pins" aria-selected="false" tabindex="-1">Pins</button>
<button type="button" role="tab" id="tab-coverage" aria-controls="panel-coverage" aria-selected="false" tabindex="-1">Coverage</button>
</nav>
<section id="panel-requests" role="tabpanel" aria-labelledby="tab-requests">
<h2>Requests <small>(newest first, live)</small></h2>
<div class="bar" role="group" aria-label="Filters">
<label>Operation <select id="f-op"><option value="">any operation</option></select></label>
<label>Principal <select id="f-principal"><option value="">any principal</option></select></label>
<label>Status <select id="f-status"><option value="">any status</option><option value="2">2xx</option><option value="3">3xx</option><option value="4">4xx</option><option value="5">5xx</option><option value="0">dropped</option></select></label>
<label><input type="checkbox" id="f-unmatched"> Unmatched only</label>
<button type="button" id="req-clear">Clear journal</button>
<span id="req-count"></span>
</div>
<div class="split">
<div class="scroll" id="req-scroll"><table id="req-table" class="full">
<caption class="sr-only">Journalled requests; choose a row for its details</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Operation</th><th scope="col">Principal</th><th scope="col" class="num">ms</th></tr></thead>
<tbody id="req-rows"></tbody>
</table><p id="req-empty">No requests yet. Point your client at this mock; they appear here as they happen.</p></div>
<aside id="req-detail" aria-label="Request details" aria-live="polite"><p>Select a request to see its details.</p></aside>
</div>
</section>
<section id="panel-workspaces" role="tabpanel" aria-labelledby="tab-workspaces" hidden>
<h2>Workspaces</h2>
<div class="bar"><button type="button" id="ws-refresh">Refresh</button><button type="button" id="ws-reset-all">Reset all (also clears journal, faults, coverage, run-time pins)</button></div>
<div id="ws-list"></div>
<div id="ws-detail"></div>
</section>
<section id="panel-clock" role="tabpanel" aria-labelledby="tab-clock" hidden>
<h2>Clock</h2>
<dl><dt>Mock time</dt><dd id="clock-now"></dd><dt>Offset</dt><dd id="clock-offset"></dd><dt>Frozen</dt><dd id="clock-frozen"></dd></dl>
<form id="clock-advance" class="bar"><label>Advance by <input id="clock-advance-by" placeholder="+8 days, 2h, P1D, 3600" required></label><button type="submit">Advance</button>
<button type="button" data-advance="+1 hour">+1 hour</button><button type="button" data-advance="+1 day">+1 day</button><button type="button" data-advance="+8 days">+8 days</button></form>
<form id="clock-set" class="bar"><label>Set to <input id="clock-set-at" placeholder="2030-01-01T00:00:00Z" required></label><button type="submit">Set (freezes the clock)</button></form>
<p><button type="button" id="clock-reset">Reset to real time</button></p>
</section>
<section id="panel-faults" role="tabpanel" aria-labelledby="tab-faults" hidden>
<h2>Faults</h2>
<div id="fault-list"></div>
<h3>Add a fault</h3>
<form id="fault-form" class="grid">
<label>Operation <select id="fault-op"><option value="">every operation (*)</option></select></label>
<label>Status (0 drops the connection) <input id="fault-status" type="number" min="0" max="599" value="503" required></label>
<label>Delay (ms) <input id="fault-delay" type="number" min="0" placeholder="0"></label>
<label>Times (empty: until deleted) <input id="fault-times" type="number" min="1"></label>
<label>Probability <input id="fault-probability" type="number" min="0" max="1" step="0.05" placeholder="1"></label>
<label>Principal (empty: any) <input id="fault-principal"></label>
<label class="wide">Body (JSON; empty: {"detail": reason}) <textarea id="fault-body" rows="2"></textarea></label>
<p><button type="submit">Add fault</button></p>
</form>
</section>
<section id="panel-pins" role="tabpanel" aria-labelledby="tab-pins" hidden>
<h2>Pinned answers</h2>
<p>Fixed answers for the operations a <code>--spec</code> document adds, tried top to bottom: those added at run time (gone after a reset), then the scenario file's (back after a reset).</p>
<div class="bar"><button type="button" id="pin-clear">Remove the pins added at run time</button></div>
<div id="pin-list"></div>
</section>
<section id="panel-coverage" role="tabpanel" aria-labelledby="tab-coverage" hidden>
<h2>Coverage</h2>
<div class="bar"><strong id="cov-share"></strong><button type="button" id="cov-refresh">Refresh</button><a id="cov-junit" href="${OWN_PATHS.coverage}?format=junit">JUnit XML</a></div>
<div id="cov-matrix"></div>
</section>
</main>
<script>
${script()}
</script>
</body>
</html>
`;
}

/** Routes GET /__mock/ui (and its trailing-slash form), mounted before the control plane's token check. */
export function inspectorRouter(title: string, adminTokenRequired: boolean): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const page = Buffer.from(inspectorPage(title, adminTokenRequired));
  const reply = Object.freeze({ status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' }, body: page });
  router.get(OWN_PATHS.inspector, (_req: Request, res: Response) => sendReply(res, reply, stringifyJson));
  router.get(`${OWN_PATHS.inspector}/`, (_req: Request, res: Response) => res.redirect(307, OWN_PATHS.inspector));
  return router;
}
