/** The active scenario as the store holds it: loaded (or a one-line start-up error) and frozen. */
import { loadScenario, type LoadedScenario, type ScenarioSchema } from '../scenarios/scenario.js';
import { deepFreeze } from './json-text.js';
import { StartupError } from './store-errors.js';
import type { StoredSession, WorkspaceData } from '../model/records.js';

export async function loadScenarioOrStop(ref: string, now: number, cwd: string | undefined, schema: ScenarioSchema): Promise<LoadedScenario> {
  try {
    return await loadScenario(ref, now, cwd, { schema });
  } catch (e) {
    // The cause tells the CLI the scenario it was given is at fault (exit 2, not 1).
    throw new StartupError((e as Error).message, { cause: e });
  }
}

/** Freezes a session's records: its actions and each file (not the file list, which grows). */
export function freezeSession(session: StoredSession): void {
  deepFreeze(session.actions);
  for (const f of session.files) deepFreeze(f);
}

/** Freezes a document's records (not its lists), so that workspaces can share them. */
export function freezeRecords(data: Pick<WorkspaceData, 'sessions' | 'mailboxes' | 'secrets'>): void {
  for (const s of data.sessions) freezeSession(s);
  for (const m of data.mailboxes) deepFreeze(m);
  for (const s of data.secrets) deepFreeze(s);
}

/** The scenario with its template's records frozen, which workspaces then share. */
export function freezeTemplate(scenario: LoadedScenario): LoadedScenario {
  freezeRecords(scenario.template);
  return scenario;
}

/**
 * A document of the principal's own made from a template (the scenario's, or the shared one a
 * view reads): the records are frozen values, so they are shared and only the lists are copied.
 */
export function documentFrom(t: Omit<WorkspaceData, 'principal'>, principal: string): WorkspaceData {
  return {
    format: t.format,
    next_id: t.next_id,
    sessions: t.sessions.map((s) => ({ id: s.id, actions: s.actions, files: [...s.files] })),
    mailboxes: [...t.mailboxes],
    secrets: [...t.secrets],
    principal,
  };
}
