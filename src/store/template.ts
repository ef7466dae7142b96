/** The active scenario as the store holds it: loaded (or a one-line start-up error) and frozen. */
import { loadScenario, type LoadedScenario } from '../scenarios/scenario.js';
import { deepFreeze } from './json-text.js';
import { StartupError } from './startup-error.js';

export function loadScenarioOrStop(ref: string, now: number, cwd?: string): LoadedScenario {
  try {
    return loadScenario(ref, now, cwd);
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
