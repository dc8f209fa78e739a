/**
 * Trees: reading a templates directory (in parallel), processing a list of files in memory,
 * and writing a processed tree. `processTree` is what the CLI, the service and the jobs call.
 */
import { mkdir, readdir, readFile, stat, writeFile, chmod } from 'node:fs/promises'
import { dirname, join, sep } from 'node:path'
import yauzl from 'yauzl'
import { finding, ProcessorError, sortFindings, type Finding } from './findings.ts'
import { languageOf } from './languages.ts'
import { withEnvironmentDiagram } from './readme-diagram.ts'
import { processFile } from './substitute.ts'
import { outputEntries } from './template-ignore.ts'
import type { InputFile, TreeFile } from './files.ts'

export interface ProcessResult {
  /** True when no file was refused; then `files` is the complete tree. */
  ok: boolean
  /** Sorted by path. Empty when `ok` is false. */
  files: TreeFile[]
  /** Every finding (warnings and errors), sorted by file and line. */
  findings: Finding[]
  /** Paths of refused files. */
  refused: string[]
  /** Number of input files that are output (the ignore file and what it lists are not counted). */
  inputCount: number
}

export interface ProcessOptions {
  trimDecoratorAttrs?: boolean
}

/** Directories never read from a templates tree. */
const SKIP_DIRS = new Set(['.git'])

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0
}

/** List every entry below `root` (relative `/` paths). Symbolic links and other non-files are reported, not followed. */
export async function listTree(root: string): Promise<{ files: string[]; unsupported: string[] }> {
  const files: string[] = []
  const unsupported: string[] = []
  async function walk(rel: string): Promise<void> {
    const entries = await readdir(rel ? join(root, rel) : root, { withFileTypes: true })
    const subdirs: Promise<void>[] = []
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) subdirs.push(walk(p))
      } else if (e.isFile()) files.push(p)
      else unsupported.push(p)
    }
    await Promise.all(subdirs)
  }
  try {
    await walk('')
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') {
      throw new ProcessorError(400, 'TEMPLATES_NOT_FOUND', `templates directory not found: ${root}`)
    }
    throw e
  }
  files.sort()
  unsupported.sort()
  return { files, unsupported }
}

/** Read a templates directory into memory, every file in parallel. */
export async function readTree(root: string): Promise<{ inputs: InputFile[]; unsupported: string[] }> {
  const { files, unsupported } = await listTree(root)
  const inputs = await Promise.all(
    files.map(async (path) => {
      const abs = join(root, ...path.split('/'))
      const [content, st] = await Promise.all([readFile(abs), stat(abs)])
      return { path, content, mode: st.mode & 0o111 ? 0o755 : 0o644 }
    }),
  )
  return { inputs, unsupported }
}

/**
 * The inputs that are output (without the ignore file and what it lists: template-ignore.ts), then
 * only those under the path prefixes when some are given. A caller that selects folders selects with
 * this, so the ignore file at the root is read before the selection leaves it out.
 */
export function selectInputs<T extends InputFile>(inputs: readonly T[], prefixes?: readonly string[]): T[] {
  const output = outputEntries(inputs)
  return prefixes ? output.filter((f) => prefixes.some((prefix) => f.path.startsWith(prefix))) : output
}

/**
 * Process files already in memory (an unpacked upload, a clone, a read tree): the files the ignore
 * file leaves, with the environment diagram written into the Markdown that asks for it (readme-diagram.ts).
 */
export function processFiles(all: readonly InputFile[], config: unknown, opts: ProcessOptions = {}): ProcessResult {
  const inputs = selectInputs(all)
  const findings: Finding[] = []
  const refused: string[] = []
  let files: TreeFile[] = []
  for (const input of inputs) {
    const lang = languageOf(input.path)
    if (!lang) {
      files.push({ path: input.path, content: input.content, mode: input.mode })
      continue
    }
    let result
    try {
      result = processFile(input.path, input.content.toString('utf8'), lang, config, opts)
    } catch (e) {
      result = {
        content: null,
        findings: [finding('READ_FAILED', 'error', input.path, 0, null, `processing threw: ${(e as Error).message}`)],
      }
    }
    for (const f of result.findings) findings.push(f)
    if (result.content === null) refused.push(input.path)
    else files.push({ path: input.path, content: result.content, mode: input.mode })
  }
  files.sort(byPath)
  const ok = refused.length === 0
  if (ok) files = withEnvironmentDiagram(files, inputs, config)
  return { ok, files: ok ? files : [], findings: sortFindings(findings), refused: refused.sort(), inputCount: inputs.length }
}

/**
 * The file-count check of a generated tree (spec "Template processor": a generation error for a
 * file-count mismatch; a success status alone does not prove the tree complete). Every input of
 * `processFiles` is either in `files` or refused, so the check is made where a tree leaves the
 * processor: `produced` (the entries of the archive, the files written) against `expected` (the
 * processed files, plus what the caller adds such as `terraform/backend.tf`). MISSING_OUTPUT
 * findings: each expected path that is absent, each path that is not expected or appears twice,
 * and the counts when they differ. Empty when they agree.
 */
