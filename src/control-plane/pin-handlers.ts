/**
 * Control-plane handlers for pinned answers (issue 30, item 5): add, list and remove the fixed
 * answers of the operations a --spec document adds. A pin that could never answer — an unknown or
 * built-in operation, an undocumented status, a path parameter the operation lacks, a body its
 * schema refuses for that status, headers HTTP cannot send — is a 422 naming why, never stored.
 */
import { HttpError } from '../errors/http-error.js';
import { pinSpecProblem } from './pin-checks.js';
import type { ControlHandlerMap } from './handler-types.js';
import { json, noContent, unprocessable } from './runtime-handlers.js';

export const pinHandlers = {
  addPin({ body: b }, ctx) {
    const problem = pinSpecProblem(ctx.deps, b);
    if (problem) throw unprocessable(problem);
    return json(ctx, 201, ctx.deps.pins.add(b));
  },

  listPins: (_input, ctx) => json(ctx, 200, { items: ctx.deps.pins.list() }),

  clearPins(_input, ctx) {
    ctx.deps.pins.clear();
    return noContent(ctx);
  },

  deletePin({ path }, ctx) {
    if (!ctx.deps.pins.remove(String(path.pin_id))) throw new HttpError(404, `Pin ${String(path.pin_id)} not found`);
    return noContent(ctx);
  },
} satisfies Partial<ControlHandlerMap>;
