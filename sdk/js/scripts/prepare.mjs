// npm's `prepare` script: builds dist/. npm runs it on `npm install` in this
// folder, before `npm pack` and `npm publish`, and when it installs this
// package as a dependency from a directory (`npm install ./sdk/js`) or from
// git, so a clone installs like a published package.
//
// npm installs a git dependency's devDependencies before running prepare, but
// not those of a directory it links to: there the compiler may be missing.
// Then this package's own locked devDependencies are installed here first,
// with `npm ci --ignore-scripts` (which does not run this script again).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const compiler = join(packageDir, 'node_modules', 'typescript', 'bin', 'tsc');

// The outer npm passes its command-line settings down as npm_config_*
// variables; those that say where or what to install (--prefix, --global,
// --omit=dev, --workspace...) belong to the outer install, not to this one.
// Only the ones that say how to reach the registry carry over.
const REGISTRY_SETTINGS = /^npm_config_(registry|cache|userconfig|globalconfig|offline|prefer_offline|prefer_online|proxy|https_proxy|noproxy|cafile|ca|strict_ssl|fetch_.*|loglevel|@.*:registry)$/i;

function npm(args) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key) || REGISTRY_SETTINGS.test(key)),
  );
  // npm_execpath is the npm running this script; `npm` on PATH otherwise.
  const [command, prefix] = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  execFileSync(command, [...prefix, ...args], { cwd: packageDir, env, stdio: 'inherit' });
}

if (!existsSync(compiler)) {
  npm(['ci', '--include=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error']);
}
npm(['run', '--silent', 'build']);
