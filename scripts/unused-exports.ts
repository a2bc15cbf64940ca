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
 * specifications, not their callers. Exit status 0 either way: this is a report, not a check.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['src', 'test', 'bench', 'scripts', 'ui'];
const SOURCE = /\.(?:ts|tsx|mts|js|mjs)$/;

/** Every source file under the scanned directories, relative to the repository root. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir))) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (SOURCE.test(name) && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const dir of SCANNED) if (existsSync(join(ROOT, dir))) walk(dir);
  return files.sort();
}

/** The file a relative module specifier names, or undefined for a package or a file not scanned. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = join(dirname(from), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    `${base}.ts`,
    `${base}.tsx`,
    join(base, 'index.ts'),
  ];
  return candidates.find((path) => existsSync(join(ROOT, path)) && statSync(join(ROOT, path)).isFile());
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

function analyse(path: string): ModuleFacts {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const kind = path.endsWith('x')
    ? ts.ScriptKind.TSX
    : path.endsWith('.ts')
      ? ts.ScriptKind.TS
      : ts.ScriptKind.JS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const facts: ModuleFacts = { exports: [], uses: new Map(), source };
  const use = (specifier: string, name: string): void => {
    const target = resolveSpecifier(path, specifier);
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

const files = sourceFiles();
const facts = new Map(files.map((path) => [path, analyse(path)]));
/** For each module, the names others take from it and whether any importer is outside test/. */
const importedBy = new Map<string, Map<string, Set<string>>>();
for (const [path, module] of facts) {
  for (const [target, names] of module.uses) {
    const byName = importedBy.get(target) ?? new Map<string, Set<string>>();
    for (const name of names) byName.set(name, (byName.get(name) ?? new Set()).add(path));
    importedBy.set(target, byName);
  }
}

const generated = (path: string) => path.split('/').includes('generated');
const rows: string[] = [];
let generatedUnused = 0;
const counts = { unused: 0, local: 0, 'test-only': 0 };
for (const [path, module] of facts) {
  if (!path.startsWith('src/')) continue;
  const byName = importedBy.get(path) ?? new Map<string, Set<string>>();
  const all = byName.get('*');
  for (const exported of module.exports) {
    const importers = new Set([...(byName.get(exported.name) ?? []), ...(all ?? [])]);
    if (importers.size === 0) {
      if (generated(path)) {
        generatedUnused++;
        continue;
      }
      const kind = occurrences(module.source, exported.name) > 1 ? 'local' : 'unused';
      counts[kind]++;
      rows.push(`${kind.padEnd(9)} ${path}:${exported.line} ${exported.name}`);
    } else if (!generated(path) && [...importers].every((importer) => importer.startsWith('test/'))) {
      counts['test-only']++;
      rows.push(`test-only ${path}:${exported.line} ${exported.name}`);
    }
  }
}
process.stdout.write(`${rows.sort().join('\n')}\n`);
process.stdout.write(
  `\n${counts.unused} unused, ${counts.local} used only in their own file, ` +
    `${counts['test-only']} only imported by tests; ` +
    `${generatedUnused} unused exports of generated files not listed.\n`,
);
