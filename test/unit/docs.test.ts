/**
 * The documentation is true of a fresh clone (docs/testing.md "What the docs test checks"): README.md,
 * examples/README.md and docs/*.md name no absolute path of the machine they were written on, cite
 * only repository files that exist, link only to files that exist, and their TypeScript and
 * JavaScript snippets compile against the code as it is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { pageLanguages } from '../../src/pages/i18n.ts';
import { consoleTranslations } from '../../src/console/i18n.ts';

const root = path.resolve(import.meta.dirname, '../..');

interface Page {
  file: string;
  text: string;
  /** The text without its fenced code blocks: inline citations and links live here. */
  prose: string;
}

const pages: Page[] = [
  'README.md',
  'examples/README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
].map((file) => {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return { file, text, prose: text.replace(/^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1\2(?![`~])[^\n]*$/gm, '') };
});

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

test('no page names an absolute path of the machine it was written on', () => {
  // An absolute path starts after a space, a quote, a bracket or a backtick: "work/home/mobile" is a phrase.
  const machinePath = /(?<![\w/.~-])(\/work\/|\/home\/|\/Users\/|\/root\/|[A-Z]:\\)[^\s`'")\]]*/g;
  const found = pages.flatMap((page) => [...page.text.matchAll(machinePath)].map((match) => `${page.file}:${lineOf(page.text, match.index)}: ${match[0]}`));
  assert.deepEqual(found, []);
});

/** Every file of the repository under `folder`, as paths relative to the root, for globs and src-relative citations. */
const filesUnder = (folder: string) =>
  fs
    .readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));

const globToRegExp = (glob: string) => new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);

/** Folders a citation is read from the root of the repository with, as docs write them. */
const rootFolders = ['src', 'test', 'docs', 'scripts', 'clients', 'examples', 'bench', 'bin', '.ci'];
/** The folders of src/: docs/architecture.md cites its files from there (`payments/flows.ts`, `payments/runner/run.ts`). */
const srcFolders = fs
  .readdirSync(path.join(root, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** Why a backticked citation names no file or folder of the repository, or undefined when it does (or is no citation). */
function citationMissing(citation: string): string | undefined {
  // `test/api/x.test.ts:40`, `docs/api.md#problems`: the file is what must exist.
  const cited = citation.replace(/(:\d+(-\d+)?|#[\w-]+)$/, '');
  if (!/^[\w.@-]+(\/[\w.@*{},-]+)+\/?$/.test(cited)) return undefined;
  const first = cited.split('/')[0];
  if (rootFolders.includes(first)) {
    if (cited.includes('*')) return filesUnder(first).some((file) => globToRegExp(cited).test(file)) ? undefined : 'no file matches the pattern';
    return fs.existsSync(path.join(root, cited)) ? undefined : 'no such file';
  }
  if (srcFolders.includes(first) && /\.\w+$/.test(cited)) {
    const matches = cited.includes('*') ? (file: string) => globToRegExp(`src/${cited}`).test(file) : (file: string) => file.endsWith(`/${cited}`);
    return filesUnder('src').some(matches) ? undefined : 'no such file in src/';
  }
  return undefined;
}

test('every repository file a page cites in backticks exists (globs match a file)', () => {
  const missing = pages.flatMap((page) =>
    [...page.prose.matchAll(/`([^`\n]+)`/g)].flatMap((match) => {
      const why = citationMissing(match[1]);
      return why ? [`${page.file}: \`${match[1]}\`: ${why}`] : [];
    }),
  );
  assert.deepEqual(missing, []);
});

test('every relative link of a page reaches a file of the repository', () => {
  const missing = pages.flatMap((page) =>
    [...page.prose.matchAll(/\]\(([^)\s]+)\)/g)].flatMap((match) => {
      const target = match[1];
      if (/^([a-z]+:|#)/.test(target)) return [];
      return fs.existsSync(path.join(root, path.dirname(page.file), decodeURI(target.replace(/#.*$/, '')))) ? [] : [`${page.file}: (${target})`];
    }),
  );
  assert.deepEqual(missing, []);
});

test("the README's map of src/ names the languages the customer pages and the console speak", () => {
  const readme = pages.find((page) => page.file === 'README.md')!.text;
  // The languages as the map lists them (English first, in any order after it), against the catalogues the code loads.
  const listed = (folder: string) => new RegExp(`^  ${folder}/ .*; ([a-z/]+)\\)`, 'm').exec(readme)?.[1]?.split('/').sort();
  assert.deepEqual(listed('pages'), [...pageLanguages].sort());
  assert.deepEqual(listed('console'), Object.keys(consoleTranslations).sort());
});

interface Snippet {
  page: string;
  line: number;
  language: 'ts' | 'js';
  code: string;
  excerpt: boolean;
}

/** The fenced TypeScript and JavaScript blocks of the pages; an excerpt is one whose fence follows `<!-- excerpt -->`. */
const snippets: Snippet[] = pages.flatMap((page) =>
  [...page.text.matchAll(/^```(ts|typescript|js|javascript|mjs)[ \t]*\n([\s\S]*?)^```[ \t]*$/gm)].map((match) => ({
    page: page.file,
    line: lineOf(page.text, match.index),
    language: match[1].startsWith('t') ? ('ts' as const) : ('js' as const),
    code: match[2],
    excerpt: /<!--\s*excerpt\s*-->\s*$/.test(page.text.slice(0, match.index)),
  })),
);

/**
 * Compiles every snippet as a module of its own in the repository's root (so its imports resolve as
 * a shop's would: `@kassa/client` is clients/typescript, packages come from node_modules). TypeScript
 * gets the project's strictness without the unused-name rules (an example may show a value it does
 * not use); JavaScript is checked as plain JavaScript is written: names, members and calls, no types.
 */
function compile(all: Snippet[]): string[] {
  return [
    ...compileAs(
      all.filter((snippet) => snippet.language === 'ts'),
      'ts',
      { strict: true },
    ),
    ...compileAs(
      all.filter((snippet) => snippet.language === 'js'),
      'mjs',
      { strict: false },
    ),
  ];
}

function compileAs(some: Snippet[], extension: string, strictness: ts.CompilerOptions): string[] {
  const virtual = new Map(some.map((snippet, index) => [path.join(root, `.docs-snippet-${index}.${extension}`), snippet]));
  const options: ts.CompilerOptions = {
    ...strictness,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    esModuleInterop: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    allowJs: true,
    checkJs: true,
    noEmit: true,
    types: ['node'],
    baseUrl: root,
    paths: { '@kassa/client': ['clients/typescript/src/index.ts'] },
  };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(file)?.code ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const snippet = virtual.get(file);
    return snippet ? ts.createSourceFile(file, snippet.code, language) : getSourceFile.call(host, file, language, ...rest);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  return [...virtual].flatMap(([file, snippet]) => {
    const source = program.getSourceFile(file)!;
    const diagnostics = snippet.excerpt
      ? program.getSyntacticDiagnostics(source)
      : [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    return diagnostics.map((diagnostic) => {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return `${snippet.page}:${snippet.line + 1 + line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
    });
  });
}

test('every TypeScript and JavaScript snippet of the pages compiles (an excerpt, marked <!-- excerpt -->, is only parsed)', () => {
  assert.ok(snippets.length > 0, 'the pages have snippets');
  assert.deepEqual(compile(snippets), []);
});

test('the checks catch what they are for', () => {
  assert.equal(citationMissing('src/no-such-file.ts'), 'no such file');
  assert.equal(citationMissing('test/acquirer/adyen*.test.ts'), undefined);
  assert.equal(citationMissing('test/nothing/*.test.ts'), 'no file matches the pattern');
  assert.equal(citationMissing('payments/runner/run.ts'), undefined, 'a file of a folder of src/, cited from src/');
  assert.equal(citationMissing('payments/no-such.ts'), 'no such file in src/');
  assert.equal(citationMissing('vendor/autoload.php'), undefined, 'not a folder of this repository: no citation');
  const broken = { page: 'docs/example.md', line: 1, language: 'ts' as const, code: "const n: number = 'one';\nhelperNeverDefined();\n", excerpt: false };
  assert.equal(compile([broken]).length, 2);
  assert.deepEqual(compile([{ ...broken, excerpt: true }]), []);
  assert.equal(compile([{ ...broken, code: 'const = ;', excerpt: true }]).length > 0, true);
  assert.equal(compile([{ ...broken, language: 'js', code: 'helperNeverDefined();\n' }]).length, 1);
});
