import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { checkProblems, findUnusedExports, readAllowlist } from '../../scripts/unused-exports.ts';

// A planted tree: one export of each kind, and the uses that make the others used.
const root = mkdtempSync(join(tmpdir(), 'unused-exports-'));
const files: Record<string, string> = {
  'src/a.ts': [
    'export const used = 1;',
    'export function localOnly(): number { return 2; }',
    'export const dead = 3;',
    'export const testOnly = localOnly();',
    'export type Everywhere = { value: number };',
  ].join('\n'),
  'src/b.ts': "import { used } from './a.ts';\nexport * from './c.ts';\nexport const b = used;",
  'src/c.ts': 'export const reExported = 4;',
  'src/d.ts':
    "import type { Everywhere } from './a.ts';\nimport { b } from './b.ts';\nimport('./e.ts');\nexport const d: Everywhere = { value: b };",
  'src/e.ts': 'export const loadedLazily = 5;',
  'src/generated/g.ts': 'export const fromTheSpecification = 6;',
  'scripts/run.ts': "import { d } from '../src/d.ts';\nconsole.log(d);",
  'test/a.test.ts':
    "import { testOnly } from '../src/a.ts';\nimport { reExported } from '../src/b.ts';\nconsole.log(testOnly, reExported);",
};
for (const [path, text] of Object.entries(files)) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
after(() => rmSync(root, { recursive: true, force: true }));

describe('unused exports (scripts/unused-exports.ts)', () => {
  test('finds the unused, the local and the test-only export, and no used one', () => {
    const { findings, generatedUnused } = findUnusedExports(root);
    assert.deepEqual(findings, [
      { kind: 'local', path: 'src/a.ts', line: 2, name: 'localOnly' },
      { kind: 'test-only', path: 'src/a.ts', line: 4, name: 'testOnly' },
      { kind: 'unused', path: 'src/a.ts', line: 3, name: 'dead' },
    ]);
    assert.equal(generatedUnused, 1);
  });

  test('--check fails on an unused or local export not allowed, and on an allowlist line that matches none', () => {
    const { findings } = findUnusedExports(root);
    assert.deepEqual(checkProblems(findings, new Map()), [
      'src/a.ts:2 localOnly: exported but used only in its own file: drop `export`',
      'src/a.ts:3 dead: exported and used nowhere: delete it',
    ]);
    const allowed = readAllowlist(
      '# why each stays\nsrc/a.ts localOnly a reason\nsrc/a.ts dead another reason\nsrc/a.ts used no longer unused\n',
    );
    assert.deepEqual(checkProblems(findings, allowed), [
      'scripts/unused-exports-allowed.txt: "src/a.ts used" is no longer an unused or local export: remove the line',
    ]);
  });

  test('an allowlist line without its reason is refused', () => {
    assert.throws(() => readAllowlist('src/a.ts dead\n'), /:1: "<path> <name> <reason>" expected/);
  });
});
