/** Where the package's own files are (package.json, openapi.json, fixtures/) and its version, wherever it runs from. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding our package.json, whether we run from src/ (tests) or dist/src/. */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && JSON.parse(readFileSync(candidate, 'utf8')).name === 'cloud-browser-mock') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cloud-browser-mock: cannot find the package root');
    dir = parent;
  }
})();

export const packageVersion: string = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version;
