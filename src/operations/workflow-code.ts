/**
 * The session workflow-code export (CONTRACT §2): the recorded actions as data and as a Python
 * program. This is the shape the recorded answers of the real service show; the full script
 * generator is issue #3.
 */
import { DETAIL, notFound } from '../errors/http-error.js';
import { pyRepr } from '../python/repr.js';
import type { Action } from '../store/types.js';
import { workspaceOf, type Handler } from './types.js';

/** The schema the recorded service infers for a scrape with instructions and no schema. */
export const INFERRED_RESPONSE_FORMAT = { type: 'object', properties: { result: { type: 'string' } } } as const;

export function exportActions(actions: Action[], inferResponseFormat: boolean): Action[] {
  return actions.map((a) => {
    const copy = structuredClone(a);
    if (inferResponseFormat && copy.type === 'scrape' && copy.instructions && (copy.response_format === null || copy.response_format === undefined)) {
      copy.response_format = structuredClone(INFERRED_RESPONSE_FORMAT);
    }
    return copy;
  });
}

function actionLine(a: Action): string {
  const args = Object.entries(a)
    .filter(([k, v]) => k !== 'type' && v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${pyRepr(v)}`);
  const method = /^[A-Za-z_][A-Za-z0-9_]*$/.test(a.type) ? a.type : null;
  return method ? `session.${method}(${args.join(', ')})` : `# unsupported action: ${pyRepr(a.type)}`;
}

export function pythonScript(actions: Action[], asWorkflow: boolean): string {
  const lines = ['session = client.sessions.create()', ...actions.map(actionLine)];
  if (!asWorkflow) return ['from service_sdk import Client', '', 'client = Client()', ...lines, ''].join('\n');
  return [
    'from service_sdk import Client',
    '',
    'client = Client()',
    '',
    '',
    'def run():',
    ...lines.map((l) => `    ${l}`),
    '',
    '',
    'if __name__ == "__main__":',
    '    run()',
    '',
  ].join('\n');
}

export const getSessionScript: Handler = async ({ path, query }, ctx) => {
  const session = workspaceOf(ctx).session(path.session_id);
  if (!session) throw notFound(DETAIL.sessionNotFound);
  const json_actions = exportActions(session.actions, query.infer_response_format);
  return { status: 200, json: { python_script: pythonScript(json_actions, query.as_workflow), json_actions } };
};
