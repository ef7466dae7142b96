/**
 * The built command run beside edited copies of its OpenAPI documents: package.json, both
 * documents, the fixtures and the command's bundle copied into a scratch directory (node_modules
 * linked), so the command reads the copies as its own, the way an edited document is read.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

type DocumentName = 'openapi.json' | 'control-plane.openapi.json';

export async function commandWithDocuments(edited: Partial<Record<DocumentName, unknown>>, args: string[] = []): Promise<{ url: string; output(): string; waitFor(pattern: RegExp): Promise<void>; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'cbm-doc-'));
  for (const f of ['package.json', 'openapi.json', 'control-plane.openapi.json']) cpSync(join(ROOT, f), join(dir, f));
  cpSync(join(ROOT, 'fixtures'), join(dir, 'fixtures'), { recursive: true });
  cpSync(join(ROOT, 'dist', 'bin'), join(dir, 'dist', 'bin'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const [name, doc] of Object.entries(edited)) writeFileSync(join(dir, name), JSON.stringify(doc, null, 2));
  const child = spawn(process.execPath, [join(dir, 'dist', 'bin', 'cli.js'), '--port', '0', '--data-dir', join(dir, 'data'), ...args], { cwd: dir });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  let out = '';
  const waiting = new Set<() => void>();
  const seen = (d: Buffer) => {
    out += d;
    for (const check of waiting) check();
  };
  child.stderr.on('data', seen);
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', seen);
    child.stdout.on('data', () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return {
    url,
    output: () => out,
    /** Resolves once what the command printed matches (a log line is written after its answer). */
    waitFor: (pattern) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!pattern.test(out)) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
      }),
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
