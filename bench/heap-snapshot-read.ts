// What holds a V8 heap snapshot's objects (bench/registration.ts --heap-prof writes one per run): each
// object is counted under its holder, the nearest closure variable on its shortest path of strong
// references from the root (`last` of a cache's closure, `bySupi` of a store's), or `(code)` for compiled
// code, scripts and their sources; two snapshots (two trees after the same run) are compared holder by
// holder. Shortest paths (breadth first from the root) stand in for the dominator tree: an object held
// twice is counted once, under the nearer holder.
//
// Run: npx tsx bench/heap-snapshot-read.ts A.heapsnapshot [B.heapsnapshot] [--top N (30)]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface HeapSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Bytes and objects per holder. */
export type Holders = Map<string, { bytes: number; objects: number }>;

export function holders(snapshot: HeapSnapshot): Holders {
  const { meta } = snapshot.snapshot;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const [type, name, selfSize, edgeCount] = ['type', 'name', 'self_size', 'edge_count'].map((field) =>
    meta.node_fields.indexOf(field),
  ) as [number, number, number, number];
  const [edgeType, edgeName, toNode] = ['type', 'name_or_index', 'to_node'].map((field) =>
    meta.edge_fields.indexOf(field),
  ) as [number, number, number];
  const { nodes, edges, strings } = snapshot;
  const count = nodes.length / nodeFields;
  const firstEdge = new Uint32Array(count);
  for (let node = 0, edge = 0; node < count; node++) {
    firstEdge[node] = edge;
    edge += nodes[node * nodeFields + edgeCount]! * edgeFields;
  }
  // The holder each object takes from its parent on a shortest strong path: a closure variable's name
  // where the path enters one, else the parent's.
  const holder = new Array<string | undefined>(count);
  const seen = new Uint8Array(count);
  seen[0] = 1;
  for (let level = [0]; level.length > 0;) {
    const next: number[] = [];
    for (const node of level) {
      for (let j = 0, e = firstEdge[node]!; j < nodes[node * nodeFields + edgeCount]!; j++, e += edgeFields) {
        const kind = edgeTypes[edges[e + edgeType]!];
        if (kind === 'weak' || kind === 'shortcut') continue;
        const to = edges[e + toNode]! / nodeFields;
        if (seen[to] === 1) continue;
        seen[to] = 1;
        holder[to] = kind === 'context' ? strings[edges[e + edgeName]!] : holder[node];
        next.push(to);
      }
    }
    level = next;
  }
  const result: Holders = new Map();
  for (let node = 0; node < count; node++) {
    const kind = nodeTypes[nodes[node * nodeFields + type]!]!;
    const code = kind === 'code' || strings[nodes[node * nodeFields + name]!]?.startsWith('system / Script');
    const key = code ? '(code)' : (holder[node] ?? '(no closure variable)');
    const entry = result.get(key) ?? { bytes: 0, objects: 0 };
    entry.bytes += nodes[node * nodeFields + selfSize]!;
    entry.objects++;
    result.set(key, entry);
  }
  return result;
}

const print = (line: string): void => void process.stdout.write(`${line}\n`);

const read = (path: string): Holders => holders(JSON.parse(readFileSync(path, 'utf8')) as HeapSnapshot);

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '30' } },
  });
  const [first, second] = positionals;
  if (first === undefined) throw new Error('usage: heap-snapshot-read.ts A.heapsnapshot [B.heapsnapshot]');
  const a = read(first);
  const b: Holders =
    second === undefined ? new Map<string, { bytes: number; objects: number }>() : read(second);
  const rows = [...new Set([...a.keys(), ...b.keys()])].map((key) => {
    const x = a.get(key) ?? { bytes: 0, objects: 0 };
    const y = b.get(key) ?? { bytes: 0, objects: 0 };
    return { key, x, y, change: second === undefined ? x.bytes : y.bytes - x.bytes };
  });
  rows.sort((p, q) => Math.abs(q.change) - Math.abs(p.change));
  const total = (holders: Holders) => [...holders.values()].reduce((sum, h) => sum + h.bytes, 0);
  print(`total: ${total(a)} bytes` + (second === undefined ? '' : ` -> ${total(b)} bytes`));
  print('bytes (objects)' + (second === undefined ? '' : ' A -> B, change') + '  holder');
  for (const { key, x, y, change } of rows.slice(0, Number(values.top)))
    print(
      `${x.bytes} (${x.objects})` +
        (second === undefined ? '' : ` -> ${y.bytes} (${y.objects}), ${change > 0 ? '+' : ''}${change}`) +
        `  ${key}`,
    );
}
