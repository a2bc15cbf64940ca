/**
 * Lists the exports of src/**\/*.ts that no other module imports: `npx tsx scripts/unused-exports.ts`.
 *
 * Every TypeScript and JavaScript file of src/, test/, bench/, scripts/ and ui/ is parsed (syntax only,
 * with the `typescript` compiler API) and its imports resolved to files: named imports and re-exports use
 * the names they list, a namespace import, `export *` or a dynamic `import()` uses every export of its
 * module. An export nothing imports is listed as
 * - `unused`: not referred to in its own file either (dead code, unless an entry point uses it), or
 * - `local`: used in its own file only (the `export` keyword is what is unused);
 * and an export only test/ imports as `test-only`. Files under a `generated/` directory (the ASN.1
 * codecs, written by scripts/asn1-generate.ts) are counted apart and not listed: their exports follow the
 * specifications, not their callers.
 *
 * Without arguments it is a report (exit status 0). With `--check` (part of `npm run lint`) it exits 1
 * when an `unused` or `local` export is not in scripts/unused-exports-allowed.txt, or when a line of that
 * file matches nothing any more; `test-only` stays a report.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ALLOWLIST = 'scripts/unused-exports-allowed.txt';
const SCANNED = ['src', 'test', 'bench', 'scripts', 'ui'];
const SOURCE = /\.(?:ts|tsx|mts|js|mjs)$/;

/** Every source file under the scanned directories, relative to the repository root. */
function sourceFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir))) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (SOURCE.test(name) && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const dir of SCANNED) if (existsSync(join(root, dir))) walk(dir);
  return files.sort();
}

/** The file a relative module specifier names, or undefined for a package or a file not scanned. */
function resolveSpecifier(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = join(dirname(from), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    `${base}.ts`,
    `${base}.tsx`,
    join(base, 'index.ts'),
  ];
  return candidates.find((path) => existsSync(join(root, path)) && statSync(join(root, path)).isFile());
}

interface Exported {
  name: string;
  line: number;
  /** The identifier's declaration, to count its uses in its own file. */
  declaration: ts.Node;
}

interface ModuleFacts {
  exports: Exported[];
  /** Names this module takes from each other module; '*' for all of them. */
  uses: Map<string, Set<string>>;
  source: ts.SourceFile;
}

function hasExportKeyword(node: ts.Node): boolean {
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  );
}

