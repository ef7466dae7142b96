/** `npm run fixtures`: rewrites fixtures/<scenario>.json from the seeded generator. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/primitives/package-root.js';
import { generateScenarios, serialize } from './scenarios.js';

for (const [name, scenario] of Object.entries(generateScenarios())) {
  const file = join(packageRoot, 'fixtures', `${name}.json`);
  writeFileSync(file, serialize(scenario));
  process.stdout.write(`wrote ${file}\n`);
}
