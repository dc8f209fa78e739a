// Module hooks of a batch (scripts/test/batch.ts): a test file's (or its helper's) `import 'tap'`
// resolves to scripts/test/file-tap.ts, the file's own subtest. file-tap.ts itself and the
// packages get tap.
import type { ResolveHook } from 'node:module'

const FILE_TAP = new URL('./file-tap.ts', import.meta.url).href

export const resolve: ResolveHook = (specifier, context, next) => {
  const parent = context.parentURL ?? ''
  if (specifier === 'tap' && parent !== FILE_TAP && !parent.includes('/node_modules/')) return { url: FILE_TAP, shortCircuit: true }
  return next(specifier, context)
}