function analyse(root: string, path: string): ModuleFacts {
  const text = readFileSync(join(root, path), 'utf8');
  const kind = path.endsWith('x')
    ? ts.ScriptKind.TSX
    : path.endsWith('.ts')
      ? ts.ScriptKind.TS
      : ts.ScriptKind.JS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const facts: ModuleFacts = { exports: [], uses: new Map(), source };
  const use = (specifier: string, name: string): void => {
    const target = resolveSpecifier(root, path, specifier);
    if (target === undefined) return;
    const names = facts.uses.get(target) ?? new Set<string>();
    names.add(name);
    facts.uses.set(target, names);
  };
  const exported = (name: ts.Identifier | ts.StringLiteral | undefined, declaration: ts.Node): void => {
    if (name === undefined) return;
    const line = source.getLineAndCharacterOfPosition(declaration.getStart(source)).line + 1;
    facts.exports.push({ name: name.text, line, declaration: name });
  };

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const specifier = node.moduleSpecifier.text;
      const clause = node.importClause;
      if (clause === undefined) use(specifier, '*side-effect*');
      else {
        if (clause.name !== undefined) use(specifier, 'default');
        const bindings = clause.namedBindings;
        if (bindings !== undefined && ts.isNamespaceImport(bindings)) use(specifier, '*');
        else if (bindings !== undefined)
          for (const element of bindings.elements)
            use(specifier, (element.propertyName ?? element.name).text);
      }
    } else if (ts.isExportDeclaration(node)) {
      const specifier =
        node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)
          ? node.moduleSpecifier.text
          : undefined;
      if (node.exportClause === undefined) {
        if (specifier !== undefined) use(specifier, '*');
      } else if (ts.isNamedExports(node.exportClause)) {
        for (const element of node.exportClause.elements) {
          if (specifier !== undefined) use(specifier, (element.propertyName ?? element.name).text);
          exported(element.name, element);
        }
      } else if (specifier !== undefined) use(specifier, '*');
    } else if (ts.isExportAssignment(node)) {
      facts.exports.push({ name: 'default', line: 0, declaration: node });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      use(node.arguments[0].text, '*');
    } else if (
      // new URL('./worker.ts', import.meta.url): a module started by path (workers, child processes).
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'URL' &&
      node.arguments?.[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      use(node.arguments[0].text, '*');
    } else if (hasExportKeyword(node)) {
      const isDefault = (ts.getModifiers(node as ts.HasModifiers) ?? []).some(
        (m) => m.kind === ts.SyntaxKind.DefaultKeyword,
      );
      if (isDefault) facts.exports.push({ name: 'default', line: 0, declaration: node });
      else if (ts.isVariableStatement(node)) {
        for (const declaration of node.declarationList.declarations)
          if (ts.isIdentifier(declaration.name)) exported(declaration.name, declaration);
      } else if (
        ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isEnumDeclaration(node)
      ) {
        exported(node.name, node);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return facts;
}

/** How many times `name` occurs as an identifier in the file, its declaration included. */
function occurrences(source: ts.SourceFile, name: string): number {
  let count = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === name) count++;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return count;
}

export type Kind = 'unused' | 'local' | 'test-only';

export interface Finding {
  kind: Kind;
  /** Relative to the repository root. */
  path: string;
  line: number;
  name: string;
}

/** The exports of `root`/src that nothing, or only their own file, or only test/ uses. */
export function findUnusedExports(root: string): { findings: Finding[]; generatedUnused: number } {
  const files = sourceFiles(root);
  const facts = new Map(files.map((path) => [path, analyse(root, path)]));
  /** For each module, the names others take from it, and which modules take each. */
  const importedBy = new Map<string, Map<string, Set<string>>>();
  for (const [path, module] of facts) {
    for (const [target, names] of module.uses) {
      const byName = importedBy.get(target) ?? new Map<string, Set<string>>();
      for (const name of names) byName.set(name, (byName.get(name) ?? new Set()).add(path));
      importedBy.set(target, byName);
    }
  }

  const generated = (path: string) => path.split('/').includes('generated');
  const findings: Finding[] = [];
  let generatedUnused = 0;
  for (const [path, module] of facts) {
    if (!path.startsWith('src/')) continue;
    const byName = importedBy.get(path) ?? new Map<string, Set<string>>();
    const all = byName.get('*');
    for (const exported of module.exports) {
      const importers = new Set([...(byName.get(exported.name) ?? []), ...(all ?? [])]);
      const at = { path, line: exported.line, name: exported.name };
      if (importers.size === 0) {
        if (generated(path)) generatedUnused++;
        else
          findings.push({ kind: occurrences(module.source, exported.name) > 1 ? 'local' : 'unused', ...at });
      } else if (!generated(path) && [...importers].every((importer) => importer.startsWith('test/'))) {
        findings.push({ kind: 'test-only', ...at });
      }
    }
  }
  findings.sort((a, b) => a.kind.localeCompare(b.kind) || a.path.localeCompare(b.path) || a.line - b.line);
  return { findings, generatedUnused };
}

/**
 * The allowlist's entries, `<path> <name> <reason>` a line (`#` starts a comment), keyed `<path> <name>`;
 * a line without a reason is an error.
 */
export function readAllowlist(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const [path, name, ...reason] = line.split(/\s+/);
    if (reason.length === 0) throw new Error(`${ALLOWLIST}:${index + 1}: "<path> <name> <reason>" expected`);
    entries.set(`${path} ${name}`, reason.join(' '));
  }
  return entries;
}

/** What `--check` fails on: `unused` and `local` exports not allowed, and allowlist lines matching none. */
export function checkProblems(findings: readonly Finding[], allowed: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  const matched = new Set<string>();
  for (const finding of findings) {
    if (finding.kind === 'test-only') continue;
    const key = `${finding.path} ${finding.name}`;
    if (allowed.has(key)) matched.add(key);
    else
      problems.push(
        finding.kind === 'local'
          ? `${finding.path}:${finding.line} ${finding.name}: exported but used only in its own file: drop \`export\``
          : `${finding.path}:${finding.line} ${finding.name}: exported and used nowhere: delete it`,
      );
  }
  for (const key of allowed.keys())
    if (!matched.has(key))
      problems.push(`${ALLOWLIST}: "${key}" is no longer an unused or local export: remove the line`);
  return problems;
}

function main(): void {
  const { findings, generatedUnused } = findUnusedExports(ROOT);
  if (process.argv.includes('--check')) {
    const problems = checkProblems(findings, readAllowlist(readFileSync(join(ROOT, ALLOWLIST), 'utf8')));
    if (problems.length > 0) {
      process.stderr.write(`unused exports (scripts/unused-exports.ts --check):\n${problems.join('\n')}\n`);
      process.exit(1);
    }
    return;
  }
  const counts = { unused: 0, local: 0, 'test-only': 0 };
  for (const finding of findings) counts[finding.kind]++;
  const rows = findings.map((f) => `${f.kind.padEnd(9)} ${f.path}:${f.line} ${f.name}`);
  process.stdout.write(`${rows.join('\n')}\n`);
  process.stdout.write(
    `\n${counts.unused} unused, ${counts.local} used only in their own file, ` +
      `${counts['test-only']} only imported by tests; ` +
      `${generatedUnused} unused exports of generated files not listed.\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
