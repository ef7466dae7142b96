/**
 * From a session's recorded actions to what the export is made of: json_actions (the actions as
 * data, with inferred response formats) and the steps and models the script is written from.
 */
import type { Action } from '../model/records.js';
import { PYTHON_KEYWORDS, NameScope } from './identifiers.js';
import { inferModel, type InferredModel, type ModelClass } from './models.js';
import { ACTION_METHODS, FALLBACK_RESPONSE_FORMAT, RESULT_SAMPLE, SCRAPE, SDK } from './sdk.js';

export type Step =
  /** A call of `session.<method>(…)`; `model` types its response_format. */
  | { kind: 'call'; type: string; method: string; params: [string, unknown][]; model: InferredModel | null }
  /** An action the SDK cannot replay, carried as a comment. */
  | { kind: 'unsupported'; action: Action };

export interface ExportPlan {
  json_actions: Action[];
  steps: Step[];
  /** Every model class the steps use, in declaration order. */
  classes: ModelClass[];
}

/** Class names a model may not take: what the script imports, and Python's keywords. */
const TAKEN_CLASS_NAMES = [...PYTHON_KEYWORDS, 'Any', 'BaseModel', 'Field', SDK.clientClass];

/**
 * A scrape gets a response_format inferred when it has instructions and none of its own (CONTRACT
 * §2): from its recorded result when the scenario has one, else the real service's fallback.
 */
function needsInference(a: Action): boolean {
  return a.type === SCRAPE && typeof a.instructions === 'string' && a.instructions !== '' && (a.response_format === null || a.response_format === undefined);
}

export function planExport(actions: Action[], inferResponseFormat: boolean): ExportPlan {
  const classNames = new NameScope(TAKEN_CLASS_NAMES);
  const plan: ExportPlan = { json_actions: [], steps: [], classes: [] };
  for (const recorded of actions) {
    // Object.fromEntries keeps every key an own property, `__proto__` included.
    const action = structuredClone(Object.fromEntries(Object.entries(recorded).filter(([k]) => k !== RESULT_SAMPLE))) as Action;
    let model: InferredModel | null = null;
    if (inferResponseFormat && needsInference(recorded)) {
      const sample = recorded[RESULT_SAMPLE];
      if (sample !== null && sample !== undefined) {
        model = inferModel(sample, classNames);
        plan.classes.push(...model.classes);
        action.response_format = model.schema;
      } else {
        action.response_format = structuredClone(FALLBACK_RESPONSE_FORMAT);
      }
    }
    plan.json_actions.push(action);
    const method = ACTION_METHODS.get(action.type);
    if (method === undefined) {
      plan.steps.push({ kind: 'unsupported', action });
      continue;
    }
    // A null parameter is left out of the call (chosen): None is what the SDK assumes for a
    // parameter not given, and the call then reads as the action was recorded.
    const params = Object.entries(action).filter(([k, v]) => k !== 'type' && v !== null && v !== undefined);
    plan.steps.push({ kind: 'call', type: action.type, method, params, model });
  }
  return plan;
}
