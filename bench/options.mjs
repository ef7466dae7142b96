/**
 * The benchmark's command line: `parseOptions(argv)` turns it into settings or throws a
 * UsageError whose message is the one line the entry prints (exit code 2). Nothing here reads
 * the machine or the build, so a test can call it, and a bad flag fails before any work starts.
 */
import { parseArgs } from 'node:util';

/** Bad input: one line naming what is wrong, no stack. */
export class UsageError extends Error {}

/** The phases, in the order they run; `scale` is its three parts, which --only may also name alone. */
export const PHASE_NAMES = ['cold', 'main', 'scale', 'scale:files', 'scale:secrets', 'scale:log', 'upload', 'proxy', 'spec'];
export const SCALE_PARTS = ['scale:files', 'scale:secrets', 'scale:log'];
/** The phases that run the baseline build beside the working tree's when --baseline is given. */
export const BASELINE_PHASES = ['cold', 'main'];

export const USAGE = `npm run bench -- [options]   (or: node bench/run.mjs [options], after npm run build)
  --only PHASES        comma-separated, of ${PHASE_NAMES.join(', ')} (default: cold,main,scale,upload,proxy,spec)
  --rounds N           alternating rounds per endpoint (5)
  --duration S         seconds per load run (5)
  --connections N      autocannon connections (50)
  --cold-starts N      starts per server in the cold-start phases (5)
  --with-prism         also run Stoplight Prism 5.14 (installed in $TMPDIR on first use)
  --instructions       the spec phase also counts the instructions each built-in request executes,
                       with and without --spec, under valgrind's callgrind (a few minutes; needs valgrind)
  --baseline REF       also run the build of git commit REF (checked out into a temporary worktree
                       and built) in the ${BASELINE_PHASES.join(' and ')} phases, rounds interleaved with the working tree's
  --out FILE           where to write the results (bench/results.json)
  --help               this text
Reprint a saved run: node bench/report.mjs FILE`;

/**
 * @param {string[]} argv the arguments after the script's name
 * @param {{ defaultOut: string }} defaults
 * @returns {{ help: true } | { help: false, withPrism: boolean, instructions: boolean, rounds: number, duration: number,
 *   connections: number, coldStarts: number, phases: Set<string>, baseline: string | null, out: string }}
 */
export function parseOptions(argv, { defaultOut }) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        'with-prism': { type: 'boolean', default: false },
        instructions: { type: 'boolean', default: false },
        rounds: { type: 'string', default: '5' },
        duration: { type: 'string', default: '5' },
        connections: { type: 'string', default: '50' },
        'cold-starts': { type: 'string', default: '5' },
        only: { type: 'string', default: 'cold,main,scale,upload,proxy,spec' },
        baseline: { type: 'string' },
        out: { type: 'string', default: defaultOut },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (e) {
    // parseArgs' own messages name the flag; drop its advice about `--` (no positionals here).
    throw new UsageError(e.message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  if (parsed.help) return { help: true };
  const numbers = {};
  for (const name of ['rounds', 'duration', 'connections', 'cold-starts']) {
    const n = Number(parsed[name]);
    if (!(n > 0) || (name !== 'duration' && !Number.isInteger(n))) throw new UsageError(`--${name} must be a positive ${name === 'duration' ? 'number of seconds' : 'whole number'}, not ${JSON.stringify(parsed[name])}`);
    numbers[name] = n;
  }
  const only = parsed.only.split(',');
  const unknown = only.filter((p) => !PHASE_NAMES.includes(p));
  if (unknown.length) throw new UsageError(`--only: no phase ${unknown.map((p) => JSON.stringify(p)).join(', ')}; the phases are ${PHASE_NAMES.join(', ')}`);
  const phases = new Set(only);
  if (phases.has('scale')) for (const part of SCALE_PARTS) phases.add(part);
  phases.delete('scale');
  if (parsed.instructions && !phases.has('spec')) throw new UsageError(`--instructions counts the spec phase's built-in requests; --only ${parsed.only} runs no spec phase`);
  const baseline = parsed.baseline ?? null;
  if (baseline !== null) {
    if (!baseline.trim() || baseline.startsWith('-')) throw new UsageError(`--baseline needs a git commit, branch or tag, not ${JSON.stringify(baseline)}`);
    if (!BASELINE_PHASES.some((p) => phases.has(p))) throw new UsageError(`--baseline compares builds in the ${BASELINE_PHASES.join(' and ')} phases; --only ${parsed.only} runs neither`);
  }
  return {
    help: false,
    withPrism: parsed['with-prism'],
    instructions: parsed.instructions,
    rounds: numbers.rounds,
    duration: numbers.duration,
    connections: numbers.connections,
    coldStarts: numbers['cold-starts'],
    phases,
    baseline,
    out: parsed.out,
  };
}
