// ESLint (flat config): typescript-eslint's recommended rules over the whole repository.
// Formatting is Prettier's job (`npx prettier --check .`), so no stylistic rules here.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/node_modules/', '**/dist/', '.tools/', '.data/', 'templates/', 'test/processor/fixtures/'] },
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
  // Who may import whom (ARCHITECTURE.md). Type-only imports are allowed where noted: they vanish at
  // run time and carry the one definition of a type (TypeBox schemas, the catalog contract).
  ...importRules(),
)

function importRules() {
  const rule = (patterns, allowTypeImports = false) => ({
    '@typescript-eslint/no-restricted-imports': [
      'error',
      // A pattern is a list of gitignore-style globs, or a regular expression (a string).
      {
        patterns: patterns.map(([match, message]) =>
          typeof match === 'string' ? { regex: match, message, allowTypeImports } : { group: match, message, allowTypeImports },
        ),
      },
    ],
  })
  const noDesktop = [['**/desktop/**', '@ies/desktop', '@ies/desktop/*'], 'The desktop is a client: nothing imports it.']
  const serverCode = ['**/server/**', '@ies/server', '@ies/server/*', '**/plugins/**', '@ies/plugins', '@ies/plugins/*']
  const noServer = [serverCode, 'Clients reach the server over HTTP: its values and types come from @ies/api.']
  const noCli = [['**/cli/**', '@ies/cli', '@ies/cli/*'], 'The CLI is a client: what it shares with the desktop lives in @ies/api.']
  return [
    {
      files: ['server/**/*.ts'],
      rules: rule([
        noDesktop,
        [
          ['**/plugins/**', '@ies/plugins', '@ies/plugins/*'],
          'Server core never imports plugins: receive it through a decorator or an argument.',
        ],
      ]),
    },
    {
      files: ['plugins/**/*.ts'],
      rules: rule(
        [
          noDesktop,
          [
            ['../*/*', '!../*/schemas.ts'],
            "Plugins meet through decorators (app.environments, app.catalog, ...): import only another plugin's schemas or types.",
          ],
        ],
        true,
      ),
    },
    { files: ['processor-lib/**/*.ts'], rules: rule([noDesktop]) },
    { files: ['cli/**/*.ts'], rules: rule([noDesktop, noServer]) },
    {
      // The desktop app (renderer and Electron main process; its build scripts may use all of processor-lib) reads the API through @ies/api and the catalog through its contract.
      files: ['desktop/src/**/*.{ts,tsx}'],
      rules: rule([
        noServer,
        noCli,
        ['^(@ies/processor-lib(?!/contract/)|\\..*/processor-lib/)', 'The desktop imports only the catalog contract of processor-lib.'],
      ]),
    },
    {
      // The API contract's client side runs in the browser too: no Node module, nothing of another workspace but
      // types (the server's TypeBox schemas, the catalog document).
      files: ['api/**/*.ts'],
      rules: {
        ...rule(
          [
            [['node:*'], 'The API contract runs in the browser: no Node modules.'],
            [
              [
                ...serverCode,
                '**/cli/**',
                '@ies/cli',
                '@ies/cli/*',
                '**/desktop/**',
                '@ies/desktop',
                '@ies/desktop/*',
                '@ies/processor-lib',
                '@ies/processor-lib/*',
              ],
              'The API contract imports nothing of the other workspaces but types.',
            ],
          ],
          true,
        ),
        'no-restricted-globals': [
          'error',
          { name: 'Buffer', message: 'Browser-safe: use Uint8Array, atob/btoa, TextEncoder.' },
          { name: 'process', message: 'Browser-safe: take settings as arguments.' },
        ],
      },
    },
    {
      // The catalog contract runs in the browser too: no Node module, nothing of the library outside it but types.
      files: ['processor-lib/src/contract/**/*.ts'],
      rules: rule([[['node:*', '../*'], 'The catalog contract has no Node dependencies (types from ../ only).']], true),
    },
  ]
}
