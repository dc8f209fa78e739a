// The archive writer (processor-lib/src/zip-writer.ts): what it writes is read back the same by yauzl
// (what the server and the processor service read archives with) and by Info-ZIP's `unzip` (what a
// customer opens a download with), with Unix modes kept; the same tree gives the same bytes whether
// its entries were compressed now or came from the cache; small and incompressible files are stored;
// a large tree is compressed a few milliseconds of the event loop at a time, not in one turn.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import yauzl from 'yauzl'
import { unzipToFiles, zipTree } from '@ies/processor-lib'
import { watchTurns } from '../harness/thread-cpu.ts'

const run = promisify(execFile)

const tree = () => [
  { path: 'terraform/main.tf', content: 'module "vpc" {\n  source = "./modules/vpc"\n}\n'.repeat(50), mode: 0o644 },
  { path: 'scripts/deploy.sh', content: '#!/bin/sh\necho "déployé"\n', mode: 0o755 },
  { path: 'empty.txt', content: '', mode: 0o644 },
  { path: 'blob.bin', content: randomBytes(4096), mode: 0o644 },
  { path: 'a/ünïcode name.yaml', content: 'key: value\n', mode: 0o644 },
]

t.test('yauzl reads every entry back with its content and mode, in path order', async (t) => {
  const files = tree()
  const back = await unzipToFiles(await zipTree(files), { maxFiles: 100, maxBytes: 1 << 20 })
  const expected = [...files].sort((a, b) => (a.path < b.path ? -1 : 1))
  t.same(
    back.map((f) => f.path),
    expected.map((f) => f.path),
  )
  for (const f of expected) {
    const got = back.find((b) => b.path === f.path)!
    t.equal(Buffer.compare(got.content as Buffer, Buffer.from(f.content)), 0, `${f.path}: same bytes`)
    t.equal(got.mode, f.mode, `${f.path}: mode ${f.mode.toString(8)}`)
  }
})

t.test('Info-ZIP unzip tests the archive and extracts it with the modes', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'ies-zip-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const zip = path.join(dir, 'tree.zip')
  await writeFile(zip, await zipTree(tree()))
  const tested = await run('unzip', ['-t', zip])
  t.match(tested.stdout, /No errors detected/)
  await run('unzip', ['-q', zip, '-d', path.join(dir, 'out')])
  t.equal((await stat(path.join(dir, 'out/scripts/deploy.sh'))).mode & 0o777, 0o755, 'the executable bit')
  t.equal((await stat(path.join(dir, 'out/terraform/main.tf'))).mode & 0o777, 0o644)
  t.equal(await readFile(path.join(dir, 'out/a/ünïcode name.yaml'), 'utf8'), 'key: value\n', 'a UTF-8 name')
})

t.test('the same tree gives the same bytes, cold or from the cache; a changed file changes only its entry', async (t) => {
  const unique = `value = "${randomBytes(8).toString('hex')}"\n`.repeat(40)
  const files = [...tree(), { path: 'terraform/unique.tf', content: unique, mode: 0o644 }]
  const first = await zipTree(files) // unique.tf compressed now
  const second = await zipTree(files) // from the cache
  t.equal(Buffer.compare(first, second), 0)
  const changed = await zipTree(files.map((f) => (f.path === 'terraform/unique.tf' ? { ...f, content: unique + '#\n' } : f)))
  t.not(Buffer.compare(first, changed), 0)
  const back = await unzipToFiles(changed, { maxFiles: 100, maxBytes: 1 << 20 })
  t.equal(back.find((f) => f.path === 'terraform/unique.tf')?.content.toString(), unique + '#\n')
})

t.test('compressible files are deflated; empty and random files are stored; level 0 stores everything', async (t) => {
  const methods = async (level?: number) => {
    const zip = await zipTree(tree(), level === undefined ? {} : { level })
    const found = new Map<string, number>()
    const file = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.fromBuffer(zip, { lazyEntries: false }, (err, z) => (err || !z ? reject(err) : resolve(z))),
    )
    await new Promise<void>((resolve) => {
      file.on('entry', (e: yauzl.Entry) => found.set(e.fileName, e.compressionMethod))
      file.on('end', () => resolve())
    })
    return found
  }
  const byDefault = await methods()
  t.equal(byDefault.get('terraform/main.tf'), 8, 'deflated')
  t.equal(byDefault.get('empty.txt'), 0, 'stored')
  t.equal(byDefault.get('blob.bin'), 0, 'random bytes do not shrink: stored')
  t.same([...(await methods(0)).values()], [0, 0, 0, 0, 0], 'level 0')
})

t.test('a large tree is compressed over many turns of the event loop, none long', async (t) => {
  // 600 files of 32 KiB of text no earlier test compressed (the cache would skip them): tens of ms of deflate.
  const seed = randomBytes(8).toString('hex')
  const files = Array.from({ length: 600 }, (_, i) => ({
    path: `f/${i}.tf`,
    content: Array.from({ length: 1024 }, (_, j) => `v${(i * 7919 + j * 104729) % 1000003}-${seed}\n`)
      .join('')
      .slice(0, 32 * 1024),
    mode: 0o644,
  }))
  const turns = watchTurns()
  const cpuBefore = process.cpuUsage()
  const zip = await zipTree(files)
  const cpu = process.cpuUsage(cpuBefore)
  const { wallMs, cpuMs } = turns()
  const totalMs = (cpu.user + cpu.system) / 1000
  t.ok(totalMs > 60, `the tree takes long enough to compress that one turn would be noticed (${totalMs.toFixed(0)} ms of CPU)`)
  const longest = cpuMs ?? wallMs // where /proc has no schedstat, the longest turn's wall time
  t.ok(longest < 25, `no turn of the loop holds it long (the longest: ${longest.toFixed(1)} ms)`)
  t.equal((await unzipToFiles(zip, { maxFiles: 1000, maxBytes: 64 << 20 })).length, 600, 'the archive holds every file')
})
