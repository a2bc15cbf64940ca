import { Code, Text } from '@mantine/core';
import { treeOf, type TreeNode } from './json-tree.ts';

function Node({ node, open }: { node: TreeNode; open: boolean }) {
  if (node.kind === 'leaf') {
    return (
      <li>
        <Text span size="sm" fw={500}>
          {node.label}
        </Text>
        : <Code>{node.value}</Code>
      </li>
    );
  }
  // <details> is a native disclosure: keyboard and screen readers handle it without help.
  return (
    <li>
      <details open={open}>
        <summary>
          <Text span size="sm" fw={500}>
            {node.label}
          </Text>{' '}
          <Text span size="xs" c="dimmed">
            {node.summary}
          </Text>
        </summary>
        <ul style={{ listStyle: 'none', paddingLeft: '1.25rem', margin: 0 }}>
          {node.children.map((child) => (
            <Node key={child.label} node={child} open={false} />
          ))}
        </ul>
      </details>
    </li>
  );
}

/** A collapsible tree of a JSON value; the first level is open. */
export function JsonTree({ label, value }: { label: string; value: unknown }) {
  return (
    <ul style={{ listStyle: 'none', paddingLeft: 0, margin: 0 }} aria-label={label}>
      <Node node={treeOf(label, value)} open />
    </ul>
  );
}
