// The package's LICENSE is the repository's: `prepack` copies <repo>/LICENSE
// here so that `npm pack` and `npm publish` ship it, `postpack` removes the
// copy, and the repository keeps one LICENSE file.
//
//   node scripts/license.mjs copy | remove
//
// Outside the repository (an unpacked tarball, which ships its LICENSE)
// both do nothing.
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoLicense = resolve(packageDir, '../../LICENSE');
const packageLicense = resolve(packageDir, 'LICENSE');
const action = process.argv[2];

if (action !== 'copy' && action !== 'remove') {
  console.error('usage: node scripts/license.mjs copy|remove');
  process.exit(2);
}
if (existsSync(repoLicense)) {
  if (action === 'copy') copyFileSync(repoLicense, packageLicense);
  else rmSync(packageLicense, { force: true });
} else if (action === 'copy' && !existsSync(packageLicense)) {
  console.error(`no LICENSE to ship: neither ${repoLicense} nor ${packageLicense} exists`);
  process.exit(1);
}
