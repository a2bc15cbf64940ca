/**
 * Compiles the TypeScript of the checkout (`src/`, `test/`, `scripts/`, `ui/`...) once into a
 * throw-away copy of it, so that each test process loads plain JavaScript instead of starting tsx and
 * sending every module through its loader thread (about 1.3 s CPU per test file of the HTTP suite, measured; see docs/testing.md).
 *
 * The copy mirrors the checkout: `src/x.ts` becomes `src/x.js` (imports of `./y.ts` rewritten to
 * `./y.js`), and every other entry is a symbolic link to the original (`package.json`, `node_modules`,
 * `third-party/`, `build/`, fixtures, and the `.ts` sources themselves, which some tests read or
 * generate code against), so paths taken from `import.meta.url` resolve as they do in the checkout.
 * Each run builds its own copy, so runs started at the same time never share one.
 */
import { build, type Plugin } from 'esbuild';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

export const ROOT = join(import.meta.dirname, '..');

/**
 * Top-level entries linked as they are; the TypeScript of every other directory (src, test, scripts,
 * ui...) is compiled, so a test may import from any of them. `node_modules` is linked at any depth.
 */
const LINKED = new Set(['node_modules', 'build', 'dist', 'third-party', 'native', 'docs', 'deploy']);

/** Test files under the paths (files or directories); without paths, those of the fast suite. */
export function testFiles(paths: string[]): string[] {
  if (paths.length === 0) {
    return testFiles(['test']).filter((file) => !/^test\/(system|process)\//.test(file));
  }
  const files: string[] = [];
  const visit = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else if (path.endsWith('.test.ts')) {
      files.push(relative(ROOT, path));
    }
  };
  for (const path of paths) visit(join(ROOT, path));
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export interface TestBuild {
  /** The copy's root: `join(root, 'test/x.test.js')` is the compiled `test/x.test.ts`. */
  root: string;
  /** The compiled path of a `.ts` file of the checkout (relative to the checkout's root). */
  compiled(file: string): string;
  /** Removes the copy. */
  dispose(): void;
}

/** Relative imports of `.ts` files load the compiled `.js` beside them; every import stays external. */
const rewriteImports: Plugin = {
  name: 'rewrite-relative-ts-imports',
  setup(builder) {
    builder.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'entry-point'
        ? undefined
        : {
            path: args.path.startsWith('.') ? args.path.replace(/\.ts$/, '.js') : args.path,
            external: true,
          },
    );
  },
};

export async function buildTests(): Promise<TestBuild> {
  const root = mkdtempSync(join(tmpdir(), 'pmn-tests-'));
  // An interrupted run removes its copy too, then ends as the signal asks.
  const interrupted = (signal: NodeJS.Signals): void => {
    dispose();
    process.kill(process.pid, signal);
  };
  const dispose = (): void => {
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
    rmSync(root, { recursive: true, force: true });
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    const sources: string[] = [];
    const mirror = (directory: string): void => {
      mkdirSync(join(root, directory), { recursive: true });
      for (const entry of readdirSync(join(ROOT, directory), { withFileTypes: true })) {
        const path = join(directory, entry.name);
        if (entry.isDirectory() && entry.name !== 'node_modules') {
          mirror(path);
          continue;
        }
        symlinkSync(join(ROOT, path), join(root, path));
        if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) sources.push(join(ROOT, path));
      }
    };
    for (const entry of readdirSync(ROOT, { withFileTypes: true })) {
      const compiled = entry.isDirectory() && !LINKED.has(entry.name) && !entry.name.startsWith('.');
      if (compiled) mirror(entry.name);
      else symlinkSync(join(ROOT, entry.name), join(root, entry.name));
    }
    await build({
      entryPoints: sources,
      outdir: root,
      outbase: ROOT,
      // Bundling only to run the plugin on every import; each file stays its own module.
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'linked',
      logLevel: 'error',
      plugins: [rewriteImports],
    });
  } catch (error) {
    dispose();
    throw error;
  }
  return {
    root,
    compiled: (file) => join(root, relative(ROOT, join(ROOT, file)).replace(/\.ts$/, '.js')),
    dispose,
  };
}
