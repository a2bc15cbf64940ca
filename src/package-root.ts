import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

/**
 * The directory holding the project's package.json: the nearest one above this module. The service runs
 * from its TypeScript sources (`src/`) or from the bundle (`dist/main.js`), at different depths, and reads
 * files beside the package (its version, the native addon in `build/Release`, the web UI) from here.
 * Found on first use, so that code bundled without the package (the qemu guest's) can still load.
 */
export function packageRoot(): string {
  if (found === undefined) {
    const from = dirname(fileURLToPath(import.meta.url));
    for (let directory = from; ; directory = dirname(directory)) {
      if (existsSync(join(directory, 'package.json'))) {
        found = directory;
        break;
      }
      if (dirname(directory) === directory) throw new Error(`no package.json above ${from}`);
    }
  }
  return found;
}
