import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

// `vite build --config ui/vite.config.ts` writes dist/ui, which the service serves at / (src/http/web-ui.ts).
// `vite --config ui/vite.config.ts` serves the sources and sends /api to a service on :5002 (npm run dev).
export default defineConfig({
  root,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    // The service's CSP allows scripts from its own origin only: no inline preload helper.
    modulePreload: { polyfill: false },
    // The budget is 300 kB of gzipped JavaScript on first load (docs/performance.md), not 500 kB minified.
    chunkSizeWarningLimit: 1000,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:5002' } },
  // Component logic is tested without a DOM; pages are tested in a real browser (test/system/web-ui-browser.test.ts).
  // One thread, files not isolated from each other: the tests are pure functions, and a worker per file
  // cost about 4 s of start-up against 0.6 s for the whole run.
  test: { environment: 'node', include: ['src/**/*.test.{ts,tsx}'], pool: 'threads', isolate: false },
});
