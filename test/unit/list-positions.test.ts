import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createListPositions } from '../../src/resources/subscribers/list-positions.ts';

const imsi = (n: number) => `00101${String(n).padStart(10, '0')}`;

/** The anchors a rebuild would read: every `spacing`-th IMSI of the sorted list. */
const anchorsOf = (sorted: string[], spacing: number) => sorted.filter((_, index) => index % spacing === 0);

/**
 * Checks that `seek` leads to the right row for every offset of the model list; where the anchors were
 * dropped (too sparse), rebuilds them from the model first, as the service does from the database.
 */
function assertSeeksMatch(
  positions: ReturnType<typeof createListPositions>,
  sorted: string[],
  spacing: number,
) {
  for (let offset = 0; offset < sorted.length; offset++) {
    if (positions.seek(offset, sorted.length) === undefined) {
      positions.install(positions.rebuildToken() as number, anchorsOf(sorted, spacing), sorted.length);
    }
    const start = positions.seek(offset, sorted.length);
    assert.ok(start, `offset ${offset}: anchors should hold`);
    const first = start.from === undefined ? 0 : sorted.indexOf(start.from);
    assert.ok(first >= 0, `offset ${offset}: anchor ${start.from} is not a subscriber`);
    assert.equal(first + start.skip, offset, `offset ${offset}`);
  }
}

describe('list positions', () => {
  it('has nothing to offer before anchors are installed', () => {
    const positions = createListPositions({ spacing: 4 });
    assert.equal(positions.seek(0, 10), undefined);
  });

  it('starts each page at the nearest anchor at or before its offset', () => {
    const positions = createListPositions({ spacing: 4 });
    const sorted = Array.from({ length: 10 }, (_, i) => imsi(i * 10));
    assert.equal(positions.install(positions.rebuildToken() as number, anchorsOf(sorted, 4), 10), true);
    assert.deepEqual(positions.seek(0, 10), { from: imsi(0), skip: 0 });
    assert.deepEqual(positions.seek(5, 10), { from: imsi(40), skip: 1 });
    assert.deepEqual(positions.seek(9, 10), { from: imsi(80), skip: 1 });
  });

  it('stays exact through random inserts and deletes of its own writes', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const spacing = 5;
    const positions = createListPositions({ spacing });
    let sorted = Array.from({ length: 60 }, (_, i) => imsi(i * 100));
    positions.install(positions.rebuildToken() as number, anchorsOf(sorted, spacing), sorted.length);
    for (let step = 0; step < 200; step++) {
      const done = positions.writeStarted();
      if (random(2) === 0 || sorted.length < 10) {
        let value = imsi(random(10_000));
        while (sorted.includes(value)) value = imsi(random(10_000));
        sorted = [...sorted, value].sort();
        done({ inserted: [value] });
      } else {
        const value = sorted[random(sorted.length)] as string;
        sorted = sorted.filter((existing) => existing !== value);
        done({ deleted: [value] });
      }
      assertSeeksMatch(positions, sorted, spacing);
    }
  });

  it('ignores a write that did not commit', () => {
    const positions = createListPositions({ spacing: 2 });
    const sorted = [imsi(1), imsi(2), imsi(3), imsi(4)];
    positions.install(positions.rebuildToken() as number, anchorsOf(sorted, 2), 4);
    positions.writeStarted()(undefined);
    assertSeeksMatch(positions, sorted, 2);
  });

  it('drops its anchors when the count in the database differs and none of its writes is in flight', () => {
    const positions = createListPositions({ spacing: 2 });
    positions.install(positions.rebuildToken() as number, [imsi(1), imsi(3)], 4);
    assert.equal(positions.seek(1, 5), undefined);
    assert.equal(positions.seek(1, 4), undefined, 'dropped, not merely skipped once');
  });

  it('keeps its anchors while one of its writes is in flight, answering undefined meanwhile', () => {
    const positions = createListPositions({ spacing: 2 });
    positions.install(positions.rebuildToken() as number, [imsi(1), imsi(3)], 4);
    const done = positions.writeStarted();
    assert.equal(positions.seek(1, 5), undefined);
    done({ inserted: [imsi(5)] });
    assert.deepEqual(positions.seek(4, 5), { from: imsi(3), skip: 2 });
  });

  it('refuses to install a rebuild while a write is in flight or after one ran', () => {
    const positions = createListPositions({ spacing: 2 });
    const done = positions.writeStarted();
    assert.equal(positions.rebuildToken(), undefined);
    done({ inserted: [imsi(1)] });
    const token = positions.rebuildToken() as number;
    positions.writeStarted()({ inserted: [imsi(2)] });
    assert.equal(positions.install(token, [imsi(1)], 1), false);
    assert.equal(positions.seek(0, 1), undefined);
  });

  it('drops anchors too sparse for a page, so that they get rebuilt', () => {
    const positions = createListPositions({ spacing: 1 });
    positions.install(positions.rebuildToken() as number, [imsi(0)], 1);
    const done = positions.writeStarted();
    done({ inserted: [1, 2, 3, 4, 5, 6].map(imsi) });
    assert.equal(positions.seek(6, 7), undefined);
    assert.equal(positions.rebuildToken() !== undefined, true);
  });
});
