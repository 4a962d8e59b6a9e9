// Removes dist/ so a build never ships files whose source is gone.
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

rmSync(resolve(dirname(fileURLToPath(import.meta.url)), '../dist'), { recursive: true, force: true });
