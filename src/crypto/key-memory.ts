// How keys and other small long-lived values are held in memory.

/**
 * A copy of `bytes` in memory of its own. A small `Buffer.from` copy is a view of Buffer's shared 8 KiB
 * pool: one kept for as long as a device is registered (a key, an SQN) would keep the whole slab alive.
 */
export function ownCopy(bytes: Uint8Array): Buffer {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  copy.set(bytes);
  return copy;
}

/**
 * Values derived from a key, by key object, for the `limit` keys stored last (the oldest is dropped
 * first). A cache per key alive (a WeakMap) would make every registered UE's keys heavier for the garbage
 * collector; a UE uses its keys only while it signals.
 */
export function createKeyCache<V>(limit: number): {
  get(key: Uint8Array): V | undefined;
  set(key: Uint8Array, value: V): void;
} {
  const values = new Map<Uint8Array, V>();
  return {
    get: (key) => values.get(key),
    set(key, value) {
      if (values.size >= limit) values.delete(values.keys().next().value!);
      values.set(key, value);
    },
  };
}
