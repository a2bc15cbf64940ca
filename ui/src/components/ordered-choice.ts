/**
 * An ordered preference among a fixed set of choices (NAS algorithms, most preferred first): moving one up
 * or down, and including or leaving out one. Unknown choices are ignored; the order of the others stays.
 */
export function move<T>(order: readonly T[], item: T, delta: -1 | 1): T[] {
  const from = order.indexOf(item);
  const to = from + delta;
  if (from < 0 || to < 0 || to >= order.length) return [...order];
  const next = [...order];
  next[from] = next[to] as T;
  next[to] = item;
  return next;
}

/** Includes `item` at the end (least preferred) or leaves it out. */
export function toggle<T>(order: readonly T[], item: T, included: boolean): T[] {
  const without = order.filter((value) => value !== item);
  return included ? [...without, item] : without;
}
