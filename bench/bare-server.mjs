/**
 * The ceiling: a bare node:http server answering the mock's own bytes, precomputed.
 * `node bench/bare-server.mjs PORT ROUTES.json`; ROUTES.json is
 * `[{ "method", "path", "status", "contentType", "body" (base64) }]`, matched on method and path
 * (the query is ignored). Request bodies are read and dropped, as any server must.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [port, routesFile] = process.argv.slice(2);
const routes = new Map();
for (const r of JSON.parse(readFileSync(routesFile, 'utf8'))) {
  const body = Buffer.from(r.body, 'base64');
  routes.set(`${r.method} ${r.path}`, { status: r.status, headers: { 'Content-Type': r.contentType, 'Content-Length': String(body.length) }, body });
}

createServer((req, res) => {
  const q = req.url.indexOf('?');
  const route = routes.get(`${req.method} ${q < 0 ? req.url : req.url.slice(0, q)}`);
  req.resume();
  req.on('end', () => {
    if (!route) return void res.writeHead(404, { 'Content-Length': '0' }).end();
    res.writeHead(route.status, route.headers);
    res.end(route.body);
  });
}).listen(Number(port), '127.0.0.1');
