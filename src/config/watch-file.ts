import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Timers } from '../clock.ts';

/**
 * Calls `changed` once a burst of changes to one file has been quiet for `quietMs`. The file's directory
 * is watched, not the file: editors and deployment tools replace a file by renaming another over it,
 * which ends a watch on the file itself. Events naming other files of the directory are ignored; one
 * without a name (platforms that give none) counts. A watch that breaks (its directory removed) ends with
 * one call of `broken`. `stop` closes the watch and cancels a pending call.
 */
export function watchFile(
  path: string,
  options: { timers: Timers; quietMs: number; changed: () => void; broken: (error: Error) => void },
): { stop(): void } {
  const name = basename(path);
  let cancel: (() => void) | undefined;
  // Persistent (it holds the process like a socket): a watch left open by mistake shows as a process that
  // does not end, and in the tests' count of active handles.
  let watcher: FSWatcher | undefined = watch(dirname(resolve(path)), (_event, file) => {
    if (file !== null && file !== name) return;
    cancel?.();
    cancel = options.timers.after(options.quietMs, () => {
      cancel = undefined;
      options.changed();
    });
  });
  watcher.on('error', (error) => {
    stop();
    options.broken(error);
  });
  function stop(): void {
    cancel?.();
    cancel = undefined;
    watcher?.close();
    watcher = undefined;
  }
  return { stop };
}
