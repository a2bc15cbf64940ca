/**
 * What a guest program (run by qemu-guest.ts inside the qemu guest) uses: its arguments, the addon's
 * path there, and the line protocol of results on the console.
 */
import { readFileSync } from 'node:fs';

/** Where qemu-guest.ts puts the addon: where `npm ci` does, under the program's package root. */
export const GUEST_ADDON_PATH = '/opt/pmn/build/Release/pmn_native.node';

export function guestArguments<T>(): T {
  return JSON.parse(readFileSync('/opt/pmn/args.json', 'utf8')) as T;
}

/** One result for the host test, as a console line. */
export function report(value: unknown): void {
  process.stdout.write(`PMN-RESULT ${JSON.stringify(value)}\n`);
}

/** A console line the host may wait for (`Guest.waitFor`). */
export function announce(text: string): void {
  process.stdout.write(`PMN-STEP ${text}\n`);
}

/** Runs a guest program's `main`: exit status 0, or 1 with the error on a GUEST-ERROR line. */
export function runGuest(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stdout.write(
        `GUEST-ERROR ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