export function outputFindings(expected: readonly string[], produced: readonly string[]): Finding[] {
  const out: Finding[] = []
  const want = new Set(expected)
  const seen = new Set<string>()
  for (const p of produced) {
    if (seen.has(p)) out.push(finding('MISSING_OUTPUT', 'error', p, 0, null, 'appears more than once in the output'))
    else if (!want.has(p)) out.push(finding('MISSING_OUTPUT', 'error', p, 0, null, 'in the output but not expected'))
    seen.add(p)
  }
  for (const p of want) if (!seen.has(p)) out.push(finding('MISSING_OUTPUT', 'error', p, 0, null, 'expected in the output but absent'))
  if (produced.length !== want.size) {
    out.push(finding('MISSING_OUTPUT', 'error', '.', 0, null, `${produced.length} files in the output for ${want.size} expected`))
  }
  return sortFindings(out)
}

/** The file entries of a zip, from its central directory (nothing is inflated; directory entries are skipped). */
export async function archiveEntries(zip: Buffer): Promise<string[]> {
  return (await archiveListing(zip)).map((entry) => entry.path)
}

/** The archive's files (directory entries left out), with their uncompressed sizes, in archive order. */
export async function archiveListing(zip: Buffer): Promise<{ path: string; size: number }[]> {
  const archive = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, z) => (err || !z ? reject(err ?? new Error('not a zip')) : resolve(z))),
  ).catch((e: Error) => {
    throw new ProcessorError(500, 'GENERATION_FAILED', `the generated archive cannot be read: ${e.message}`)
  })
  const names: { path: string; size: number }[] = []
  await new Promise<void>((resolve, reject) => {
    archive.on('entry', (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith('/')) names.push({ path: entry.fileName, size: entry.uncompressedSize })
      archive.readEntry()
    })
    archive.on('end', () => resolve())
    archive.on('error', (e: Error) =>
      reject(new ProcessorError(500, 'GENERATION_FAILED', `the generated archive cannot be read: ${e.message}`)),
    )
    archive.readEntry()
  })
  return names
}

/** outputFindings for an archive's entries. */
export async function archiveFindings(zip: Buffer, expected: readonly string[]): Promise<Finding[]> {
  return outputFindings(expected, await archiveEntries(zip))
}

/**
 * Throws the generation error (GENERATION_FAILED, details `{ refused, findings }` as for refused
 * files) unless the archive holds exactly the expected files.
 */
export async function checkArchive(zip: Buffer, expected: readonly string[]): Promise<void> {
  const findings = await archiveFindings(zip, expected)
  if (findings.length === 0) return
  const files = [...new Set(findings.map((f) => f.file).filter((f) => f !== '.'))]
  throw new ProcessorError(500, 'GENERATION_FAILED', `the generated archive does not hold the expected files (${files.length} differ)`, {
    refused: files,
    findings,
  })
}

/** Read and process a templates directory, in memory. */
export async function processTree(opts: { templatesDir: string; config: unknown; trimDecoratorAttrs?: boolean }): Promise<ProcessResult> {
  const { inputs, unsupported } = await readTree(opts.templatesDir)
  const result = processFiles(inputs, opts.config, { trimDecoratorAttrs: opts.trimDecoratorAttrs })
  if (unsupported.length === 0) return result
  const extra = unsupported.map((p) => finding('UNSUPPORTED_ENTRY', 'error', p, 0, null, 'not a regular file (links are not followed)'))
  return {
    ...result,
    ok: false,
    files: [],
    findings: sortFindings([...result.findings, ...extra]),
    refused: [...result.refused, ...unsupported].sort(),
  }
}

/** Write a processed tree below `outDir` (directories created as needed), then check every file landed. */
export async function writeTree(outDir: string, files: readonly TreeFile[]): Promise<void> {
  const dirs = new Set<string>()
  for (const f of files) dirs.add(dirname(join(outDir, ...f.path.split('/'))))
  await Promise.all([...dirs].sort().map((d) => mkdir(d, { recursive: true })))
  await Promise.all(
    files.map(async (f) => {
      const abs = join(outDir, ...f.path.split('/'))
      await writeFile(abs, f.content)
      if (f.mode & 0o111) await chmod(abs, 0o755)
    }),
  )
  const sizes = await Promise.all(files.map((f) => stat(join(outDir, ...f.path.split('/'))).then((s) => s.size)))
  const short = files.filter((f, i) => sizes[i] !== Buffer.byteLength(f.content))
  if (short.length > 0) {
    throw new ProcessorError(
      500,
      'WRITE_INCOMPLETE',
      `${short.length} files were not written completely`,
      short.map((f) => f.path),
    )
  }
}

export { sep as pathSeparator }
