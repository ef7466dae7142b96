/**
 * The operation types are generated from the documents (scripts/generate-api-types.mjs): the
 * committed files must be what the generator writes now, and the typed handler maps must refuse
 * a missing handler or an undocumented answer at compile time.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@jest/globals';
import { PYTHON_TARGETS, TARGETS, generate, generateAll, generatePython } from '../scripts/generate-api-types.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

test.each(TARGETS.map((t) => [t.output, t.document]))(
  'when %s is regenerated from %s, it is byte-identical to the committed file (else run npm run generate)',
  (output) => {
    expect(generateAll(root).get(output)).toBe(read(output));
  },
);

test('when a description in the document changes, the generated file changes: a stale file is caught', () => {
  const target = TARGETS[0];
  const doc = JSON.parse(read(target.document));
  expect(generate(doc, target)).toBe(read(target.output));
  doc.components.schemas.SessionFile.properties.size.description = 'Size in octets';
  expect(generate(doc, target)).not.toBe(read(target.output));
});

test.each(PYTHON_TARGETS.map((t) => [t.output, t.document]))(
  'when the Python types %s are regenerated from %s, they are byte-identical to the committed file (else run npm run generate)',
  (output) => {
    expect(generateAll(root).get(output)).toBe(read(output));
  },
);

test('when a schema of the control plane changes, the Python types change: a stale file is caught', () => {
  const target = PYTHON_TARGETS[0];
  const doc = JSON.parse(read(target.document));
  expect(generatePython(doc, target)).toBe(read(target.output));
  doc.components.schemas.Fault.properties.hits.description = 'How often it fired';
  const changed = generatePython(doc, target);
  expect(changed).not.toBe(read(target.output));
  expect(changed).toContain('    #: How often it fired\n    hits: int');
});

test('every control-plane schema is a Python type; optional keys sit in a total=False class over the required ones', () => {
  const target = PYTHON_TARGETS[0];
  const text = read(target.output);
  const doc = JSON.parse(read(target.document));
  for (const name of Object.keys(doc.components.schemas)) expect(text).toMatch(new RegExp(`^(class ${name}\\(|${name} = )`, 'm'));
  // FaultRequest: operationId and status required, the rest optional (Python 3.9 has no NotRequired).
  expect(text).toContain('class _FaultRequestRequired(TypedDict):\n    #: An operationId of the service, or * for all\n    operationId: str\n');
  expect(text).toMatch(/class FaultRequest\(_FaultRequestRequired, total=False\):\n[^]*?    times: int\n/);
  expect(text).toContain('    times: Union[int, None]\n'); // Fault.times: anyOf integer, null
});

test('the operation ids are the documents\' own, in routing order', () => {
  for (const target of TARGETS) {
    const ids = read(target.output).match(/export const OPERATION_IDS = \[\n([^\]]*)\]/)![1].trim().split(/,\n\s*/).map((s) => JSON.parse(s.replace(/,$/, '')));
    const doc = JSON.parse(read(target.document));
    const declared = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect([...ids].sort()).toEqual([...declared].sort());
    expect(ids).toEqual(doc['x-route-order'] ?? declared);
  }
});

test('when a handler map lacks an operation, or a handler answers off the document, it does not compile', () => {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', join(root, 'test', 'fixtures', 'types', 'tsconfig.json')], { cwd: root, encoding: 'utf8' });
  const errors = run.stdout.split('\n').filter((line) => / error TS\d+:/.test(line));
  expect(run.status).not.toBe(0);
  expect(errors).toEqual([
    expect.stringMatching(/missing-handler\.ts\(\d+,\d+\): error TS2741: Property 'deleteSecret' is missing in type .* but required in type 'HandlerMap'/),
    expect.stringMatching(/missing-handler\.ts\(\d+,\d+\): error TS2741: Property 'getClock' is missing in type .* but required in type 'ControlHandlerMap'/),
    expect.stringMatching(/missing-handler\.ts\(\d+,\d+\): error TS2322: .*json: \{ value: string; \}/),
  ]);
});
