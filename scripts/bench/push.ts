// Push benchmark (not a test): `npx tsx scripts/bench/push.ts [--runs 10]`
//
// The full AWS tree (every service enabled, terraform with backend, charts and gitops), pushed to a
// real git http-backend server over HTTP, side by side in one run, alternating:
//   plain   what a push did before the merge: fetch the branch head, write the whole tree, one commit
//           on top, push (the customer's files are lost);
//   merged  the push of server/src/jobs/push/push.ts: fetch the head and the generated ref, three-way
//           merge (a customer file and a customer edit in the tree), commit, push the branch and the
//           generated ref.
// Each run changes one generated line, so both sides push a commit every time. Prints the medians and
// their ratio (the goal: merged at most 2x plain).
import { mkdtemp, rm } from 'node:fs/promises'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { processFiles, readTree, type TreeFile } from '@ies/processor-lib'
import { BUNDLED_TEMPLATES_DIR } from '../../server/src/config.ts'
import { fetchBranch, git, http, initBare, writeFilesTree } from '../../processor-lib/src/git-objects.ts'
import { pushFiles } from '../../server/src/jobs/push/push.ts'
import { selectedPrefixes } from '../../server/src/jobs/generation/selection.ts'
import { selectInputs } from '@ies/processor-lib/tree'
import { startGitServer } from '../../test/harness/git-server.ts'
import { allServicesEnabled, environmentBody } from '../../test/jobs/fixtures.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } })
const RUNS = Number(values.runs)
const KEY = 'iest_YmVuY2gta2V5'
const auth = { username: 'x-access-token', password: KEY }
const author = { name: 'IES', email: 'ies@localhost' }

async function fullTree(): Promise<TreeFile[]> {
  const services = await allServicesEnabled()
  const input = { ...environmentBody({ services }), terraformBackend: { key: 'env/x/aws.tfstate', useLockfile: true } }
  const prefixes = selectedPrefixes('terraform', { includeBackend: true, includeChart: true, includeGitops: true })
  const { inputs } = await readTree(BUNDLED_TEMPLATES_DIR)
  const result = processFiles(selectInputs(inputs, prefixes), input)
  if (!result.ok) throw new Error('the templates did not process')
  return result.files
}

/** The push as it was before the merge: the whole tree replaced in one commit. */
async function plainPush(url: string, files: readonly TreeFile[]): Promise<void> {
  const gitdir = await mkdtemp(path.join(os.tmpdir(), 'ies-bench-plain-'))
  try {
    await initBare(gitdir)
    const parent = await fetchBranch({ gitdir, url, branch: 'main', auth })
    const tree = await writeFilesTree(gitdir, files)
    const person = { ...author, timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 }
    const commit = await git.writeCommit({
      fs,
      gitdir,
      commit: { message: 'plain push\n', tree, parent: parent ? [parent] : [], author: person, committer: person },
    })
    await git.writeRef({ fs, gitdir, ref: 'refs/heads/main', value: commit, force: true })
    await git.push({ fs, http, gitdir, url, ref: 'refs/heads/main', remoteRef: 'refs/heads/main', onAuth: () => auth })
  } finally {
    await rm(gitdir, { recursive: true, force: true })
  }
}

const mergedPush = (url: string, files: readonly TreeFile[]) =>
  pushFiles({
    url,
    branch: 'main',
    auth,
    files,
    message: () => 'merged push\n',
    author,
    strategy: 'merge',
    reviewBranch: 'unused',
    dryRun: false,
  })

/** The tree with one generated line that differs per run. */
const variant = (files: readonly TreeFile[], i: number): TreeFile[] =>
  files.map((f) => (f.path === 'terraform/versions.tf' ? { ...f, content: `${f.content.toString()}# run ${i}\n` } : f))

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const server = await startGitServer({ username: auth.username, password: KEY })
try {
  const files = await fullTree()
  const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.content), 0)
  const plainUrl = await server.createRepo('plain', { 'README.md': '# plain\n' })
  const mergedUrl = await server.createRepo('merged', { 'README.md': '# merged\n' })
  // The first push of each, then a customer file and a customer edit on the merged side.
  await plainPush(plainUrl, variant(files, -1))
  await mergedPush(mergedUrl, variant(files, -1))
  const edited = variant(files, -1).map((f) =>
    f.path === 'terraform/outputs.tf' ? { ...f, content: `# customer line\n${f.content.toString()}` } : f,
  )
  await plainPush(mergedUrl, [...edited, { path: 'terraform/customer.tf', content: Buffer.from('# ours\n'), mode: 0o644 }])

  const plain: number[] = []
  const merged: number[] = []
  for (let i = 0; i < RUNS; i++) {
    let t0 = performance.now()
    await plainPush(plainUrl, variant(files, i))
    plain.push(performance.now() - t0)
    t0 = performance.now()
    const outcome = await mergedPush(mergedUrl, variant(files, i))
    merged.push(performance.now() - t0)
    if (!outcome.changed) throw new Error('the merged push pushed nothing')
  }
  const kept = await server.git('merged', ['show', 'main:terraform/customer.tf'])
  if (kept !== '# ours\n') throw new Error('the merged push lost the customer file')
  console.log(`Push benchmark: ${files.length} files (${(bytes / 1024).toFixed(0)} KiB), ${RUNS} runs each, alternating\n`)
  console.log('| push | median ms | min ms | max ms |')
  console.log('|---|---:|---:|---:|')
  for (const [name, xs] of [
    ['plain (replace the tree)', plain],
    ['merged (three-way, generated ref)', merged],
  ] as const) {
    console.log(`| ${name} | ${median(xs).toFixed(1)} | ${Math.min(...xs).toFixed(1)} | ${Math.max(...xs).toFixed(1)} |`)
  }
  console.log(`\nmerged / plain (medians): ${(median(merged) / median(plain)).toFixed(2)}x (goal: at most 2x)`)
} finally {
  await server.stop()
}
