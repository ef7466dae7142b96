/**
 * The built command run beside edited copies of its OpenAPI documents: package.json, both
 * documents, the fixtures and the command's bundle copied into a scratch directory (node_modules
 * linked), so the command reads the copies as its own, the way an edited document is read.
 */
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli, type RunningCli } from './cli-process.js';
import { ROOT } from './helpers.js';

type DocumentName = 'openapi.json' | 'control-plane.openapi.json';

export async function commandWithDocuments(edited: Partial<Record<DocumentName, unknown>>, args: string[] = []): Promise<RunningCli & { stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'cbm-doc-'));
  for (const f of ['package.json', 'openapi.json', 'control-plane.openapi.json']) cpSync(join(ROOT, f), join(dir, f));
  cpSync(join(ROOT, 'fixtures'), join(dir, 'fixtures'), { recursive: true });
  cpSync(join(ROOT, 'dist', 'bin'), join(dir, 'dist', 'bin'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const [name, doc] of Object.entries(edited)) writeFileSync(join(dir, name), JSON.stringify(doc, null, 2));
  const cli = await startCli(['--port', '0', '--data-dir', join(dir, 'data'), ...args], { cwd: dir, command: join(dir, 'dist', 'bin', 'cli.js') });
  return Object.assign(cli, {
    async stop() {
      cli.child.kill('SIGTERM');
      await cli.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
