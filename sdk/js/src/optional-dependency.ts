// Packages this SDK lists as optional peer dependencies (package.json,
// `peerDependenciesMeta`): @grpc/grpc-js for `transport: 'grpc-js'` and
// hdr-histogram-js for the load generator. The default client needs
// neither, so `npm install @jiffy/sdk` does not install them and they are
// imported only when chosen; a missing one is an InvalidArgumentError that
// names the command installing it, not Node's module-not-found error.
import { InvalidArgumentError } from './errors.js';

// ESM import and CommonJS require say "not found" with different codes.
const NOT_FOUND_CODES = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);

/** True when `err` says that `name` itself (not something it imports) could not be found. */
function isMissing(err: unknown, name: string): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && NOT_FOUND_CODES.has(code) && err.message.includes(`'${name}'`);
}

/**
 * Runs `load` (an `import()` of `name`, or of a module of ours that imports
 * it); if `name` is not installed, rejects with an InvalidArgumentError:
 * "`neededBy` needs `name` ... run `npm install name`", then `instead` when given.
 */
export async function importOptional<T>(name: string, neededBy: string, load: () => Promise<T>, instead = ''): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!isMissing(err, name)) throw err;
    throw new InvalidArgumentError(
      `${neededBy} needs the package ${name}, which is not installed (an optional peer dependency of @jiffy/sdk); ` +
        `run \`npm install ${name}\`${instead === '' ? '' : `, or ${instead}`}`,
      { cause: err },
    );
  }
}
