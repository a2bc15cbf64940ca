import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The files and directories a first start creates (the database, its WAL and SHM, the key file, and the
 * directories above them), noted before the start so that a start that fails (an address in use, say)
 * leaves nothing half-created: what this run made is removed, what existed is kept untouched.
 */
export function noteFirstStartFiles(files: readonly string[]) {
  const created = files.map((file) => resolve(file)).filter((file) => !existsSync(file));
  const directories = new Set<string>();
  for (const file of created)
    for (let directory = dirname(file); !existsSync(directory); directory = dirname(directory))
      directories.add(directory);

  return {
    /** Removes what was missing before the start; directories only when empty, deepest first. */
    removeCreated(): void {
      for (const file of created) rmSync(file, { force: true });
      const deepestFirst = [...directories].sort((a, b) => b.length - a.length);
      for (const directory of deepestFirst)
        if (existsSync(directory) && readdirSync(directory).length === 0) rmdirSync(directory);
    },
  };
}
