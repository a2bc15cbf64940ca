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
 * `derive(key)` by key object, kept for the last `limit` keys it was derived for (the oldest goes
 * first). A cache per key alive (a WeakMap) would make every registered UE's keys heavier for the garbage
 * collector; a UE uses its keys only while it signals. Holders of keys never change them in place, so a
 * key object stands for its key for as long as it lives.
 */
export function createKeyCache<V>(limit: number, derive: (key: Uint8Array) => V): (key: Uint8Array) => V {
  const values = new Map<Uint8Array, V>();
  return (key) => {
    let value = values.get(key);
    if (value === undefined) {
      value = derive(key);
      if (values.size >= limit) values.delete(values.keys().next().value!);
      values.set(key, value);
    }
    return value;
  };
}
