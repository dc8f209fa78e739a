// Moves test files to the path of the module they test (scripts/test-layout/moves.json, the rule in
// scripts/test-layout/layout.ts) and keeps every reference working:
//   - each moved file's relative paths (imports, `new URL('../x', import.meta.url)`, `'../..'`, and
//     `join(import.meta.dirname, '..', '..')`) are recomputed from its new folder;
//   - any file's relative path into a moved file (`'../jobs/fixtures.ts'`) points at the new place;
//   - every repository path of a moved file or folder (`test/jobs/push.test.ts`, or `test/jobs/plan`
//     without its extension) in any tracked text file (scripts, docs, .taprc, comments) is replaced.
// Then `git mv` moves the files. Entries already applied are skipped, so a second run changes nothing;
// run again after merging a branch that still uses old paths, it fixes that branch's references.
// Usage: npx tsx scripts/test-layout/apply.ts [--dry-run]
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { readMoves, REPO_ROOT } from './layout.ts'

const posix = path.posix
// The table and the rule keep old paths on purpose (and the layout test names made-up ones).
const SKIPPED = new Set(['package-lock.json'])
const SKIPPED_FOLDERS = ['scripts/test-layout/', 'test/scripts/test-layout/']

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** old -> new for a path inside a moved file or folder, else undefined. */
export function mapper(moves: Record<string, string>): (p: string) => string | undefined {
  const entries = Object.entries(moves).sort((a, b) => b[0].length - a[0].length)
  return (p) => {
    for (const [from, to] of entries) {
      if (p === from) return to
      if (p.startsWith(`${from}/`)) return to + p.slice(from.length)
    }
    return undefined
  }
}

function relativeFrom(folder: string, target: string, trailingSlash: boolean): string {
  let rel = posix.relative(folder, target) || '.'
  if (!rel.startsWith('.')) rel = `./${rel}`
  return trailingSlash ? `${rel}/` : rel
}

/** Recompute relative paths of a file that moves from `from` to `to` (equal when it stays). */
export function rewriteRelative(text: string, from: string, to: string, map: (p: string) => string | undefined): string {
  const out = text.replace(/(?<=['"`(\s])(\.\.?(?:\/[\w.@-]*)+)(?![\w.-])/g, (token: string) => {
    const target = posix.normalize(posix.join(posix.dirname(from), token))
    if (target.startsWith('..') || posix.isAbsolute(target)) return token
    const mapped = map(target.replace(/\/$/, ''))
    if (mapped === undefined && (from === to || !existsSync(path.join(REPO_ROOT, target)))) return token
    return relativeFrom(posix.dirname(to), mapped ?? target.replace(/\/$/, ''), token.endsWith('/'))
  })
  if (from === to) return out
  // join(import.meta.dirname, '..', '..'): the number of '..' follows the new depth.
  return out.replace(/(import\.meta\.dirname|\bhere)((?:\s*,\s*'\.\.')+)/g, (whole: string, base: string, ups: string) => {
    const target = posix.join(posix.dirname(from), ...Array<string>((ups.match(/'\.\.'/g) ?? []).length).fill('..'))
    const rel = posix.relative(posix.dirname(to), target)
    if (rel === '' || rel.split('/').some((part) => part !== '..')) return whole
    return (
      base +
      rel
        .split('/')
        .map(() => ", '..'")
        .join('')
    )
  })
}

/** Replace repository paths of moved files and folders (and a test file's path without `.test.ts`). */
export function rewriteRepoPaths(text: string, moves: Record<string, string>): string {
  let out = text
  for (const [from, to] of Object.entries(moves).sort((a, b) => b[0].length - a[0].length)) {
    out = out.replace(new RegExp(`(?<![\\w-])${escape(from)}(?![\\w-])`, 'g'), to)
    if (from.endsWith('.test.ts')) {
      const [stemFrom, stemTo] = [from, to].map((p) => p.slice(0, -'.test.ts'.length))
      out = out.replace(new RegExp(`(?<![\\w-])${escape(stemFrom)}(?![\\w/-]|\\.test)`, 'g'), stemTo)
    }
  }
  return out
}

function isText(file: string): boolean {
  const full = path.join(REPO_ROOT, file)
  if (!existsSync(full) || !statSync(full).isFile() || statSync(full).size > 2_000_000) return false
  return !readFileSync(full).includes(0)
}

function main(): void {
  const dryRun = process.argv.includes('--dry-run')
  const moves = readMoves()
  const map = mapper(moves)
  const tracked = git('ls-files', '-z').split('\0').filter(Boolean)
  const pending = new Map<string, string>()
  for (const file of tracked) {
    const to = map(file)
    if (to !== undefined && existsSync(path.join(REPO_ROOT, file))) pending.set(file, to)
  }
  for (const [from, to] of pending) {
    if (existsSync(path.join(REPO_ROOT, to))) throw new Error(`${from} -> ${to}: ${to} exists already`)
  }
  const edited: string[] = []
  for (const file of tracked.filter((f) => !SKIPPED.has(f) && !SKIPPED_FOLDERS.some((folder) => f.startsWith(folder)) && isText(f))) {
    const before = readFileSync(path.join(REPO_ROOT, file), 'utf8')
    const after = rewriteRepoPaths(rewriteRelative(before, file, pending.get(file) ?? file, map), moves)
    if (after === before) continue
    edited.push(pending.get(file) ?? file)
    console.log(`references updated: ${file}`)
    if (!dryRun) writeFileSync(path.join(REPO_ROOT, file), after)
  }
  for (const [from, to] of pending) {
    console.log(`git mv ${from} ${to}`)
    if (dryRun) continue
    mkdirSync(path.join(REPO_ROOT, posix.dirname(to)), { recursive: true })
    git('mv', from, to)
  }
  // A longer import path can break a line: the code files written are formatted as lint wants them.
  const code = edited.filter((file) => /\.(ts|tsx|js|mjs)$/.test(file))
  if (!dryRun && code.length > 0) {
    execFileSync(path.join(REPO_ROOT, 'node_modules/.bin/prettier'), ['--write', '--log-level=warn', ...code], {
      cwd: REPO_ROOT,
      stdio: 'inherit',
    })
  }
  console.log(
    pending.size + edited.length === 0
      ? 'test layout: nothing to do (every move of scripts/test-layout/moves.json is applied)'
      : `test layout: ${pending.size} files moved, ${edited.length} files with references updated${dryRun ? ' (dry run)' : ''}`,
  )
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.join(REPO_ROOT, 'scripts/test-layout/apply.ts')) main()
