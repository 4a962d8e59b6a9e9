// Regenerates src/gen from <repo>/proto/*.proto with buf and protoc-gen-es,
// both installed from npm (no download at install or generate time).
// proto/protosocket/ is left out: its few messages are encoded by hand
// (src/transport/protosocket-codec.ts says why).
//
//   node scripts/generate-proto.mjs            # writes src/gen
//   node scripts/generate-proto.mjs <out-dir>  # writes elsewhere (staleness test)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const protoDir = resolve(packageDir, '../../proto');
const outDir = resolve(process.argv[2] ?? join(packageDir, 'src/gen'));
const bin = (name) => join(packageDir, 'node_modules/.bin', name);

// buf reads its template from a file; keep it out of the tree so the one
// source of truth for the options is this script.
const workDir = mkdtempSync(join(tmpdir(), 'jiffy-buf-'));
const template = join(workDir, 'buf.gen.yaml');
writeFileSync(
  template,
  [
    'version: v2',
    'plugins:',
    `  - local: ${JSON.stringify(bin('protoc-gen-es'))}`,
    `    out: ${JSON.stringify(outDir)}`,
    '    opt:',
    '      - target=ts',
    '      - import_extension=js',
    '',
  ].join('\n'),
);
try {
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(bin('buf'), ['generate', protoDir, '--template', template, '--exclude-path', join(protoDir, 'protosocket')], {
    cwd: workDir,
    stdio: 'inherit',
  });
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
