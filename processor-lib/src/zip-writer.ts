/**
 * Zipping a processed tree in one pass in memory: entries sorted by path, fixed timestamps and Unix
 * modes, so the same tree gives the same bytes (PKWARE APPNOTE 6.3: local headers, data, central
 * directory, end record; no Zip64, so at most 65,535 entries and 4 GiB).
 *
 * Compression is Node's zlib (raw deflate) and its CRC-32. Most files of a generation are the same
 * from one generation to the next and across environments (the modules, the pipeline), so each
 * entry's compressed bytes are kept in a bounded cache keyed by the SHA-256 of its content and the
 * level: a warm generation compresses only what changed. No zip library takes entries already
 * compressed, which the cache needs (README.md, "Archives"). Compression is synchronous, so a tree
 * is compressed a few milliseconds of the event loop at a time (TURN_BUDGET_MS): a server that zips
 * a cold tree (a first generation, the templates version kept on the catalog's first read) answers
 * other requests in between.
 */
import { createHash } from 'node:crypto'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { crc32, deflateRawSync } from 'node:zlib'
import { LRUCache } from 'lru-cache'
import type { TreeFile } from './files.ts'

/**
 * Deflate level of the archives: 1, much faster than the default 6 on the generated tree for a few
 * more bytes (docs/internals/benchmarks.md, "Measurements behind the code").
 */
export const DEFAULT_ZIP_LEVEL = 1

const STORED = 0
const DEFLATED = 8
/** 2000-01-01 00:00:00 in MS-DOS form: ((year - 1980) << 9) | (month << 5) | day; time 0. */
const DOS_DATE = ((2000 - 1980) << 9) | (1 << 5) | 1
const UTF8_NAMES = 0x0800
const VERSION = 20
/** "Made by" Unix (3), so that readers take the mode from the external attributes. */
const MADE_BY_UNIX = (3 << 8) | VERSION
const S_IFREG = 0o100000
const MAX_ENTRIES = 0xffff
const MAX_OFFSET = 0xffffffff
/** The longest compression in one turn of the event loop before the next file waits for the next turn, in ms. */
const TURN_BUDGET_MS = 5

interface Compressed {
  method: number
  crc: number
  data: Buffer
}

/** Compressed entries by content and level; 32 MiB of compressed bytes. */
const compressedCache = new LRUCache<string, Compressed>({ maxSize: 32 * 1024 * 1024, sizeCalculation: (c) => c.data.length + 64 })

function compress(content: Buffer, level: number): Compressed {
  const key = `${level}:${createHash('sha256').update(content).digest('base64')}`
  const cached = compressedCache.get(key)
  if (cached) return cached
  const deflated = level > 0 && content.length > 0 ? deflateRawSync(content, { level }) : undefined
  // Stored when deflate does not make it smaller (empty, tiny or already compressed content).
  const entry =
    deflated && deflated.length < content.length
      ? { method: DEFLATED, crc: crc32(content), data: deflated }
      : { method: STORED, crc: crc32(content), data: content }
  compressedCache.set(key, entry)
  return entry
}

/** The fields a local header and a central directory header share, from "version needed" to the name length. */
function commonFields(target: Buffer, at: number, entry: Compressed, size: number, nameLength: number): void {
  target.writeUInt16LE(VERSION, at)
  target.writeUInt16LE(UTF8_NAMES, at + 2)
  target.writeUInt16LE(entry.method, at + 4)
  target.writeUInt16LE(0, at + 6) // time
  target.writeUInt16LE(DOS_DATE, at + 8)
  target.writeUInt32LE(entry.crc, at + 10)
  target.writeUInt32LE(entry.data.length, at + 14)
  target.writeUInt32LE(size, at + 18)
  target.writeUInt16LE(nameLength, at + 22)
}

/** Zip the files (sorted by path) into one Buffer. Every file becomes exactly one entry. */
export async function zipTree(files: readonly TreeFile[], opts: { level?: number } = {}): Promise<Buffer> {
  const level = opts.level ?? DEFAULT_ZIP_LEVEL
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  if (sorted.length > MAX_ENTRIES) throw new RangeError(`a zip without Zip64 holds at most ${MAX_ENTRIES} entries`)
  const parts: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  let turnStart = performance.now()
  for (const file of sorted) {
    if (performance.now() - turnStart > TURN_BUDGET_MS) {
      await nextTurn()
      turnStart = performance.now()
    }
    const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content
    const name = Buffer.from(file.path, 'utf8')
    const entry = compress(content, level)

    const local = Buffer.alloc(30 + name.length)
    local.writeUInt32LE(0x04034b50, 0)
    commonFields(local, 4, entry, content.length, name.length)
    local.writeUInt16LE(0, 28) // extra field length
    name.copy(local, 30)

    const header = Buffer.alloc(46 + name.length)
    header.writeUInt32LE(0x02014b50, 0)
    header.writeUInt16LE(MADE_BY_UNIX, 4)
    commonFields(header, 6, entry, content.length, name.length)
    // extra field, comment, disk number and internal attributes stay 0
    header.writeUInt32LE(((S_IFREG | (file.mode & 0o7777)) << 16) >>> 0, 38)
    header.writeUInt32LE(offset, 42)
    name.copy(header, 46)

    parts.push(local, entry.data)
    central.push(header)
    offset += local.length + entry.data.length
    if (offset > MAX_OFFSET) throw new RangeError('a zip without Zip64 holds at most 4 GiB')
  }
  const directorySize = central.reduce((n, b) => n + b.length, 0)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(sorted.length, 8)
  end.writeUInt16LE(sorted.length, 10)
  end.writeUInt32LE(directorySize, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...parts, ...central, end])
}
