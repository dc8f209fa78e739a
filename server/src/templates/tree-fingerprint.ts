// A cheap fingerprint of a directory tree: every regular file's path, size, modification and change
// times (nanoseconds) and inode, without reading any content. Editing, replacing, adding, removing
// or renaming a file changes it.
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { listTree } from '@ies/processor-lib'

export async function treeFingerprint(dir: string): Promise<string> {
  const { files, unsupported } = await listTree(dir)
  const stats = await Promise.all(files.map((file) => stat(path.join(dir, ...file.split('/')), { bigint: true })))
  const h = createHash('sha256')
  files.forEach((file, i) => {
    const s = stats[i]
    h.update(`${file}\0${s.size}\0${s.mtimeNs}\0${s.ctimeNs}\0${s.ino}\0${s.mode}\n`)
  })
  for (const entry of unsupported) h.update(`!${entry}\n`)
  return h.digest('hex')
}
