import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { failingTests } from '../../scripts/failing-tests.ts';

// What Node's spec reporter prints for a run with one failing test, trimmed of its stack.
const SPEC_LOG = `> npm run test:system
▶ s
  ✔ good (0.7ms)
  ✖ bad one (1.3ms)
    AssertionError [ERR_ASSERTION]: 1 == 2
ℹ tests 2
ℹ fail 1

✖ failing tests:

test at test/system/a.test.ts:3:45
✖ bad one (1.344736ms)
  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:

  2 !== 1

      at TestContext.<anonymous> (file:///tmp/a.test.ts:3:74)
      at Test.runInAsyncScope (node:async_hooks:206:9)
  }

test at test/system/b.test.ts:9:1
✖ times out (30000ms)
  'test timed out after 30000ms'
> npm run next
ℹ tests 1
`;

describe('the failing tests a lane summary names', () => {
  test("takes each failing test of the spec reporter's closing blocks: where, name, error to its first frame", () => {
    assert.deepEqual(failingTests(SPEC_LOG), [
      [
        'test at test/system/a.test.ts:3:45',
        '✖ bad one (1.344736ms)',
        '  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
        '  2 !== 1',
        '  at TestContext.<anonymous> (file:///tmp/a.test.ts:3:74)',
      ].join('\n'),
      "test at test/system/b.test.ts:9:1\n✖ times out (30000ms)\n  'test timed out after 30000ms'",
    ]);
  });

  test('falls back to TAP "not ok" lines, and to nothing for a passing log', () => {
    assert.deepEqual(failingTests('ok 1 - a\nnot ok 2 - b\n  ---\n'), ['not ok 2 - b']);
    assert.deepEqual(failingTests('▶ s\n  ✔ good (1ms)\nℹ fail 0\n'), []);
  });

  test('names at most 50 and counts the rest', () => {
    const log = `✖ failing tests:\n\n${Array.from({ length: 60 }, (_, i) => `test at t.ts:${i}:1\n✖ t${i} (1ms)\n  Error: e\n`).join('\n')}`;
    const found = failingTests(log);
    assert.equal(found.length, 51);
    assert.equal(found[50], "… and 10 more, in the lane's output above");
  });
});
