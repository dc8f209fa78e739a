// The rules compiled to WebAssembly once: `opa build -t wasm` over the built-in rules and the
// organisation's folder, kept in POLICIES_CACHE_DIR under the hash of every source (and of the opa
// binary), so a server start with unchanged rules reads one file and runs nothing.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The entry point every bundle is built for: the rules' violations (templates/policies/ies.rego). */
export const ENTRYPOINT = 'ies/violations'

/** A rule source: a `.rego` file that is not a test. */
const isRule = (name: string) => name.endsWith('.rego') && !name.endsWith('_test.rego')

export interface RuleSource {
  /** The file, relative to its folder. */
  file: string
  text: string
}

/** The rule files of a folder (and its sub-folders), in name order; a missing folder has none. */
export async function ruleSources(folder: string): Promise<RuleSource[]> {
  let names: string[]
  try {
    names = await readdir(folder, { recursive: true })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const files = names.filter(isRule).sort()
  return Promise.all(files.map(async (file) => ({ file, text: await readFile(path.join(folder, file), 'utf8') })))
}

/** Why the rules could not be compiled, with opa's own message (file:line of the error). */
export class PolicyBuildError extends Error {
  override name = 'PolicyBuildError'
}

/**
 * The compiled rules of `folders` (the built-in ones first): from the cache when the same sources
 * were compiled before, else compiled now with `opaPath` and cached.
 */
export async function policyWasm(folders: string[], opaPath: string, cacheDir: string): Promise<Uint8Array> {
  const hash = createHash('sha256').update(ENTRYPOINT)
  for (const folder of folders) {
    for (const { file, text } of await ruleSources(folder)) hash.update(`\0${folder}\0${file}\0${text}`)
  }
  hash.update(`\0${await opaIdentity(opaPath)}`)
  const cached = path.join(cacheDir, `${hash.digest('hex')}.wasm`)
  try {
    return await readFile(cached)
  } catch {
    // not compiled yet
  }
  const wasm = await build(folders, opaPath)
  await mkdir(cacheDir, { recursive: true })
  // Written whole, then renamed: another server starting at the same time reads all or nothing.
  const partial = `${cached}.${process.pid}.${Date.now()}`
  await writeFile(partial, wasm)
  await rename(partial, cached)
  return wasm
}

/**
 * Which opa compiles (part of the cache key, so a new opa compiles again): a binary named by its path
 * by its size and time, without running it (a server start with cached rules runs nothing); one
 * found on PATH by its version.
 */
async function opaIdentity(opaPath: string): Promise<string> {
  if (opaPath.includes(path.sep)) {
    try {
      const { size, mtimeMs } = await stat(opaPath)
      return `${opaPath}\0${size}\0${mtimeMs}`
    } catch (err) {
      throw notRunnable(opaPath, err)
    }
  }
  try {
    return (await run(opaPath, ['version'])).stdout.split('\n')[0] ?? ''
  } catch (err) {
    throw notRunnable(opaPath, err)
  }
}

const notRunnable = (opaPath: string, err: unknown) =>
  new PolicyBuildError(
    `the rules cannot be compiled: ${opaPath} did not run (${(err as Error).message.split('\n')[0]}); run npm run provision or set OPA_PATH`,
  )

async function build(folders: string[], opaPath: string): Promise<Uint8Array> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'ies-policy-build-'))
  try {
    const bundle = path.join(work, 'bundle.tar.gz')
    const present = (await Promise.all(folders.map(async (f) => ((await ruleSources(f)).length > 0 ? [f] : [])))).flat()
    const args = ['build', '-t', 'wasm', '-e', ENTRYPOINT, '--ignore', '*_test.rego', '-o', bundle, ...present]
    try {
      await run(opaPath, args, { maxBuffer: 4 * 1024 * 1024 })
    } catch (err) {
      // opa prints its errors (`file:line: rego_..._error: ...`) on standard output or error.
      const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string }
      const out = `${stdout}\n${stderr}`.trim() || (err as Error).message
      throw new PolicyBuildError(`the rules do not compile:\n${out}`)
    }
    // Loaded only to compile (a start with cached rules does not need it).
    const { extract } = await import('tar')
    await extract({ file: bundle, cwd: work, filter: (p) => p.replace(/^\/+/, '') === 'policy.wasm' })
    return await readFile(path.join(work, 'policy.wasm'))
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}
