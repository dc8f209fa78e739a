// CI guard (client consumption rule 6): extracts the live catalog from templates/ with the
// processor library and compares it with the client's static configuration, minus the allow-list;
// then checks both documents' internal consistency. Exit code 1 on any finding.
//   npm run catalog:guard -w desktop        (or: npx tsx desktop/scripts/catalog-guard.ts)
//   npx tsx desktop/scripts/catalog-guard.ts --write-static [dir]   refresh the static configuration from
//   templates/ (or dir) after an intentional template change (commit "static"; review the diff).
// `npm run check:templates` runs the same comparison and prints that command when it differs.
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { extractCatalog } from '@ies/processor-lib'
import { checkConsistency, unexpectedDifferences, type GuardDifference } from '../src/lib/catalog-guard.ts'

const here = path.dirname(fileURLToPath(import.meta.url))
export const REPO_ROOT = path.resolve(here, '../..')
export const STATIC_CATALOG = path.join(REPO_ROOT, 'desktop/src/catalog/static-catalog.json')
export const ALLOWLIST = path.join(REPO_ROOT, 'desktop/src/catalog/catalog-allowlist.json')

export interface GuardResult {
  skipped?: string
  differences: GuardDifference[]
  consistency: string[]
}

/** The exact command that regenerates the static configuration from a templates folder. */
export function writeStaticCommand(templatesDir = path.join(REPO_ROOT, 'templates')): string {
  const rel = path.relative(REPO_ROOT, templatesDir) || '.'
  return `npx tsx desktop/scripts/catalog-guard.ts --write-static${rel === 'templates' ? '' : ` ${rel.startsWith('..') ? templatesDir : rel}`}`
}

export async function runGuard(templatesDir = path.join(REPO_ROOT, 'templates'), staticFile = STATIC_CATALOG): Promise<GuardResult> {
  const stat = JSON.parse(await readFile(staticFile, 'utf8'))
  const allow: string[] = JSON.parse(await readFile(ALLOWLIST, 'utf8')).allow ?? []
  const staticProblems = checkConsistency(stat).map((p) => `static: ${p}`)
  let live: unknown
  try {
    live = await extractCatalog({ templatesDir, provider: 'aws' })
  } catch (err) {
    if ((err as { code?: string }).code === 'MISSING_PARAMS_FILE') {
      return { skipped: `no parameter-values file in ${templatesDir} yet`, differences: [], consistency: staticProblems }
    }
    throw err
  }
  return {
    differences: unexpectedDifferences(live, stat, allow),
    consistency: [...staticProblems, ...checkConsistency(live).map((p) => `live: ${p}`)],
  }
}

export async function writeStatic(templatesDir = path.join(REPO_ROOT, 'templates'), staticFile = STATIC_CATALOG) {
  const live = await extractCatalog({ templatesDir, provider: 'aws' })
  await writeFile(staticFile, `${JSON.stringify({ ...live, commit: 'static' }, null, 2)}\n`)
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const dir = args.find((a) => !a.startsWith('--'))
  if (args.includes('--write-static')) await writeStatic(dir ? path.resolve(dir) : undefined)
  const result = await runGuard(dir ? path.resolve(dir) : undefined)
  if (result.skipped) console.log(`catalog guard: skipped the comparison: ${result.skipped}`)
  for (const p of result.consistency) console.log(`inconsistent: ${p}`)
  for (const d of result.differences) {
    console.log(`differs: ${d.path}: live ${JSON.stringify(d.live)} / static ${JSON.stringify(d.static)}`)
  }
  const failed = result.consistency.length + result.differences.length
  console.log(
    failed
      ? `catalog guard: ${failed} finding(s); regenerate desktop/src/catalog/static-catalog.json (${writeStaticCommand(dir ? path.resolve(dir) : undefined)}) or list intentional differences in catalog-allowlist.json`
      : 'catalog guard: ok',
  )
  process.exitCode = failed ? 1 : 0
}
