/**
 * GET /docs: Swagger UI for the served contract, from the swagger-ui-dist package (no CDN, so it
 * works offline and fetches nothing from outside); GET /__mock/docs: the same for the control plane. The page is FastAPI's own /docs page with the
 * assets served from here; the OAuth2 password flow in its Authorize dialog posts to the
 * document's relative tokenUrl ("token"), which Swagger UI resolves against `servers`, i.e. this
 * instance.
 */
import { Router, type Request, type Response } from 'express';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { escapeMarkup } from '../primitives/markup.js';
import { sendReply, stringifyJson, type Reply } from '../http/reply.js';
import { OWN_PATHS } from '../primitives/own-paths.js';

const { docs, docsOAuth2Redirect, controlPlaneDocs } = OWN_PATHS;

/** Where swagger-ui-dist's files are (it has no `exports` map, so its package.json resolves). */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The package's files the page needs; its index.html and initializer (the Petstore) are not served. */
const ASSETS = [
  'swagger-ui.css',
  'swagger-ui.css.map',
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.map',
  'swagger-ui-standalone-preset.js',
  'swagger-ui-standalone-preset.js.map',
  'favicon-16x16.png',
  'favicon-32x32.png',
  'oauth2-redirect.js',
];

/**
 * Where the page finds its document: the service's is fetched from /openapi.json; the control
 * plane's is written into the page, because with --admin-token a fetch of /__mock/openapi.json
 * would need the token a browser navigation never sends (the calls made from the page do send it,
 * once given in Authorize).
 */
type DocumentSource = { url: string } | { spec: unknown };

/** JSON inside a <script>: `<` escaped so no `</script>` in a description can end the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function swaggerUiPage(title: string, source: DocumentSource = { url: OWN_PATHS.document }): string {
  const where = 'url' in source ? `url: '${source.url}',` : `spec: ${scriptJson(source.spec)},`;
  // As FastAPI's get_swagger_ui_html, plus validatorUrl: null so the page never calls the public
  // validator service.
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeMarkup(title)} - Swagger UI</title>
<link type="text/css" rel="stylesheet" href="${docs}/swagger-ui.css">
<link rel="icon" type="image/png" href="${docs}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${docs}/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({
  ${where}
  dom_id: '#swagger-ui',
  layout: 'BaseLayout',
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  validatorUrl: null,
  oauth2RedirectUrl: window.location.origin + '${docsOAuth2Redirect}',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
</script>
</body>
</html>
`;
}

const htmlReply = (page: string): Reply => Object.freeze({ status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: Buffer.from(page, 'utf8') });

/**
 * GET /__mock/docs: Swagger UI for the control plane, with its assets from /docs. Mounted before
 * the control plane's admin-token check: the page is only the description, and every call it
 * makes goes through that check like any other.
 */
export function controlPlaneDocsRouter(title: string, document: unknown): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const page = htmlReply(swaggerUiPage(title, { spec: document }));
  router.get(controlPlaneDocs, (_req: Request, res: Response) => sendReply(res, page, stringifyJson));
  router.get(`${controlPlaneDocs}/`, (_req: Request, res: Response) => res.redirect(307, controlPlaneDocs));
  return router;
}

/** Routes for /docs, its assets and the OAuth2 redirect page. */
export function docsRouter(title: string): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const page = htmlReply(swaggerUiPage(title));
  router.get(docs, (_req: Request, res: Response) => sendReply(res, page, stringifyJson));
  // Starlette redirects a trailing slash to the route without it; so does this page.
  router.get(`${docs}/`, (_req: Request, res: Response) => res.redirect(307, docs));
  router.get(docsOAuth2Redirect, (_req: Request, res: Response) => {
    res.sendFile('oauth2-redirect.html', { root: SWAGGER_UI_DIR });
  });
  for (const name of ASSETS) {
    router.get(`${docs}/${name}`, (_req: Request, res: Response) => {
      res.sendFile(name, { root: SWAGGER_UI_DIR, maxAge: '1h' });
    });
  }
  return router;
}
