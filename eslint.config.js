// ESLint (flat config): typescript-eslint's recommended rules over the whole repository, who may
// import whom (ARCHITECTURE.md), no import cycle, and units small enough to hold in mind.
// Formatting is Prettier's job (`npx prettier --check .`), so no stylistic rules here.
import { builtinModules } from 'node:module'
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'
import noCycle from './scripts/eslint/no-cycle.js'
import contractSchemas from './scripts/eslint/contract-schemas.js'
import maxClassLines from './scripts/eslint/max-class-lines.js'

const ies = {
  meta: { name: 'ies' },
  rules: { ...noCycle.rules, 'contract-schemas': contractSchemas, 'max-class-lines': maxClassLines },
}

const sources = ['api', 'server', 'plugins', 'processor-lib', 'cli', 'desktop', 'scripts'].map((folder) => `${folder}/**/*.{ts,tsx,js}`)

export default tseslint.config(
  { ignores: ['**/node_modules/', '**/dist/', '.tools/', '.data/', 'templates/', 'test/processor-lib/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      // `_`-prefixed names are deliberately unused (ignored parameters, rest siblings).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Tests and scripts read JSON answers loosely; the desktop's catalog guard checks unknown JSON field by field.
    files: ['test/**', 'scripts/**', 'desktop/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // No module reaches itself through its imports, `import type` included (scripts/eslint/no-cycle.js).
    files: ['**/*.{ts,tsx}'],
    plugins: { ies },
    rules: { 'ies/no-cycle': 'error' },
  },
  {
    // Every request and response schema lives in api/src/schemas/ (@ies/api): the server and the
    // plugins build none (scripts/eslint/contract-schemas.js).
    files: ['server/**/*.ts', 'plugins/**/*.ts'],
    plugins: { ies },
    rules: { 'ies/contract-schemas': 'error' },
  },
  {
    // Units a reader can hold in mind, everything counted: a function or a React component 120 lines
    // (split a larger component into components and hooks), a class 200, a file 400.
    files: sources,
    plugins: { ies },
    rules: {
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: false, skipComments: false, IIFEs: true }],
      'ies/max-class-lines': ['error', { max: 200 }],
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
    },
  },
  ...importRules(),
)

