import { describe, expect, it } from 'vitest';
import { move, toggle } from './ordered-choice.ts';

describe('ordered preference', () => {
  const order = ['NEA2', 'NEA1', 'NEA0'];

  it('moves a choice up or down by one place', () => {
    expect(move(order, 'NEA1', -1)).toEqual(['NEA1', 'NEA2', 'NEA0']);
    expect(move(order, 'NEA1', 1)).toEqual(['NEA2', 'NEA0', 'NEA1']);
  });

  it('leaves the order as it is at either end or for a choice not in it', () => {
    expect(move(order, 'NEA2', -1)).toEqual(order);
    expect(move(order, 'NEA0', 1)).toEqual(order);
    expect(move(order, 'NEA3', 1)).toEqual(order);
  });

  it('includes a choice last, and leaves one out', () => {
    expect(toggle(order, 'NEA3', true)).toEqual(['NEA2', 'NEA1', 'NEA0', 'NEA3']);
    expect(toggle(order, 'NEA1', false)).toEqual(['NEA2', 'NEA0']);
    expect(toggle(order, 'NEA1', true)).toEqual(['NEA2', 'NEA0', 'NEA1']);
  });
});
