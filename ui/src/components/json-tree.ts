/** A node of a decoded message shown as a tree: a leaf with its value, or a branch with its children. */
export type TreeNode =
  | { kind: 'leaf'; label: string; value: string }
  | { kind: 'branch'; label: string; summary: string; children: TreeNode[] };

/** Deeper than this, a value is shown as JSON text rather than more branches (decoders nest ~10 deep). */
const MAX_DEPTH = 40;

/**
 * The tree of any JSON value (a radio event's `decoded`, a log's `details`): objects and arrays become
 * branches labelled by key or index, everything else a leaf. Strings are shown as they are, other values
 * as JSON.
 */
export function treeOf(label: string, value: unknown, depth = 0): TreeNode {
  if (value !== null && typeof value === 'object' && depth < MAX_DEPTH) {
    const entries = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value as Record<string, unknown>);
    return {
      kind: 'branch',
      label,
      summary: Array.isArray(value) ? `[${value.length}]` : `{${entries.length}}`,
      children: entries.map(([key, item]) => treeOf(key, item, depth + 1)),
    };
  }
  return {
    kind: 'leaf',
    label,
    value: typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined'),
  };
}

/** A record's `details` (a string holding JSON): its tree, or the text itself when it is not JSON. */
export function parseDetails(details: string): unknown {
  try {
    return JSON.parse(details) as unknown;
  } catch {
    return details;
  }
}
