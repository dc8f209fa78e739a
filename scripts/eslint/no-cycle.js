// ESLint rule `ies/no-cycle`: no module reaches itself through its imports, type-only imports
// included. import-x's `no-cycle` skips `import type` edges by design (a type cycle has no run-time
// effect), but a type cycle still ties two modules so that neither can be read, moved or tested
// without the other, which is what ARCHITECTURE.md forbids.
//
// Resolution is TypeScript's own (`ts.resolveModuleName` with the repository's tsconfig.json): the
// workspace aliases (`@ies/api/*`, `@ies/server/*`, `@ies/processor-lib/*`) resolve through their
// package `exports` to the real source file, `.ts` extensions as written. The import graph of the
// files on disk is read once per file (re-read when its mtime changes); the linted file's own
// imports come from the text being linted.
import { statSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

const compilerOptions = (() => {
  const configPath = ts.findConfigFile(process.cwd(), ts.sys.fileExists, 'tsconfig.json')
  if (!configPath) return { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile)
  return ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(configPath)).options
})()

const sourceFile = /\.(ts|tsx|mts|cts|js|mjs|jsx)$/

/** The repository file an import names, or undefined for a package, a declaration file or nothing. */
function resolve(specifier, fromFile) {
  const { resolvedModule } = ts.resolveModuleName(specifier, fromFile, compilerOptions, ts.sys)
  if (!resolvedModule || resolvedModule.isExternalLibraryImport) return undefined
  const file = path.resolve(resolvedModule.resolvedFileName)
  if (file.endsWith('.d.ts') || !sourceFile.test(file) || file.includes(`${path.sep}node_modules${path.sep}`)) return undefined
  return file
}

/** file -> { mtimeMs, imports: resolved files } for the files on disk. */
const graph = new Map()

function importsOnDisk(file) {
  let mtimeMs
  try {
    mtimeMs = statSync(file).mtimeMs
  } catch {
    return []
  }
  const cached = graph.get(file)
  if (cached && cached.mtimeMs === mtimeMs) return cached.imports
  const text = ts.sys.readFile(file) ?? ''
  const names = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName)
  const imports = [...new Set(names.map((name) => resolve(name, file)).filter(Boolean))]
  graph.set(file, { mtimeMs, imports })
  return imports
}

/** The route from `start` back to `target` through imports on disk, or undefined. */
function routeBack(start, target, seen) {
  const stack = [[start, [start]]]
  while (stack.length > 0) {
    const [file, route] = stack.pop()
    for (const next of importsOnDisk(file)) {
      if (next === target) return route
      if (seen.has(next)) continue
      seen.add(next)
      stack.push([next, [...route, next]])
    }
  }
  return undefined
}

export const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, type-only imports included.' },
    schema: [],
    messages: {
      cycle:
        'Import cycle: {{route}}. Move what both sides need (often a type) into a module of its own that both import, or pass it in as an argument.',
    },
  },
  create(context) {
    const file = path.resolve(context.physicalFilename)
    if (!sourceFile.test(file)) return {}
    const seen = new Set([file])
    const root = process.cwd()
    const check = (node) => {
      if (!node.source || typeof node.source.value !== 'string') return
      const target = resolve(node.source.value, file)
      if (!target || target === file || seen.has(target)) return
      seen.add(target)
      const route = routeBack(target, file, seen)
      if (!route) return
      const names = [file, ...route, file].map((f) => path.relative(root, f))
      context.report({ node, messageId: 'cycle', data: { route: names.join(' -> ') } })
    }
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    }
  },
}

export default { meta: { name: 'ies' }, rules: { 'no-cycle': noCycle } }
