// The bytes of a Git tree object, read and written here rather than by isomorphic-git's
// readTree/writeTree, which decode entry names as UTF-8 and would rename a file whose name is not
// (a Latin-1 name from an old repository comes back with U+FFFD). Names become strings losslessly:
// valid UTF-8 as itself, each other byte as one of U+DC80..U+DCFF (lone surrogates, which valid
// UTF-8 never decodes to: Python's "surrogateescape"), and back to the same bytes.
import { isUtf8 } from 'node:buffer'

export interface RawTreeEntry {
  /** As git writes it: `40000` for a folder, `100644`, `100755`, `120000`, `160000`. */
  mode: string
  name: string
  oid: string
}

/** The length of the UTF-8 character starting at `i`, or 0 when the byte there starts none. */
function charLength(bytes: Buffer, i: number): number {
  for (let n = 1; n <= 4 && i + n <= bytes.length; n++) if (isUtf8(bytes.subarray(i, i + n))) return n
  return 0
}

export function decodeName(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8')
  let name = ''
  for (let i = 0; i < bytes.length;) {
    const n = charLength(bytes, i)
    name += n ? bytes.toString('utf8', i, i + n) : String.fromCharCode(0xdc00 + bytes[i])
    i += n || 1
  }
  return name
}

const ESCAPED = /[\udc80-\udcff]/

export function encodeName(name: string): Buffer {
  if (!ESCAPED.test(name)) return Buffer.from(name, 'utf8')
  const parts: Buffer[] = []
  for (const char of name) {
    const code = char.charCodeAt(0)
    parts.push(char.length === 1 && code >= 0xdc80 && code <= 0xdcff ? Buffer.from([code - 0xdc00]) : Buffer.from(char, 'utf8'))
  }
  return Buffer.concat(parts)
}

/** A mode as git's fsck accepts it (old repositories may hold `100664` and the like). */
function canonicalMode(mode: string): string {
  if (/^0?4/.test(mode)) return '40000'
  if (/^1007/.test(mode)) return '100755'
  if (/^100/.test(mode)) return '100644'
  if (/^120/.test(mode)) return '120000'
  if (/^160/.test(mode)) return '160000'
  throw new Error(`a tree entry of mode ${mode}`)
}

export function parseTree(object: Uint8Array): RawTreeEntry[] {
  const bytes = Buffer.from(object.buffer, object.byteOffset, object.byteLength)
  const entries: RawTreeEntry[] = []
  for (let at = 0; at < bytes.length;) {
    const space = bytes.indexOf(0x20, at)
    const nul = bytes.indexOf(0, space)
    if (space === -1 || nul === -1 || nul + 21 > bytes.length) throw new Error('a malformed tree object')
    const mode = canonicalMode(bytes.toString('latin1', at, space))
    entries.push({ mode, name: decodeName(bytes.subarray(space + 1, nul)), oid: bytes.toString('hex', nul + 1, nul + 21) })
    at = nul + 21
  }
  return entries
}

/** The bytes of a tree object: entries sorted as git sorts them (by name bytes, a folder's name as if it ended in `/`). */
export function serializeTree(entries: readonly RawTreeEntry[]): Buffer {
  const named = entries.map((entry) => ({ entry, name: encodeName(entry.name) }))
  const key = ({ entry, name }: (typeof named)[number]) => (entry.mode === '40000' ? Buffer.concat([name, Buffer.from('/')]) : name)
  named.sort((x, y) => Buffer.compare(key(x), key(y)))
  return Buffer.concat(
    named.flatMap(({ entry, name }) => [Buffer.from(`${entry.mode} `), name, Buffer.from([0]), Buffer.from(entry.oid, 'hex')]),
  )
}
