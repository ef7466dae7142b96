/**
 * The python_script of the export, written from an export plan. Every value from the actions is
 * a Python literal made by `pyRepr` (Python's own `repr()`), so no quote, backslash, newline or
 * `"""` in a URL, selector or instruction can end a string or start a statement.
 */
import { pyRepr, pyStrRepr } from '../python/repr.js';
import { isPlainIdentifier } from './identifiers.js';
import { classSource, usesAny, usesField, type ModelClass } from './models.js';
import type { ExportPlan, Step } from './export-actions.js';
import { SCRAPE, SDK, UNSUPPORTED_PREFIX } from './sdk.js';

const RESULT_VAR = 'result';

function callArguments(step: Extract<Step, { kind: 'call' }>): string {
  const named: string[] = [];
  const odd: string[] = [];
  for (const [key, value] of step.params) {
    const literal = key === 'response_format' && step.model ? step.model.root : pyRepr(value);
    // A parameter whose name is not a plain identifier (or is a keyword) still reaches the SDK
    // under its own name, through `**{…}`.
    if (isPlainIdentifier(key)) named.push(`${key}=${literal}`);
    else odd.push(`${pyStrRepr(key)}: ${literal}`);
  }
  if (odd.length) named.push(`**{${odd.join(', ')}}`);
  return named.join(', ');
}

/**
 * Whether `run()` returns the last scrape's result, which issue #3 asks for. The one recorded
 * workflow (ex-076) ends in a scrape whose response_format is a dict and its `run()` returns
 * nothing, so a scrape typed by a dict (or untyped) is not returned. A scrape typed by an inferred
 * model is a case the recording does not show; there the script returns the typed result, which
 * is what a caller of `run()` wants, and which no recorded answer contradicts.
 */
function returnedStep(steps: Step[]): Step | null {
  const scrapes = steps.filter((s) => s.kind === 'call' && s.type === SCRAPE);
  const last = scrapes.at(-1);
  return last?.kind === 'call' && last.model ? last : null;
}

function replayLines(steps: Step[], returned: Step | null): string[] {
  return steps.map((step) => {
    // pyRepr escapes every line break, so the whole action stays on its comment line.
    if (step.kind === 'unsupported') return `${UNSUPPORTED_PREFIX}${pyRepr(step.action)}`;
    const call = `${SDK.sessionVar}.${step.method}(${callArguments(step)})`;
    return step === returned ? `${RESULT_VAR} = ${call}` : call;
  });
}

/** The imports the model classes need (Pydantic, and `Any` when a type is unknown). */
function modelImports(classes: ModelClass[]): string[] {
  if (!classes.length) return [];
  const typing = usesAny(classes) ? ['from typing import Any', ''] : [];
  return [...typing, `from pydantic import BaseModel${usesField(classes) ? ', Field' : ''}`];
}

/** The classes, each with two blank lines before it, and two after the last (PEP 8). */
function classBlocks(classes: ModelClass[]): string[] {
  if (!classes.length) return [];
  return [...classes.flatMap((c) => ['', '', ...classSource(c)]), '', ''];
}

/**
 * `as_workflow=true`: a standalone program, laid out exactly as the recorded one when no model is
 * declared (no `from __future__` line, no return), with the models and their imports before the
 * client when one is.
 */
function workflow(plan: ExportPlan): string {
  const returned = returnedStep(plan.steps);
  const imports = [...modelImports(plan.classes), `from ${SDK.module} import ${SDK.clientClass}`];
  if (plan.classes.length) imports.unshift('from __future__ import annotations', '');
  const body = [`${SDK.sessionVar} = ${SDK.clientVar}.${SDK.newSession}`, ...replayLines(plan.steps, returned)];
  if (returned) body.push(`return ${RESULT_VAR}`);
  return [
    ...imports,
    ...(plan.classes.length ? classBlocks(plan.classes) : ['']),
    `${SDK.clientVar} = ${SDK.clientClass}()`,
    '',
    '',
    'def run():',
    ...body.map((line) => `    ${line}`),
    '',
    '',
    'if __name__ == "__main__":',
    '    run()',
    '',
  ].join('\n');
}

/**
 * `as_workflow=false`: only the replay lines, for a program that already has a `session`, plus
 * the model classes they name and those classes' imports. No `from __future__` line: it is only
 * legal at the top of a module, and the lines are meant to be pasted into one; the classes come
 * before their users, so they need no postponed annotations.
 */
function snippet(plan: ExportPlan): string {
  const lines = [...modelImports(plan.classes), ...classBlocks(plan.classes), ...replayLines(plan.steps, returnedStep(plan.steps))];
  return lines.length ? `${lines.join('\n')}\n` : '';
}

export function pythonScript(plan: ExportPlan, asWorkflow: boolean): string {
  return asWorkflow ? workflow(plan) : snippet(plan);
}
