// The cost of reading and writing a whole branch tree the way a push does (not a test): a tree of
// 10,000 files in 100 folders (plus links and a submodule), made with the git CLI, read into entries
// (readTreeEntries), written back (writeEntriesTree, every tree object rewritten) and merged with
// itself changed in one file (mergeTrees). Prints the median of each over the rounds, in ms.
//
//   npx tsx scripts/bench/tree-entries.ts [--files 10000] [--rounds 5]
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { readBlob, readTreeEntries, writeBlob, writeEntriesTree } from '@ies/processor-lib/git-objects'
import { mergeTrees } from '../../server/src/jobs/push/tree-merge.ts'

const { values } = parseArgs({ options: { files: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '5' } } })
const FILES = Number(values.files)
const ROUNDS = Number(values.rounds)

const gitdir = mkdtempSync(path.join(os.tmpdir(), 'ies-bench-tree-'))
const git = (args: string[], input?: string) =>
  execFileSync('git', args, { cwd: gitdir, input, maxBuffer: 256 * 1024 * 1024 })
    .toString()
    .trim()
try {
  git(['init', '-q', '--bare'])
  const blob = git(['hash-object', '-w', '--stdin'], 'variable "x" {}\n')
  const link = git(['hash-object', '-w', '--stdin'], '../README.md')
  const lines = Array.from({ length: FILES }, (_, i) => `100644 ${blob}\tmodules/m${i % 100}/file${i}.tf`)
  lines.push(`120000 ${link}\tdocs/OVERVIEW.md`, `160000 ${'1'.repeat(40)}\tvendor/mod`)
  const env = { ...process.env, GIT_INDEX_FILE: path.join(gitdir, 'bench-index') }
  execFileSync('git', ['update-index', '--add', '--index-info'], { cwd: gitdir, input: lines.join('\n'), env })
  const tree = execFileSync('git', ['write-tree'], { cwd: gitdir, env }).toString().trim()
  const commit = git(['commit-tree', tree, '-m', 'bench'], '')

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const timed = async (fn: () => Promise<unknown>) => {
    const start = performance.now()
    await fn()
    return performance.now() - start
  }
  const read: number[] = []
  const write: number[] = []
  const merge: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    let entries = new Map()
    read.push(await timed(async () => (entries = await readTreeEntries(gitdir, commit))))
    write.push(await timed(() => writeEntriesTree(gitdir, entries)))
    const theirs = new Map(entries).set('modules/m0/file0.tf', { oid: await writeBlob(gitdir, 'variable "y" {}\n'), mode: '100644' })
    merge.push(
      await timed(() =>
        mergeTrees({
          base: entries,
          ours: entries,
          theirs,
          read: (oid) => readBlob(gitdir, oid),
          write: (content) => writeBlob(gitdir, content),
          labels: { ours: 'main', base: 'base', theirs: 'theirs' },
        }),
      ),
    )
  }
  console.log(
    `${FILES} files, median of ${ROUNDS}: read ${median(read).toFixed(0)} ms, write ${median(write).toFixed(0)} ms, merge ${median(merge).toFixed(0)} ms`,
  )
} finally {
  rmSync(gitdir, { recursive: true, force: true })
}
