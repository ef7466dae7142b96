/** The active scenario as the store holds it: loaded (or a one-line start-up error) and frozen. */
import { loadScenario, type LoadedScenario, type ScenarioSchema } from '../scenarios/scenario.js';
import { deepFreeze } from './json-text.js';
import { StartupError } from './startup-error.js';
import type { WorkspaceData } from './types.js';

export function loadScenarioOrStop(ref: string, now: number, cwd: string | undefined, schema: ScenarioSchema): LoadedScenario {
  try {
    return loadScenario(ref, now, cwd, schema);
  } catch (e) {
    // The cause tells the CLI the scenario it was given is at fault (exit 2, not 1).
    throw new StartupError((e as Error).message, { cause: e });
  }
}

/** Freezes the template's records (not its lists), which workspaces then share. */
export function freezeTemplate(scenario: LoadedScenario): LoadedScenario {
  const t = scenario.template;
  for (const s of t.sessions) {
    deepFreeze(s.actions);
    for (const f of s.files) deepFreeze(f);
  }
  for (const m of t.mailboxes) deepFreeze(m);
  for (const s of t.secrets) deepFreeze(s);
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
