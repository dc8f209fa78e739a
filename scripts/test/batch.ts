// Runs several test files one after the other in one node process (`node --import tsx
// scripts/test/batch.ts <files>`), each in a subtest named after the file. `npm test` runs the short
// files this way: a file alone pays for a new process's start and for code that is still cold (tap,
// tsx, loading and compiling the server's modules, the JIT's warm-up), which is most of the CPU of a
// file with a few tests (docs/internals/tests.md, "Batches"). After each file, a comment gives its
// time and this process's CPU time in it (not of the processes it started): `# file <path>: <s> s,
// <s> s of CPU`. Each file has TAP_TIMEOUT seconds (tap's timeout for a process of its own); past it,
// the file fails with tap's "timeout!" and the next one starts; what it left running ends with the
// process, a few seconds after the last file.
import { register } from 'node:module'
import { pathToFileURL } from 'node:url'
import { loadAs, root } from './file-tap.ts'

register('./file-tap-hooks.ts', import.meta.url)

const timeout = Number(process.env.TAP_TIMEOUT ?? 30) * 1000
root.setTimeout(0)

for (const file of process.argv.slice(2)) {
  const started = performance.now()
  const cpu = process.cpuUsage()
  await root.test(file, { timeout }, (t) => loadAs(t, () => import(pathToFileURL(file).href)))
  const used = process.cpuUsage(cpu)
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  root.comment(`file ${file}: ${seconds} s, ${((used.user + used.system) / 1e6).toFixed(1)} s of CPU`)
}

root.end()
setTimeout(() => process.exit(), 5000).unref()
