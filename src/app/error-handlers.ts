/**
 * The last two Express handlers: FastAPI's 404 for a path nobody answers, and an unexpected fault
 * logged with its stack and answered as FastAPI does, leaking neither.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { DETAIL, HttpError } from '../errors/http-error.js';
import { sendError, sendReply, stringifyJson } from '../http/reply.js';

/** Neither the service nor the mock's own paths: FastAPI's 404. */
export function notFound(_req: Request, res: Response) {
  sendError(res, new HttpError(404, DETAIL.notFound));
}

/** An unexpected fault: logged with its stack, answered as FastAPI does, never leaking either. */
export function unexpectedError(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: number }).status;
    // 507: the disk refused a write (store/store-errors.ts), an answer of its own, not a fault.
    if (error instanceof HttpError && error.status >= 500 && !res.headersSent) return sendError(res, error);
    if (typeof status === 'number' && status >= 400 && status < 500 && !res.headersSent) {
      return sendError(res, new HttpError(status, (error as Error).message.split('\n')[0]));
    }
    logger.error({ err: error, method: req.method, url: req.originalUrl }, 'unhandled error');
    if (res.headersSent) return void res.destroy();
    sendReply(res, { status: 500, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Internal Server Error' }, stringifyJson);
  };
}
