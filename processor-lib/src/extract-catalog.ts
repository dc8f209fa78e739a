/**
 * A templates directory's catalog: the provider's parameter-values file (DEFAULT_PARAMS_FILES, or the
 * one given) read from the tree, refused when it lies outside it, has no decorator syntax or is listed
 * in `.iesignore`, and built into the document (catalog.ts) with the tree's templates commit.
 */
import { readFile } from 'node:fs/promises'
import { join, resolve, relative, isAbsolute } from 'node:path'
import { buildCatalog, DEFAULT_PARAMS_FILES } from './catalog.ts'
import { templatesCommit } from './commit.ts'
import type { Catalog } from './contract/document.ts'
import { ProcessorError } from './findings.ts'
import { languageOf } from './languages.ts'
import { IGNORE_FILE, isIgnored } from './template-ignore.ts'

export interface ExtractOptions {
  templatesDir: string
  provider: string
  /** Parameter-values file relative to templatesDir; defaults to DEFAULT_PARAMS_FILES[provider]. */
  paramsFile?: string
  /** Precomputed commit (skips the lookup). */
  commit?: string
}

export async function extractCatalog(opts: ExtractOptions): Promise<Catalog> {
  const paramsFile = opts.paramsFile ?? DEFAULT_PARAMS_FILES[opts.provider]
  if (!paramsFile) {
    throw new ProcessorError(
      400,
      'UNKNOWN_PROVIDER',
      `no catalog for provider "${opts.provider}" (known: ${Object.keys(DEFAULT_PARAMS_FILES).join(', ')})`,
    )
  }
  const root = resolve(opts.templatesDir)
  const abs = resolve(root, paramsFile)
  const rel = relative(root, abs)
  if (rel.startsWith('..') || isAbsolute(rel)) {
    throw new ProcessorError(400, 'BAD_PARAMS_FILE', `the parameter-values file must lie inside the templates directory: ${paramsFile}`)
  }
  const lang = languageOf(abs)
  if (!lang) throw new ProcessorError(400, 'BAD_PARAMS_FILE', `no decorator syntax for ${paramsFile}`)
  const ignoreFile = await readFile(join(root, IGNORE_FILE), 'utf8').catch(() => null)
  if (ignoreFile !== null && isIgnored(ignoreFile, rel.split('\\').join('/'))) {
    throw new ProcessorError(
      400,
      'BAD_PARAMS_FILE',
      `the parameter-values file ${paramsFile} is listed in ${IGNORE_FILE}, so it is not a template`,
    )
  }
  let text: string
  try {
    text = await readFile(abs, 'utf8')
  } catch {
    throw new ProcessorError(404, 'MISSING_PARAMS_FILE', `parameter-values file not found: ${join(opts.templatesDir, paramsFile)}`)
  }
  const commit = opts.commit ?? (await templatesCommit(root))
  return buildCatalog(rel.split('\\').join('/'), text, lang, commit)
}
