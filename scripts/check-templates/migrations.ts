// check:templates' migrations step: every file under the tree's migrations/ must be a migration
// (processor-lib/src/migrations/parse.ts), and its steps must name paths and values of the catalog
// the tree extracts (migrations/catalog.ts). Each problem is a MIGRATION finding at its file and line.
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import type { Catalog, Finding } from '@ies/processor-lib'
import { catalogView } from '@ies/processor-lib/contract/view'
import { MIGRATIONS_DIR, migrationCatalogProblems, parseMigrations } from '@ies/processor-lib/migrations/index'

/** The migration files of a templates tree, with templates-relative paths (none: no folder). */
async function migrationFiles(templatesDir: string): Promise<{ path: string; content: Buffer }[]> {
  const dir = path.join(templatesDir, MIGRATIONS_DIR)
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[]
    throw err
  })
  return Promise.all(
    names.sort().map(async (name) => ({ path: `${MIGRATIONS_DIR}/${name}`, content: await readFile(path.join(dir, name)) })),
  )
}

export async function migrationFindings(templatesDir: string, catalog: Catalog): Promise<Finding[]> {
  const files = await migrationFiles(templatesDir)
  const stray = files.filter((f) => !/\.ya?ml$/.test(f.path))
  const { migrations, problems } = parseMigrations(files)
  const all = [
    ...stray.map((f) => ({ file: f.path, line: 0, message: 'not a migration: migration files end in .yaml' })),
    ...problems,
    ...migrationCatalogProblems(migrations, catalogView(catalog).catalog),
  ]
  return all.map((p) => ({ code: 'MIGRATION', severity: 'error', file: p.file, line: p.line, path: null, message: p.message }))
}
