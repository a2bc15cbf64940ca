import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

// Every repository path a document names in backticks, in a fenced block or as a link target must exist:
// a doc that names a file the code no longer has is describing something else than what is.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROOTS = ['src', 'test', 'bench', 'scripts', 'native', 'deploy', 'ui'];
const PATH = new RegExp(`^(?:\\./)?(?:${ROOTS.join('|')})/[^\\s]*`);

// The record of past measurement passes names the files of each pass's day, as it was written then.
const RECORDS = new Set(['docs/performance/history.md']);

/** A path as named, or undefined for a glob, a placeholder or anything else that names no one file. */
function pathOf(token: string): string | undefined {
  const trimmed = token
    .replace(/^[("'[]+/, '')
    .replace(/[)"',;:.\]]+$/, '')
    .replace(/#.*$/, '')
    .replace(/:\d+(?:-\d+)?$/, '');
  if (!PATH.test(trimmed)) return undefined;
  if (/[*<>{}$|]|\.\.\./.test(trimmed)) return undefined;
  return normalize(trimmed);
}

/** Line number of each repository path named in a Markdown text, relative to the repository root. */
function namedPaths(markdown: string, docPath: string): { path: string; line: number }[] {
  const found: { path: string; line: number }[] = [];
  const lineAt = (offset: number) => markdown.slice(0, offset).split('\n').length;
  const tokens = (text: string, offset: number) => {
    for (const match of text.matchAll(/\S+/g)) {
      const path = pathOf(match[0]);
      if (path !== undefined) found.push({ path, line: lineAt(offset + match.index) });
    }
  };
  // Fenced blocks first (their commands name files too), blanked so their fences pair no inline spans.
  const fence = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm;
  for (const match of markdown.matchAll(fence)) tokens(match[0], match.index);
  const prose = markdown.replace(fence, (block) => block.replace(/[^\n]/g, ' '));
  for (const match of prose.matchAll(/(`+)([\s\S]+?)\1/g)) tokens(match[2]!, match.index + match[1]!.length);
  // Link targets are relative to the document, unless they start at a root.
  for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!.replace(/#.*$/, '');
    if (target === '' || /^[a-z]+:/i.test(target)) continue;
    const path = relative(ROOT, join(ROOT, dirname(docPath), target));
    if (pathOf(path) !== undefined) found.push({ path: normalize(path), line: lineAt(match.index) });
  }
  return found;
}

function documents(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', ...docs.sort()].filter((doc) => !RECORDS.has(doc));
}

describe('paths named in the documentation', () => {
  it('finds paths in backticks, fenced blocks and links, and skips globs and placeholders', () => {
    const text = [
      'See `src/a.ts`, `npx tsx bench/b.ts --x 1` and [c](../test/c.test.ts#part).',
      '```sh',
      'node scripts/d.ts',
      '```',
      'Not `test/**/*.test.ts`, `src/resources/<name>/`, [e](https://example.org/src/e.ts) nor src/f.ts.',
      'A span over lines: `npx tsx',
      'native/g.c:12`.',
    ].join('\n');
    assert.deepEqual(
      namedPaths(text, 'docs/x.md').sort((a, b) => a.path.localeCompare(b.path)),
      [
        { path: 'bench/b.ts', line: 1 },
        { path: 'native/g.c', line: 7 },
        { path: 'scripts/d.ts', line: 3 },
        { path: 'src/a.ts', line: 1 },
        { path: 'test/c.test.ts', line: 1 },
      ],
    );
  });

  for (const doc of documents()) {
    it(`${doc} names only files that exist`, () => {
      const missing = namedPaths(readFileSync(join(ROOT, doc), 'utf8'), doc)
        .filter(({ path }) => !existsSync(join(ROOT, path)))
        .map(({ path, line }) => `${doc}:${line} ${path}`);
      assert.deepEqual(missing, []);
    });
  }
});
