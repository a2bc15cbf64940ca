import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createListPositions,
  type ListPositions,
  type PageStart,
  type Walk,
  type WalkedAnchor,
} from '../../src/resources/subscribers/list-positions.ts';

const imsi = (n: number) => `00101${String(n).padStart(10, '0')}`;

/** What the repository's walk reads from the model list: every `spacing`-th of `rows` rows after `after`. */
function walkOf(sorted: string[], walk: Walk, spacing: number): WalkedAnchor[] {
  const first = walk.after === undefined ? 0 : sorted.indexOf(walk.after) + 1;
  const found: WalkedAnchor[] = [];
  for (let n = spacing; n <= walk.rows && first + n - 1 < sorted.length; n += spacing) {
    found.push({ imsi: sorted[first + n - 1] as string, n });
  }
  return found;
}

/** Seeks as the service does, reading walks from the model list; counts the walks read. */
function seekIn(positions: ListPositions, sorted: string[], offset: number, spacing: number) {
  let walks = 0;
  for (let round = 0; round < 1000; round++) {
    const step = positions.seek(offset, sorted.length);
    switch (step.kind) {
      case 'start':
        return { start: step.start, walks };
      case 'busy':
        throw new Error('no write is in flight');
      case 'fill':
        walks += 1;
        assert.ok(step.walk.rows > 0);
        positions.fill(step.token, step.walk, walkOf(sorted, step.walk, spacing), sorted.length);
        break;
    }
  }
  throw new Error(`offset ${offset}: seek never settled`);
}

/** The row a page start leads to. */
const rowOf = (sorted: string[], start: PageStart) =>
  (start.from === undefined ? 0 : sorted.indexOf(start.from)) + start.skip;

/** Every offset of the model list leads to its own row, within a few `spacing` rows of an anchor. */
function assertSeeksMatch(positions: ListPositions, sorted: string[], spacing: number) {
  for (let offset = 0; offset < sorted.length; offset++) {
    const { start } = seekIn(positions, sorted, offset, spacing);
    assert.ok(start.from === undefined || sorted.includes(start.from), `offset ${offset}: ${start.from}`);
    assert.equal(rowOf(sorted, start), offset, `offset ${offset}`);
    assert.ok(start.skip <= spacing * 4, `offset ${offset}: skips ${start.skip}`);
  }
}

const seeded = (spacing: number, walkRows: number) => createListPositions({ spacing, walkRows });

