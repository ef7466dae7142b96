/**
 * The mock's own paths (issue 32): everything it answers that is not the service's — the landing
 * page, the health check, the served document, Swagger UI and its assets, and the control plane
 * with its pages. Routing (app.ts, the union's precedence), the near-miss hint, the cross-site and
 * Host guards, the docs, inspector and landing pages all read them here, so a path is spelt once.
 * On the primitives layer because the union (document/) is its lowest reader.
 */

/** Each own path, by what it is. The control plane's operations are `${controlPlane}/…` (control-plane.openapi.json). */
export const OWN_PATHS = Object.freeze({
  /** The landing page for a browser (anything else asking for `/` gets the service's 404). */
  landing: '/',
  /** The health check probes poll: exempt from the Host allow-list, never journalled. */
  health: '/health',
  /** The served document (the union with --spec). */
  document: '/openapi.json',
  /** Swagger UI for the service; its assets are under `${docs}/`. */
  docs: '/docs',
  /** Swagger UI's OAuth2 redirect page. */
  docsOAuth2Redirect: '/docs/oauth2-redirect',
  /** The control plane: every path under it is the mock's. */
  controlPlane: '/__mock',
  /** Swagger UI for the control plane (its document is written into the page). */
  controlPlaneDocs: '/__mock/docs',
  /** The control plane's document, as getControlPlaneDocument answers it. */
  controlPlaneDocument: '/__mock/openapi.json',
  /** The inspector page. */
  inspector: '/__mock/ui',
  /** The coverage report (its JUnit form is linked from the inspector). */
  coverage: '/__mock/coverage',
});

/** Whether a request URL (path and query) addresses `path` itself: `path` or `path?…`. */
export function isUrlOf(url: string | undefined, path: string): boolean {
  return url !== undefined && url.startsWith(path) && (url.length === path.length || url[path.length] === '?');
}

/** Whether a request URL is `prefix` or anything under it (`/__mock`, `/__mock/…`, `/__mock?…`). */
export function isUrlUnder(url: string | undefined, prefix: string): boolean {
  return url !== undefined && url.startsWith(prefix) && (url.length === prefix.length || url[prefix.length] === '/' || url[prefix.length] === '?');
}

/** Whether a path (no query) is `prefix` or under it. */
const isPathUnder = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * A request path, or a supplied document's template, that is one of the mock's own: never the
 * service's. `/` is among them (the landing page) — see isMockOwnPath for the journal's view.
 */
export function isMockOwnRoute(path: string): boolean {
  return path === OWN_PATHS.landing || path === OWN_PATHS.health || path === OWN_PATHS.document || isPathUnder(path, OWN_PATHS.docs) || isPathUnder(path, OWN_PATHS.controlPlane);
}
