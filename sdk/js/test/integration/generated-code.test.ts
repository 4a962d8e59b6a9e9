// src/gen is generated from <repo>/proto and checked in: regenerate into a
// temporary directory and compare, so an edited .proto cannot ship with
// stale code. Fix a failure with `npm run generate`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const CHECKED_IN = join(PACKAGE_DIR, 'src/gen');

test('src/gen matches what proto/*.proto generates', () => {
  const fresh = mkdtempSync(join(tmpdir(), 'jiffy-gen-'));
  try {
    execFileSync(process.execPath, [join(PACKAGE_DIR, 'scripts/generate-proto.mjs'), fresh], { stdio: 'pipe' });
    const files = readdirSync(fresh).sort();
    assert.ok(files.length >= 4, `generated only ${files.join(', ')}`);
    assert.deepEqual(readdirSync(CHECKED_IN).sort(), files, 'src/gen has other files: run `npm run generate`');
    for (const file of files) {
      assert.equal(
        readFileSync(join(CHECKED_IN, file), 'utf8'),
        readFileSync(join(fresh, file), 'utf8'),
        `src/gen/${file} is stale: run \`npm run generate\``,
      );
    }
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
});
