// The package is ESM ("type": "module"); this marks dist/cjs as CommonJS so
// `require('@jiffy/sdk')` loads the second build, and makes the loadgen
// entry point executable for the package bin.
import { chmodSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../dist');
writeFileSync(resolve(dist, 'cjs/package.json'), '{ "type": "commonjs" }\n');
chmodSync(resolve(dist, 'loadgen.js'), 0o755);