describe('list positions', () => {
  it('starts a shallow page from the beginning without any walk', () => {
    const positions = seeded(4, 64);
    assert.deepEqual(positions.seek(10, 1000), { kind: 'start', start: { from: undefined, skip: 10 } });
  });

  it('reaches a deep page by walks of bounded length, then answers it without any', () => {
    const spacing = 4;
    const positions = seeded(spacing, 40);
    const sorted = Array.from({ length: 1000 }, (_, i) => imsi(i * 10));
    const first = seekIn(positions, sorted, 990, spacing);
    assert.equal(rowOf(sorted, first.start), 990);
    // 990 rows at 40 rows a walk: about 25 walks, none longer than 40 rows.
    assert.ok(first.walks >= 24 && first.walks <= 26, `${first.walks} walks`);
    assert.equal(seekIn(positions, sorted, 990, spacing).walks, 0);
    assert.equal(seekIn(positions, sorted, 500, spacing).walks, 0);
  });

  it('guesses a page start before the count is read: from the beginning without anchors, from the anchors with the count they hold for', () => {
    const spacing = 4;
    const positions = seeded(spacing, 40);
    const sorted = Array.from({ length: 1000 }, (_, i) => imsi(i * 10));
    assert.deepEqual(positions.guess(10), { start: { from: undefined, skip: 10 }, count: undefined });
    assert.equal(positions.guess(990), undefined, 'a deep page needs its walks first');
    seekIn(positions, sorted, 990, spacing);
    for (const offset of [0, 15, 500, 990, 999]) {
      const guess = positions.guess(offset);
      assert.ok(guess, `offset ${offset}`);
      assert.equal(guess.count, 1000);
      assert.equal(rowOf(sorted, guess.start), offset, `offset ${offset}`);
    }
    assert.equal(positions.guess(1000), undefined, 'past the count the anchors hold for');
  });

  it('stays exact through random inserts and deletes of its own writes', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const spacing = 3;
    const positions = seeded(spacing, 10);
    let sorted = Array.from({ length: 60 }, (_, i) => imsi(i * 100));
    assertSeeksMatch(positions, sorted, spacing);
    for (let step = 0; step < 200; step++) {
      const done = positions.writeStarted();
      if (random(2) === 0 || sorted.length < 10) {
        const batch = new Set<string>();
        for (let i = random(4); i >= 0; i--) {
          let value = imsi(random(10_000));
          while (sorted.includes(value)) value = imsi(random(10_000));
          batch.add(value);
        }
        sorted = [...sorted, ...batch].sort();
        done({ inserted: [...batch].reverse() });
      } else {
        const value = sorted[random(sorted.length)] as string;
        sorted = sorted.filter((existing) => existing !== value);
        done({ deleted: [value] });
      }
      assertSeeksMatch(positions, sorted, spacing);
    }
  });

  it('walks only the new rows after an import that sorts after every existing one', () => {
    const spacing = 4;
    const positions = seeded(spacing, 1000);
    let sorted = Array.from({ length: 400 }, (_, i) => imsi(i));
    assertSeeksMatch(positions, sorted, spacing);
    const imported = Array.from({ length: 100 }, (_, i) => imsi(1000 + i));
    positions.writeStarted()({ inserted: imported });
    sorted = [...sorted, ...imported];
    let walked: Walk | undefined;
    const step = positions.seek(499, sorted.length);
    if (step.kind === 'fill') walked = step.walk;
    assert.ok(
      walked && walked.after !== undefined && sorted.indexOf(walked.after) >= 380,
      'walks from the end',
    );
    assertSeeksMatch(positions, sorted, spacing);
  });

  it('ignores a write that did not commit', () => {
    const positions = seeded(2, 8);
    const sorted = Array.from({ length: 30 }, (_, i) => imsi(i));
    assertSeeksMatch(positions, sorted, 2);
    positions.writeStarted()(undefined);
    assertSeeksMatch(positions, sorted, 2);
  });

  it('drops its anchors when the count in the database differs and none of its writes is in flight', () => {
    const positions = seeded(2, 8);
    let sorted = Array.from({ length: 30 }, (_, i) => imsi(i * 2));
    assertSeeksMatch(positions, sorted, 2);
    // Rows deleted behind its back: every position after them moved.
    sorted = sorted.slice(5);
    assert.equal(positions.seek(20, sorted.length).kind, 'fill');
    assertSeeksMatch(positions, sorted, 2);
  });

  it('answers busy while one of its writes is in flight and the count already moved', async () => {
    const positions = seeded(2, 8);
    let sorted = Array.from({ length: 30 }, (_, i) => imsi(i * 2));
    assertSeeksMatch(positions, sorted, 2);
    const done = positions.writeStarted();
    sorted = [...sorted, imsi(1)].sort();
    assert.deepEqual(positions.seek(20, sorted.length), { kind: 'busy' });
    let settled = false;
    const waiting = positions.settled().then(() => (settled = true));
    await Promise.resolve();
    assert.equal(settled, false);
    done({ inserted: [imsi(1)] });
    await waiting;
    assertSeeksMatch(positions, sorted, 2);
  });

  it('refuses a walk read while a write was in flight or after one ran', () => {
    const positions = seeded(2, 100);
    const sorted = Array.from({ length: 30 }, (_, i) => imsi(i * 2));
    const step = positions.seek(20, sorted.length);
    assert.equal(step.kind, 'fill');
    if (step.kind !== 'fill') return;
    positions.writeStarted()({ inserted: [imsi(99)] });
    assert.equal(positions.fill(step.token, step.walk, walkOf(sorted, step.walk, 2), sorted.length), false);
    const done = positions.writeStarted();
    assert.deepEqual(positions.seek(20, sorted.length), { kind: 'busy' });
    done(undefined);
  });

  it('forgets everything, and a walk read before, on a restore', () => {
    const positions = seeded(2, 100);
    const sorted = Array.from({ length: 30 }, (_, i) => imsi(i * 2));
    const step = positions.seek(20, sorted.length);
    assert.equal(step.kind, 'fill');
    if (step.kind !== 'fill') return;
    positions.forget();
    assert.equal(positions.fill(step.token, step.walk, walkOf(sorted, step.walk, 2), sorted.length), false);
    assert.equal(positions.seek(20, sorted.length).kind, 'fill');
  });
});
