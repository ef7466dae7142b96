/**
 * Each option fact in one place (issue 32): the defaults --help names are the ones
 * docs/configuration.md's table gives, and a rule between options is one rule with two voices —
 * createApp throws it naming the flag, the CLI prints it as one line naming where the option came
 * from (flag or variable) and exits 2.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import { runCli } from './cli-process.js';
import { section } from './doc-pages.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-options-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--help and the documentation give the same defaults', () => {
  /** `--flag` → the default the Configuration table gives in code spans (`8000`, `7d`); "off"/"none" rows are left out. */
  const documented = () =>
    section('docs/configuration.md', 'Configuration')
      .split('\n')
      .flatMap((line) => {
        const m = /^\| `--([a-z-]+)[^|]*\| [^|]*\| `([^`]+)` \|/.exec(line);
        return m ? [[m[1], m[2]] as const] : [];
      });

  test('every flag whose documented default is a value shows that value as its default in --help', () => {
    const rows = documented();
    expect(rows.length).toBeGreaterThan(10);
    const help = runCli(['--help'], { cwd: dir }).stdout.split('\n');
    const disagreeing = rows.filter(([flag, value]) => !help.find((l) => l.startsWith(`  --${flag} `))?.includes(`(default ${value}`));
    expect(disagreeing).toEqual([]);
  });
});

describe('a rule between options: the same rule, from the library and from the CLI', () => {
  test.each([
    [{ record: 'rec.json' }, '--record needs --upstream: a recording is made of what the real service answers'],
    [{ recordSecretValues: true }, '--record-secret-values needs --record'],
    [{ upstream: 'http://127.0.0.1:9', recordSecretValues: true }, '--record-secret-values needs --record'],
  ])('createApp(%j) throws, naming the flag', async (options, message) => {
    await expect(createApp({ logLevel: 'silent', cwd: dir, ...options })).rejects.toThrow(message);
    expect(readdirSync(dir)).toEqual([]);
  });

  test.each([
    [['--record', 'rec.json'], {}, 'cloud-browser-mock: --record needs --upstream: a recording is made of what the real service answers\n'],
    [[], { CBM_RECORD: 'rec.json' }, 'cloud-browser-mock: CBM_RECORD needs --upstream: a recording is made of what the real service answers\n'],
    [['--upstream', 'http://127.0.0.1:9'], { CBM_RECORD_SECRET_VALUES: 'true' }, 'cloud-browser-mock: CBM_RECORD_SECRET_VALUES needs --record\n'],
  ])('the CLI with %j and %j prints one line naming where it came from and exits 2', (args, env, stderr) => {
    const r = runCli([...args, '--in-memory'], { cwd: dir, env });
    expect(r.stderr).toBe(stderr);
    expect(r.status).toBe(2);
    expect(existsSync(join(dir, 'rec.json'))).toBe(false);
  });
});
