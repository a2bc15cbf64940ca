// Builds the service for production: `src/` bundled into `dist/main.js` (and the records writer thread's
// `dist/record-writer.worker.js`) by esbuild, so a start loads one file instead of compiling TypeScript
// and resolving a few thousand modules (docs/operations.md, "Starting fast"). Plain JavaScript: it runs
// at `npm ci` and before `npm start`, where no TypeScript loader is wanted.
//
//   node scripts/build.mjs             build
//   node scripts/build.mjs --if-stale  build only when a source or the lock file is newer than the bundle
import { build } from 'esbuild';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = join(root, 'dist', 'main.js');

/** The newest modification time among the sources the bundle is made of. */
function newestSource() {
  let newest = 0;
  const visit = (path) => {
    const stats = statSync(path);
    if (stats.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
    else newest = Math.max(newest, stats.mtimeMs);
  };
  for (const path of ['src', 'package.json', 'package-lock.json', 'scripts/build.mjs'])
    visit(join(root, path));
  return newest;
}

function builtAt() {
  try {
    return statSync(output).mtimeMs;
  } catch {
    return 0;
  }
}

if (!(process.argv.includes('--if-stale') && builtAt() > newestSource())) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['src/main.ts', 'src/records/record-writer.worker.ts'],
    // Flat: the records writer finds its worker beside the module that starts it (record-writer-thread.ts).
    entryNames: '[name]',
    outdir: 'dist',
    // Code loaded by a dynamic import (the network side, decoders of stored messages) goes into chunks
    // of its own, compiled after the API answers rather than before (docs/operations.md, "Starting fast").
    splitting: true,
    // Flat, beside the entries: a module finds its worker beside itself, wherever the split put it.
    chunkNames: '[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Packages with native code load their binaries relative to their own files.
    external: ['better-sqlite3', '@datadog/pprof'],
    // Bundled CommonJS packages call `require` for Node's built-in modules.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    logLevel: 'warning',
    metafile: true,
  });
  removeOldChunks(new Set(Object.keys(result.metafile.outputs).map((path) => basename(path))));
}

/**
 * Chunks are named by content hash, so each build leaves the previous one's behind. They are removed
 * once they are 10 minutes old: a service started from the previous build may still import one it
 * loads lazily. dist/ui is the web UI's build (vite), not this one's.
 */
function removeOldChunks(outputs) {
  const directory = join(root, 'dist');
  const before = Date.now() - 10 * 60_000;
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (entry === 'ui' || outputs.has(entry) || statSync(path).mtimeMs > before) continue;
    rmSync(path, { recursive: true, force: true });
  }
}
