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
      { patterns: patterns.map(([group, message]) => ({ group, message, allowTypeImports })) },
    ],
  })
  const noDesktop = [['**/desktop/**', '@ies/desktop', '@ies/desktop/*'], 'The desktop is a client: nothing imports it.']
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
    { files: ['processor-lib/**/*.ts', 'cli/**/*.ts'], rules: rule([noDesktop]) },
    {
      // The catalog contract runs in the browser too: no Node module, nothing of the library outside it but types.
      files: ['processor-lib/src/contract/**/*.ts'],
      rules: rule([[['node:*', '../*'], 'The catalog contract has no Node dependencies (types from ../ only).']], true),
    },
  ]
}
