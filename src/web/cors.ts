/**
 * --cors ORIGINS: lets a web app under development call the mock from a browser. Off by default,
 * because the service (FastAPI without CORSMiddleware) answers every OPTIONS with 405 and the mock
 * copies that. When on, it behaves like Starlette's CORSMiddleware: only a real preflight (OPTIONS
 * with Origin and Access-Control-Request-Method) from an allowed origin is answered here; any other
 * OPTIONS still reaches the router and its 405.
 */
import cors from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Response headers a browser client needs to read (the CORS-safelisted ones need no listing). */
export const EXPOSED_HEADERS = ['Content-Disposition', 'Content-Length', 'WWW-Authenticate', 'Allow', 'Location'];

/** Checks and normalises `--cors` text: `*`, or origins such as `http://localhost:5173`. */
export function parseCorsOrigins(text: string): string[] | null {
  const items = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) return null;
  const origins: string[] = [];
  for (const item of items) {
    if (item === '*') {
      origins.push('*');
      continue;
    }
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      return null;
    }
    // An origin is scheme://host[:port] and nothing more (a trailing slash is forgiven).
    if (!/^https?:$/.test(url.protocol) || url.origin !== item.replace(/\/$/, '')) return null;
    origins.push(url.origin);
  }
  return origins;
}

export function corsMiddleware(origins: string[]): RequestHandler {
  const any = origins.includes('*');
  const allowed = (origin: string) => any || origins.includes(origin);
  const handler = cors({
    origin: any ? '*' : origins,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (!origin || !allowed(origin)) return next();
    if (req.method === 'OPTIONS' && !req.headers['access-control-request-method']) return next();
    handler(req, res, next);
  };
}
