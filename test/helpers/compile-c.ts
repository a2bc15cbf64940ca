import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/package-root.ts';

/** The flags the C test drivers and bench helpers are built with: warnings are errors, as in the addons. */
const C_FLAGS = ['-std=gnu11', '-O2', '-Wall', '-Wextra', '-Werror', '-D_GNU_SOURCE', '-pthread'];

/** AddressSanitizer and UndefinedBehaviorSanitizer, the first finding ending the run (fuzz drivers). */
const SANITIZE_FLAGS = [
  '-fsanitize=address,undefined',
  '-fno-sanitize-recover=all',
  '-fno-omit-frame-pointer',
  '-g',
];

/**
 * Compiles `main` with the named sources of native/upf (`upf`) into `out`, linking `libraries` (e.g.
 * `-lbpf`), with the sanitizers when `sanitize`; throws with cc's message when it fails.
 */
export function compileC(
  out: string,
  main: string,
  options: { upf?: string[]; libraries?: string[]; sanitize?: boolean } = {},
): string {
  const upf = (options.upf ?? []).map((source) => join(packageRoot(), 'native', 'upf', source));
  const flags = options.sanitize === true ? [...C_FLAGS, ...SANITIZE_FLAGS] : C_FLAGS;
  execFileSync('cc', [...flags, main, ...upf, ...(options.libraries ?? []), '-o', out], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return out;
}
