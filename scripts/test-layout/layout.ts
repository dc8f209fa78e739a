// Where a test file belongs (docs/internals/tests.md, "Where a test file goes"): a module's tests sit at
// the module's path under test/, with a package's `src/` left out (tests of plugins/environments/ in
// test/plugins/environments/, of server/src/jobs/push/ in test/server/jobs/push/, of
// processor-lib/src/ in test/processor-lib/); tests that exercise no single module sit in one of the
// cross-cutting folders. Read by scripts/test-layout/apply.ts and test/docs/test-layout.test.ts.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** Folders of test/ that test no single module: journeys, cross-cutting checks, shared helpers. */
export const CROSS_CUTTING: Record<string, string> = {
  e2e: 'journeys through the web UI, the CLI and the API together',
  security: 'properties every route must keep (bodies, secrets, tenants, tokens, fuzzing)',
  faults: 'outages and replicas of the whole service',
  docs: 'the documentation and the repository layout held to the code',
  harness: 'helpers that start services for the tests (no test files)',
  fixtures: 'data shared by tests (no test files)',
}

/** First folder under test/ -> the source folder it mirrors (a package's `src/` left out). */
export const SOURCE_ROOTS: Record<string, string> = {
  server: 'server/src',
  plugins: 'plugins',
  'processor-lib': 'processor-lib/src',
  desktop: 'desktop/src',
  cli: 'cli/src',
  api: 'api/src',
  scripts: 'scripts',
  templates: 'templates',
}

/** The hand-made table of moves (old path of a file or folder -> new path). */
export function readMoves(root = REPO_ROOT): Record<string, string> {
  const file = path.join(root, 'scripts', 'test-layout', 'moves.json')
  return (JSON.parse(readFileSync(file, 'utf8')) as { moves: Record<string, string> }).moves
}

/** The source folder a test folder mirrors (`test/server/jobs/push` -> `server/src/jobs/push`), or undefined. */
export function mirroredFolder(testFolder: string): string | undefined {
  const [top, first, ...rest] = testFolder.split('/')
  const source = top === 'test' && first !== undefined ? SOURCE_ROOTS[first] : undefined
  return source === undefined ? undefined : [source, ...rest].join('/')
}

function holdsFiles(root: string, folder: string): boolean {
  const full = path.join(root, folder)
  if (!existsSync(full) || !statSync(full).isDirectory()) return false
  return readdirSync(full, { withFileTypes: true }).some((entry) => entry.isFile())
}

/** Why a test file (repository-relative path) is out of place, or undefined when it follows the rule. */
export function layoutProblem(file: string, moves: Record<string, string>, root = REPO_ROOT): string | undefined {
  const folder = path.posix.dirname(file)
  const first = folder.split('/')[1]
  if (first !== undefined && first in CROSS_CUTTING) return undefined
  const source = mirroredFolder(folder)
  if (source !== undefined && holdsFiles(root, source)) return undefined
  const known = moves[file]
  if (known !== undefined)
    return `${file} belongs at ${known} (scripts/test-layout/moves.json: run \`npx tsx scripts/test-layout/apply.ts\`)`
  const what = source === undefined ? `${folder} mirrors no source folder` : `${source} is not a source folder holding modules`
  return (
    `${file}: ${what}. A test of a module sits at test/<the module's folder> (${Object.entries(SOURCE_ROOTS)
      .map(([test, src]) => `test/${test}/ for ${src}/`)
      .join(', ')}), ` +
    `or, when it tests no single module, in test/{${Object.keys(CROSS_CUTTING).join(',')}}/; add its move to scripts/test-layout/moves.json`
  )
}

/** Every file tap runs (.taprc: test/**\/*.test.ts), repository-relative, sorted. */
export function testFiles(root = REPO_ROOT): string[] {
  const found: string[] = []
  const walk = (folder: string): void => {
    for (const entry of readdirSync(path.join(root, folder), { withFileTypes: true })) {
      const rel = `${folder}/${entry.name}`
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(rel)
      else if (entry.isFile() && entry.name.endsWith('.test.ts')) found.push(rel)
    }
  }
  walk('test')
  return found.sort()
}
