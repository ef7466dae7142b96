/** Where the package's own files are (package.json, openapi.json, fixtures/) and its version, wherever it runs from. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding our package.json, whether we run from src/ (tests) or dist/src/, and that file as parsed (once). */
const found: { dir: string; manifest: { version: string } } = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8'));
      if (manifest.name === 'cloud-browser-mock') return { dir, manifest };
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cloud-browser-mock: cannot find the package root');
    dir = parent;
  }
})();

export const packageRoot: string = found.dir;

export const packageVersion: string = found.manifest.version;
