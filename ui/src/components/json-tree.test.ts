import { describe, expect, it } from 'vitest';
import { parseDetails, treeOf } from './json-tree.ts';

describe('treeOf', () => {
  it('makes branches of objects and arrays, labelled by key and index', () => {
    // The shape of a decoded NGAP message (management API: Radio event, single read).
    const decoded = {
      successful_outcome: { procedure_code: 21, criticality: 'reject', value: { ies: [{ id: 96 }] } },
    };
    expect(treeOf('decoded', decoded)).toEqual({
      kind: 'branch',
      label: 'decoded',
      summary: '{1}',
      children: [
        {
          kind: 'branch',
          label: 'successful_outcome',
          summary: '{3}',
          children: [
            { kind: 'leaf', label: 'procedure_code', value: '21' },
            { kind: 'leaf', label: 'criticality', value: 'reject' },
            {
              kind: 'branch',
              label: 'value',
              summary: '{1}',
              children: [
                {
                  kind: 'branch',
                  label: 'ies',
                  summary: '[1]',
                  children: [
                    {
                      kind: 'branch',
                      label: '0',
                      summary: '{1}',
                      children: [{ kind: 'leaf', label: 'id', value: '96' }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it('shows strings as they are and other leaves as JSON', () => {
    expect(treeOf('a', 'text')).toEqual({ kind: 'leaf', label: 'a', value: 'text' });
    expect(treeOf('a', null)).toEqual({ kind: 'leaf', label: 'a', value: 'null' });
    expect(treeOf('a', true)).toEqual({ kind: 'leaf', label: 'a', value: 'true' });
  });

  it('stops branching at a bounded depth', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i += 1) deep = [deep];
    let node = treeOf('root', deep);
    let depth = 0;
    while (node.kind === 'branch') {
      const [child] = node.children;
      if (!child) break;
      node = child;
      depth += 1;
    }
    expect(depth).toBe(40);
    expect(node.kind).toBe('leaf');
  });
});

describe('parseDetails', () => {
  it('parses JSON and keeps other text', () => {
    expect(parseDetails('{"cause":"ok"}')).toEqual({ cause: 'ok' });
    expect(parseDetails('not json')).toBe('not json');
  });
});
