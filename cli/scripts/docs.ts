// npm run docs:cli: writes docs/cli.md from cli/docs/guide.md and the command definitions (formatted as the repository's
// Prettier settings format Markdown, so `npm run lint` accepts it as written).
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import prettier from 'prettier'
import { renderReference } from '../src/reference.ts'

const CLI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const REFERENCE_FILE = path.resolve(CLI_DIR, '../docs/cli.md')
/** The hand-written part of the page: what the flags alone do not say. */
const GUIDE_FILE = path.join(CLI_DIR, 'docs', 'guide.md')

/** docs/cli.md as the command definitions make it. */
export async function referenceText(): Promise<string> {
  const options = (await prettier.resolveConfig(REFERENCE_FILE)) ?? {}
  return prettier.format(renderReference(readFileSync(GUIDE_FILE, 'utf8')), { ...options, filepath: REFERENCE_FILE })
}

/** Whether docs/cli.md is what the definitions make. */
export async function referenceIsCurrent(): Promise<boolean> {
  let current = ''
  try {
    current = readFileSync(REFERENCE_FILE, 'utf8')
  } catch {
    return false
  }
  return current === (await referenceText())
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(REFERENCE_FILE, await referenceText())
  console.log(`Wrote ${path.relative(process.cwd(), REFERENCE_FILE)}`)
}
