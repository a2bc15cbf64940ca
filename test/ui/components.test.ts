import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { startVitest } from 'vitest/node';

// The web UI's own unit tests (ui/src/**/*.test.ts) run under Vitest, which understands Vite's
// module graph; this runs them in `npm test` beside the rest.
describe('web UI component tests (Vitest)', () => {
  it('pass', async () => {
    const vitest = await startVitest('test', [], {
      config: fileURLToPath(new URL('../../ui/vite.config.ts', import.meta.url)),
      run: true,
      watch: false,
      reporters: ['dot'],
    });
    try {
      const files = vitest.state.getFiles();
      assert.ok(files.length > 0, 'no Vitest test files found');
      const failed = files.filter((file) => file.result?.state !== 'pass').map((file) => file.filepath);
      assert.deepEqual(failed, []);
    } finally {
      await vitest.close();
    }
  });
});
