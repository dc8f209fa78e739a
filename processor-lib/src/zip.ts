/** Unpacking an uploaded archive (yauzl) safely, in memory. Writing one: zip-writer.ts. */
import yauzl from 'yauzl'
import { ProcessorError } from './findings.ts'
import type { InputFile } from './files.ts'

export interface UnzipLimits {
  /** Most entries (files) accepted. */
  maxFiles: number
  /** Most total uncompressed bytes accepted. */
  maxBytes: number
}

const S_IFMT = 0o170000
const S_IFREG = 0o100000

/**
 * Unpack a zip in memory. Refused with 400 BAD_ARCHIVE: not a zip, entries that are absolute or
 * escape the root (`..`), links and other non-regular entries. Refused with 413 ARCHIVE_TOO_LARGE:
 * more entries than maxFiles or more bytes than maxBytes (checked on the declared and actual sizes).
 * The archive root is the templates root; directory entries are skipped.
 */
export async function unzipToFiles(buffer: Buffer, limits: UnzipLimits): Promise<InputFile[]> {
  let zip: yauzl.ZipFile
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.fromBuffer(buffer, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true }, (err, z) =>
        err || !z ? reject(err) : resolve(z),
      ),
    )
  } catch (e) {
    throw new ProcessorError(400, 'BAD_ARCHIVE', `not a readable zip archive: ${(e as Error).message}`)
  }
  if (zip.entryCount > limits.maxFiles) {
    zip.close()
    throw new ProcessorError(413, 'ARCHIVE_TOO_LARGE', `the archive holds ${zip.entryCount} entries; the limit is ${limits.maxFiles}`)
  }
  const files: InputFile[] = []
  let total = 0
  await new Promise<void>((resolve, reject) => {
    const fail = (e: unknown) => {
      zip.close()
      reject(e)
    }
    zip.on('error', (e: Error) =>
      fail(e instanceof ProcessorError ? e : new ProcessorError(400, 'BAD_ARCHIVE', `archive error: ${e.message}`)),
    )
    zip.on('end', () => resolve())
    zip.on('entry', (entry: yauzl.Entry) => {
      const name = entry.fileName
      const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff
      const type = unixMode & S_IFMT
      if (name.endsWith('/')) {
        zip.readEntry()
        return
      }
      const bad = entryProblem(name)
      if (bad) return fail(new ProcessorError(400, 'BAD_ARCHIVE', `entry "${name}" ${bad}`, { entry: name }))
      if (type !== 0 && type !== S_IFREG) {
        return fail(new ProcessorError(400, 'BAD_ARCHIVE', `entry "${name}" is a link or special file`, { entry: name }))
      }
      total += entry.uncompressedSize
      if (total > limits.maxBytes) {
        return fail(new ProcessorError(413, 'ARCHIVE_TOO_LARGE', `the archive unpacks to more than ${limits.maxBytes} bytes`))
      }
      zip.openReadStream(entry, (err, stream) => {
        if (err || !stream) return fail(new ProcessorError(400, 'BAD_ARCHIVE', `entry "${name}": ${err?.message}`))
        const chunks: Buffer[] = []
        stream.on('data', (c: Buffer) => chunks.push(c))
        stream.on('error', (e: Error) => fail(new ProcessorError(400, 'BAD_ARCHIVE', `entry "${name}": ${e.message}`)))
        stream.on('end', () => {
          files.push({ path: name, content: Buffer.concat(chunks), mode: unixMode & 0o111 ? 0o755 : 0o644 })
          zip.readEntry()
        })
      })
    })
    zip.readEntry()
  })
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** Why an entry name is unsafe, or null. */
export function entryProblem(name: string): string | null {
  if (name.includes('\\')) return 'uses a backslash'
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is an absolute path'
  if (name.includes('\0')) return 'contains a NUL byte'
  const segs = name.split('/')
  if (segs.some((s) => s === '..')) return 'escapes the archive root'
  if (segs.some((s) => s === '' || s === '.')) return 'has an empty or "." path segment'
  if (segs[0] === '.git' || segs.includes('.git')) return 'is inside a .git folder'
  return null
}
