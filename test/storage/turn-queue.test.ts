import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AGAIN, createTurnQueue, type TurnOutcome } from '../../src/storage/turn-queue.ts';
import { until } from '../helpers/until.ts';

const settled = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error: (error as Error).message }),
  );

describe('turn queue', () => {
  it('hands the requests of one turn over as one group, in order, and settles each with its own outcome', async () => {
    const groups: number[][] = [];
    const ask = createTurnQueue<number, string>(async (group) => {
      groups.push([...group]);
      return group.map((n): TurnOutcome<string> =>
        n % 2 === 0 ? { value: `even ${n}` } : { error: new Error(`odd ${n}`) },
      );
    });
    const first = [1, 2, 3].map((n) => settled(ask(n)));
    assert.deepEqual(groups, [], 'nothing before the next turn');
    assert.deepEqual(await Promise.all(first), [{ error: 'odd 1' }, { value: 'even 2' }, { error: 'odd 3' }]);
    assert.deepEqual(await settled(ask(4)), { value: 'even 4' });
    assert.deepEqual(groups, [[1, 2, 3], [4]]);
  });

  it('rejects every request of a group whose handler throws, and goes on', async () => {
    let fail = true;
    const ask = createTurnQueue<number, number>(async (group) => {
      if (fail) throw new Error('the statement failed');
      return group.map((value) => ({ value }));
    });
    assert.deepEqual(await Promise.all([settled(ask(1)), settled(ask(2))]), [
      { error: 'the statement failed' },
      { error: 'the statement failed' },
    ]);
    fail = false;
    assert.equal(await ask(3), 3);
  });

  it('with one group at a time, gathers what is asked meanwhile into the next, behind the ones handed back AGAIN', async () => {
    const groups: string[][] = [];
    let release: (() => void) | undefined;
    let locked = 1;
    const ask = createTurnQueue<string, string>(
      async (group) => {
        groups.push([...group]);
        if (groups.length === 1) await new Promise<void>((resume) => (release = resume));
        if (locked-- > 0) return group.map(() => AGAIN);
        return group.map((value) => ({ value }));
      },
      { groupsAtOnce: 1, againAfterMs: 1 },
    );
    const first = Promise.all([ask('a'), ask('b')]);
    await until('the first group handled', () => release !== undefined);
    const later = Promise.all([ask('c'), ask('d')]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(groups.length, 1, 'the next group waits for the one being handled');
    release!();
    assert.deepEqual(await first, ['a', 'b']);
    assert.deepEqual(await later, ['c', 'd']);
    assert.deepEqual(groups, [
      ['a', 'b'],
      ['a', 'b', 'c', 'd'],
    ]);
  });
});
