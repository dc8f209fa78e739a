// The desktop's built-in catalog (src/catalog/static-catalog.json, the fallback of client rule 6) is
// made from templates/ by the build, never committed: the desktop build and dev server, the root
// typecheck and scripts/provision.sh (which the tests and the web UI build run) write it, so a
// template author changes templates/ alone.
//   npm run catalog -w desktop                                   (or: npx tsx desktop/scripts/static-catalog.ts)
//   npx tsx desktop/scripts/static-catalog.ts --templates <dir> --out <file>    another tree or file
// The file is rewritten only when its content changes (its date drives provision.sh's web UI rebuild).
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { extractCatalog, type Catalog } from '@ies/processor-lib'

const here = path.dirname(fileURLToPath(import.meta.url))
export const REPO_ROOT = path.resolve(here, '../..')
export const STATIC_CATALOG = path.join(REPO_ROOT, 'desktop/src/catalog/static-catalog.json')
export const TEMPLATES_DIR = path.join(REPO_ROOT, 'templates')
/** The built-in catalog names no templates commit: the client shows "built-in" instead. */
export const STATIC_COMMIT = 'static'

/** The built-in catalog of a templates tree: its extracted catalog, committed to no templates version. */
export async function staticCatalog(templatesDir = TEMPLATES_DIR): Promise<Catalog> {
  return { ...(await extractCatalog({ templatesDir, provider: 'aws' })), commit: STATIC_COMMIT }
}

export const serialize = (catalog: Catalog) => `${JSON.stringify(catalog, null, 2)}\n`

/** Writes the built-in catalog of a tree; true when the file changed. */
export async function writeStaticCatalog(templatesDir = TEMPLATES_DIR, file = STATIC_CATALOG): Promise<boolean> {
  const text = serialize(await staticCatalog(templatesDir))
  const before = await readFile(file, 'utf8').catch(() => null)
  if (before === text) return false
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, text)
  return true
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { templates: { type: 'string' }, out: { type: 'string' } } })
  const templatesDir = values.templates ? path.resolve(values.templates) : TEMPLATES_DIR
  const file = values.out ? path.resolve(values.out) : STATIC_CATALOG
  try {
    const changed = await writeStaticCatalog(templatesDir, file)
    if (changed) console.log(`static catalog: wrote ${path.relative(process.cwd(), file) || file} from ${templatesDir}`)
  } catch (e) {
    console.error(`static catalog: ${(e as Error).message}`)
    process.exitCode = 1
  }
}
