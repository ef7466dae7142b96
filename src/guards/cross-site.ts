/**
 * Cross-site refusal for the control plane (issue 16). A web page on any origin can send "simple"
 * requests — a form post, `fetch(u, {method: 'POST', mode: 'no-cors'})` with a text/plain body or
 * none — which need no CORS preflight, so requiring JSON bodies would not keep pages out. What a
 * browser does say is where a request comes from: `Sec-Fetch-Site` (every current browser) and
 * `Origin` (every cross-origin POST). The check follows Go's net/http CrossOriginProtection,
 * applied to every method, since the control plane is for tools, never for other pages:
 * `Sec-Fetch-Site` other than same-origin or none is refused; without it, an `Origin` that is not
 * this very origin is refused; with neither, the request did not come from a browser page.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from '../errors/http-error.js';
import { isUrlUnder, OWN_PATHS } from '../primitives/own-paths.js';

/** Whether a request URL is the control plane's (`/__mock`, `/__mock/…`, `/__mock?…`). */
export function isControlPlanePath(url: string | undefined): boolean {
  return isUrlUnder(url, OWN_PATHS.controlPlane);
}

/** Why a request is cross-site, or null when it is not. */
function crossSiteReason(headers: IncomingHttpHeaders): string | null {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none' ? null : `Sec-Fetch-Site: ${site}`;
  const origin = headers.origin;
  if (origin === undefined) return null;
  let sameOrigin = false;
  try {
    const url = new URL(origin);
    sameOrigin = url.protocol === 'http:' && url.host === (headers.host ?? '').toLowerCase();
  } catch {
    // "null" (a sandboxed frame, a file: page) or garbage: not this origin.
  }
  return sameOrigin ? null : `Origin: ${origin}`;
}

/** The control plane's guards stage (control-plane/dispatch.ts): the 403 for a cross-site request, or null. */
export function crossSiteRefusal(headers: IncomingHttpHeaders): HttpError | null {
  const reason = crossSiteReason(headers);
  return reason === null ? null : new HttpError(403, `Cross-site request refused (${reason}): ${OWN_PATHS.controlPlane} answers the developer's tools and its own pages, never a page on another site`);
}
