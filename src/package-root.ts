import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding the project's package.json: the nearest one above this module. The service runs
 * from its TypeScript sources (`src/`) or from the bundle (`dist/main.js`), at different depths, and reads
 * files beside the package (its version, the native addon in `build/Release`) from here.
 */
function findPackageRoot(from: string): string {
  for (let directory = from; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json'))) return directory;
    if (dirname(directory) === directory) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
