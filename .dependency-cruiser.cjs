// Kassa's dependency rules, checked by dependency-cruiser 17 (`npm run deps`).
//
// The layers of src/, bottom to top (a folder may import only folders below it):
//
//   ground, lib                                    imports nothing of Kassa's outside its own folder
//   store                                          ground, lib — and the only place for kysely, pg, better-sqlite3
//   acquirer threeds wallet vault events merchants operators
//                                                  ground, lib, store and each other, without a cycle between
//                                                  folders (today: threeds and vault → acquirer)
//   payments                                       everything above this line
//   api pages console cli contract, and the files   anything; api/, pages/ and console/ reach payments/ only through
//   in src/                                        payments/operations/ (run by payments/runner/), payments/read.ts
//                                                  and payments/serialize.ts;
//                                                  contract/ derives the OpenAPI document from the request tables
//
// src/config.ts sits at the top but is imported from many folders: it is allowed from any folder
// except ground/ and lib/ for now; the `config-below-top` rule (severity info, it fails nothing)
// lists where, until it moves down (see docs/architecture.md).
//
// No cycle between folders either (`no-folder-cycles`), even where no single file closes one: two folders
// that import each other are one layer, and the types they share belong in a folder below both
// (ground/ for pure value types).
//
// Type-only imports count everywhere (tsPreCompilationDeps: true): a cycle or a layer broken by
// `import type` is still a cycle or a broken layer for the reader, and the next refactor makes it real.

const TOP_FILES = '^src/[^/]+[.]ts$';
const CONFIG = '^src/config[.]ts$';
const MIDDLE = '^src/(acquirer|threeds|wallet|vault|events|merchants|operators)/';
const ABOVE_MIDDLE = '^src/(payments|api|pages|console|cli|contract)/';
const DB_DRIVERS = '(^|/)node_modules/(@types/)?(kysely|pg|better-sqlite3)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules may not import each other in a cycle (type-only imports included). Break it by moving the shared part down a layer.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment:
        'Folders may not import each other in a cycle (type-only imports included), even when no single file does: a folder cycle makes two layers one. Break it by moving the shared part down a layer.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import must resolve to a file on disk (the code imports `./x.ts`).',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'ground-lib-self-contained',
      severity: 'error',
      comment: 'src/ground/ and src/lib/ are the floor: they import nothing of Kassa outside their own folder.',
      from: { path: '^src/(ground|lib)/' },
      to: { path: '^src/', pathNot: '^src/$1/' },
    },
    {
      name: 'db-drivers-only-in-store',
      severity: 'error',
      comment: 'Only src/store/ may import kysely, pg or better-sqlite3 (type-only imports too): everything else goes through the store.',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: DB_DRIVERS },
    },
    {
      name: 'layer-store',
      severity: 'error',
      comment: 'src/store/ may import only ground/ and lib/ (and itself).',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: ['^src/(ground|lib|store)/', CONFIG] },
    },
    {
      name: 'layer-middle',
      severity: 'error',
      comment:
        'acquirer, threeds, wallet, vault, events, merchants and operators may import ground, lib, store and each other, never payments/, api/, pages/, console/, cli/ or the top-level files.',
      from: { path: MIDDLE },
      to: { path: [ABOVE_MIDDLE, TOP_FILES], pathNot: CONFIG },
    },
    {
      name: 'layer-payments',
      severity: 'error',
      comment: 'src/payments/ may not import api/, pages/, console/, cli/, contract/ or the top-level files.',
      from: { path: '^src/payments/' },
      to: { path: ['^src/(api|pages|console|cli|contract)/', TOP_FILES], pathNot: CONFIG },
    },
    {
      name: 'payments-through-operations',
      severity: 'error',
      comment:
        'src/api/, src/pages/ and src/console/ reach src/payments/ only through payments/operations/ and the runner that runs them (payments/runner/), the readers payments/read.ts and payments/serialize.ts, the flows table (payments/flows.ts), and the ports they hand to operations (payments/ports.ts); the types of what operations take and answer may be imported from anywhere in payments/.',
      from: { path: '^src/(api|pages|console)/' },
      to: {
        path: '^src/payments/',
        pathNot: '^src/payments/(operations/|runner/|read[.]ts$|serialize[.]ts$|flows[.]ts$|ports[.]ts$)',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'api-pages-private',
      severity: 'error',
      comment: 'Only src/server.ts (which mounts them) imports src/api/ and src/pages/; inside, each imports only its own folder.',
      from: { path: '^src/', pathNot: ['^src/server[.]ts$', '^src/api/'] },
      to: { path: '^src/api/' },
    },
    {
      name: 'api-pages-private',
      severity: 'error',
      comment: 'Only src/server.ts (which mounts them) imports src/api/ and src/pages/; inside, each imports only its own folder.',
      from: { path: '^src/', pathNot: ['^src/server[.]ts$', '^src/pages/'] },
      to: { path: '^src/pages/' },
    },
    {
      name: 'api-pages-private',
      severity: 'error',
      comment: 'Only src/server.ts (which mounts it) imports src/console/; inside, it imports only its own folder.',
      from: { path: '^src/', pathNot: ['^src/server[.]ts$', '^src/console/'] },
      to: { path: '^src/console/' },
    },
    {
      name: 'config-below-top',
      severity: 'info',
      comment: 'src/config.ts is a top-level file imported from a lower folder: a candidate for moving the settings it reads down (see docs/architecture.md).',
      from: { path: '^src/[^/]+/', pathNot: '^src/(api|pages|console|cli|contract)/' },
      to: { path: CONFIG },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    moduleSystems: ['es6', 'cjs'],
    // Follow `import type` and `import { type X }` too: they are dependencies of the design.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      // The code imports `./x.ts` (allowImportingTsExtensions), which resolves as a plain file;
      // the list is for bare specifiers inside packages.
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      archi: { collapsePattern: '^src/[^/]+/|^src/[^/]+[.]ts$|node_modules/(?:@[^/]+/[^/]+|[^/]+)' },
      text: { highlightFocused: true },
    },
  },
};