// Who may import whom: the table in ARCHITECTURE.md ("Layers"), one entry per folder. Each entry lists
// everything refused in that folder (flat config keeps only the last matching options of a rule, so a
// nested folder repeats its parent's list). A refusal is [what, message, types]: `what` is a list of
// gitignore-style globs or a regular expression (a string); `types: true` lets `import type` through
// (a type vanishes at run time and carries the one definition of a shape).
function importRules() {
  const node = `^(node:|(${builtinModules.filter((m) => !m.startsWith('_')).join('|')})(/|$))`
  const desktop = [
    ['**/desktop/**', '@ies/desktop', '@ies/desktop/*'],
    'The desktop is a client: nothing imports it; move what others need into @ies/api or the catalog contract.',
  ]
  const cli = [
    ['**/cli/**', '@ies/cli', '@ies/cli/*'],
    'The CLI is a client: nothing imports it; what it shares with the desktop lives in @ies/api.',
  ]
  const serverGlobs = ['**/server/**', '@ies/server', '@ies/server/*', '**/plugins/**', '@ies/plugins', '@ies/plugins/*']
  const server = [serverGlobs, 'Clients reach the server over HTTP: its schemas, values and types come from @ies/api.']
  const processorLib = [
    '^(@ies/processor-lib(?!/contract/)|(\\.\\./)+(\\w+/)?processor-lib/(?!src/contract/))',
    'Clients import only the catalog contract of processor-lib (@ies/processor-lib/contract/*).',
  ]
  const serverPart = (folders, message) => [`^((\\.\\./)+|@ies/server/)(${folders.join('|')})/`, message]
  const browser = {
    'no-restricted-globals': [
      'error',
      { name: 'Buffer', message: 'Browser-safe code: use Uint8Array, atob/btoa, TextEncoder.' },
      { name: 'process', message: 'Browser-safe code: take settings as arguments.' },
    ],
  }
  const entry = (files, refusals, extra = {}) => ({
    files,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: refusals.map(([what, message, types = false]) =>
            typeof what === 'string'
              ? { regex: what, message, allowTypeImports: types }
              : { group: what, message, allowTypeImports: types },
          ),
        },
      ],
      ...extra,
    },
  })

  const processorLibRules = [
    [
      ...serverGlobs,
      '**/cli/**',
      '@ies/cli',
      '@ies/cli/*',
      '**/desktop/**',
      '@ies/desktop',
      '@ies/desktop/*',
      '**/api/**',
      '@ies/api',
      '@ies/api/*',
    ],
    'processor-lib is the library below the server, the API contract and the clients: it imports none of them (types neither); take what it needs as arguments.',
  ]
  const serverRules = [
    desktop,
    cli,
    [
      ['**/plugins/**', '@ies/plugins', '@ies/plugins/*'],
      'The server never imports plugins: receive what a plugin offers through a decorator or an argument.',
    ],
  ]
  const clientRules = [desktop, cli, server, processorLib]
  return [
    entry(
      ['api/**/*.ts'],
      [
        [node, 'The API contract runs in the browser: no Node modules; take settings and I/O as arguments.'],
        [
          [...serverGlobs, '**/cli/**', '@ies/cli/*', '**/desktop/**', '@ies/desktop/*'],
          'The API contract is the bottom of the client side: it imports no server, plugin, CLI or desktop code (types neither); move the schema or type into api/src/.',
        ],
        [processorLib[0], 'The API contract imports only the catalog contract of processor-lib (@ies/processor-lib/contract/*).'],
        ['^(?![./]|node:|@ies/|@sinclair/typebox(/|$))', 'The API contract depends on @sinclair/typebox and the catalog contract only.'],
      ],
      browser,
    ),
    entry(['processor-lib/**/*.ts'], [processorLibRules]),
    entry(
      ['processor-lib/src/contract/**/*.ts'],
      [
        processorLibRules,
        [node, 'The catalog contract runs in the browser: no Node modules; take contents as arguments.'],
        ['^\\.\\./(?!\\.\\./|contract/)', 'The catalog contract takes only types from the rest of processor-lib (import type).', true],
      ],
      browser,
    ),
    entry(['server/**/*.ts'], serverRules),
    entry(
      ['server/src/core/**/*.ts'],
      [
        ...serverRules,
        serverPart(
          ['jobs', 'templates', 'idp', 'web'],
          'Server core is the bottom layer of the server: it imports neither jobs, templates, idp nor web; take them as arguments or decorators.',
        ),
      ],
    ),
    entry(
      ['server/src/idp/**/*.ts'],
      [
        ...serverRules,
        serverPart(
          ['jobs', 'templates', 'web'],
          'The identity provider stands on server core alone: it imports neither jobs, templates nor web; take what it needs as options from app.ts.',
        ),
      ],
    ),
    entry(
      ['server/src/templates/**/*.ts'],
      [
        ...serverRules,
        serverPart(
          ['jobs', 'idp', 'web'],
          'The templates source stands on server core alone: it imports neither jobs, idp nor web; take what it needs as arguments.',
        ),
      ],
    ),
    entry(
      ['server/src/jobs/**/*.ts'],
      [
        ...serverRules,
        serverPart(['idp', 'web'], 'The job engine imports neither the identity provider nor web; take what it needs as arguments.'),
      ],
    ),
    entry(
      ['plugins/**/*.ts'],
      [
        desktop,
        cli,
        [
          '^(\\.\\./(?!\\.\\.?/)[^/]+/|(\\.\\./)+plugins/)',
          'Plugins meet through decorators (app.environments, app.catalog, ...): take only types from another plugin (import type); shared schemas live in @ies/api.',
          true,
        ],
      ],
    ),
    entry(['cli/**/*.ts'], clientRules),
    entry(['desktop/src/**/*.{ts,tsx}'], clientRules),
    entry(
      ['desktop/src/renderer/**/*.{ts,tsx}'],
      [
        ...clientRules,
        [node, 'The renderer runs in the browser: no Node modules; ask the main process through the bridge (desktop/src/shared/).'],
        [['**/main/**'], 'The renderer never imports the main process: use the bridge types in desktop/src/shared/.'],
      ],
    ),
    entry(
      ['desktop/src/shared/**/*.ts'],
      [
        ...clientRules,
        [node, 'The bridge types are shared with the renderer: no Node modules.'],
        ['^\\.\\./(?!\\.\\./)', 'The bridge types import only @ies/api and the catalog contract: declare the type here or in @ies/api.'],
      ],
    ),
    entry(
      ['desktop/src/main/**/*.ts'],
      [...clientRules, [['**/renderer/**'], 'The main process never imports the renderer: share types through desktop/src/shared/.']],
    ),
  ]
}
