// Every relative link of the documentation leads to a file of the checkout: the README, docs/, each
// folder's README and the generated repository's README (templates/terraform/README.md). Addresses
// (http, mailto) and in-page anchors are not followed. cli/docs/guide.md is written for its place
// in docs/cli.md (npm run docs:cli), where its links are checked.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const LINK = /\]\(([^)#\s]+)(?:#[^)]*)?\)/g

const markdown = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && !file.startsWith('node_modules/') && file !== 'cli/docs/guide.md')

t.test('every relative link in the documentation leads to a file', async (t) => {
  t.ok(markdown.length > 20, `${markdown.length} Markdown files`)
  for (const file of markdown) {
    for (const [, target] of readFileSync(path.join(ROOT, file), 'utf8').matchAll(LINK)) {
      if (/^[a-z]+:/i.test(target)) continue
      const resolved = path.join(ROOT, path.dirname(file), target)
      t.ok(existsSync(resolved), `${file} links ${target}`)
    }
  }
})
