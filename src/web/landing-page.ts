/**
 * GET / for a person: a browser that asks for HTML gets a small page of links (the service's
 * Swagger UI, its document, the control plane's Swagger UI). Everything else — curl's `*\/*`, a
 * JSON client, no Accept at all — still gets FastAPI's 404, so clients see the service unchanged.
 */
import type { NextFunction, Request, Response } from 'express';
import { escapeMarkup } from '../primitives/markup.js';
import { sendReply, stringifyJson } from '../http/reply.js';
import { OWN_PATHS } from '../primitives/own-paths.js';

/** The page's links, each an own path with what a person finds there (HTML, written as is). */
const LINKS: ReadonlyArray<[path: string, what: string]> = [
  [OWN_PATHS.docs, 'Swagger UI for the API: authorize as <code>dev@example.com</code> / <code>password</code>, then try any operation'],
  [OWN_PATHS.document, 'the OpenAPI document'],
  [OWN_PATHS.inspector, 'the inspector: live requests, workspaces, the clock, faults and coverage'],
  [OWN_PATHS.controlPlaneDocs, 'Swagger UI for the control plane (reset, scenarios, the request journal, the clock, faults, coverage)'],
];

function landingPage(title: string, version: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>cloud-browser-mock — ${escapeMarkup(title)}</title>
<link rel="icon" type="image/png" href="${OWN_PATHS.docs}/favicon-32x32.png" sizes="32x32">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{font-size:.95em}</style>
</head>
<body>
<h1>cloud-browser-mock</h1>
<p>A local mock of <strong>${escapeMarkup(title)}</strong> (API ${escapeMarkup(version)}). Set your client's base URL to this address.</p>
<ul>
${LINKS.map(([path, what]) => `<li><a href="${path}">${path}</a> — ${what}</li>\n`).join('')}</ul>
</body>
</html>
`;
}

/** The landing page for browsers; passes every other request on (to the 404). */
export function landingPageRoute(title: string, version: string) {
  const page = Object.freeze({ status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: Buffer.from(landingPage(title, version), 'utf8') });
  return (req: Request, res: Response, next: NextFunction) => {
    // Browsers list text/html explicitly; `*/*` alone (curl, fetch) prefers JSON, listed first.
    if (req.accepts(['application/json', 'text/html']) !== 'text/html') return next();
    // One of the mock's own pages: not the service, so neither journalled nor logged.
    res.locals.mockOwnPage = true;
    // Vary added to, not replacing, what CORS may have set.
    res.vary('Accept');
    sendReply(res, page, stringifyJson);
  };
}
