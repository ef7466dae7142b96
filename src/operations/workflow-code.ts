/** getSessionScript: the session's workflow-code export, written by src/workflow/. */
import { DETAIL, notFound } from '../errors/http-error.js';
import { exportSession } from '../workflow/export-session.js';
import { workspaceOf, type Handler, type OperationDescriptor } from './types.js';

export const getSessionScript: Handler<'getSessionScript'> = async ({ path, query }, ctx) => {
  const session = workspaceOf(ctx).session(path.session_id);
  if (!session) throw notFound(DETAIL.sessionNotFound);
  const json = exportSession(session.actions, { asWorkflow: query.as_workflow, inferResponseFormat: query.infer_response_format });
  return { status: 200, json };
};

export const getSessionScriptDescriptor: OperationDescriptor<'getSessionScript'> = { prefer: { 404: DETAIL.sessionNotFound } };
