// CI guard (client consumption rule 6): extracts the live catalog from templates/ with the
// processor library and compares it with the client's built-in catalog (made by the build,
// static-catalog.ts), minus the allow-list; then checks both documents' internal consistency.
// A difference means the built-in catalog was made from other templates: rebuild it. Exit code 1
// on any finding.
//   npm run catalog:guard -w desktop        (or: npx tsx desktop/scripts/catalog-guard.ts [dir])
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { extractCatalog } from '@ies/processor-lib'
import { checkConsistency, unexpectedDifferences, type GuardDifference } from '../src/catalog/guard.ts'
import { REPO_ROOT, STATIC_CATALOG } from './static-catalog.ts'

export const ALLOWLIST = path.join(REPO_ROOT, 'desktop/src/catalog/catalog-allowlist.json')

export interface GuardResult {
  skipped?: string
  differences: GuardDifference[]
  consistency: string[]
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

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv.slice(2).find((a) => !a.startsWith('--'))
  const result = await runGuard(dir ? path.resolve(dir) : undefined)
  if (result.skipped) console.log(`catalog guard: skipped the comparison: ${result.skipped}`)
  for (const p of result.consistency) console.log(`inconsistent: ${p}`)
  for (const d of result.differences) {
    console.log(`differs: ${d.path}: live ${JSON.stringify(d.live)} / static ${JSON.stringify(d.static)}`)
  }
  const failed = result.consistency.length + result.differences.length
  console.log(
    failed
      ? `catalog guard: ${failed} finding(s); a difference means the built-in catalog was made from other templates: rebuild it (npm run catalog -w desktop)`
      : 'catalog guard: ok',
  )
  process.exitCode = failed ? 1 : 0
}
