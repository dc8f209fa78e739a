/**
 * The templates commit (the catalog's `commit` and the ETag of GET /catalog):
 * `HEAD` of the git repository that contains the templates directory (isomorphic-git, no git
 * binary), or, when the directory is not inside a repository, `sha256-<hex>` of the tree's
 * contents (every file's relative path and bytes, in path order).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { resolve } from 'node:path';
import * as git from 'isomorphic-git';
import { readTree, type InputFile } from './tree.ts';

export async function templatesCommit(templatesDir: string): Promise<string> {
  const dir = resolve(templatesDir);
  let root: string | null = null;
  try {
    root = await git.findRoot({ fs, filepath: dir });
  } catch {
    root = null;
  }
  if (root) {
    try {
      return await git.resolveRef({ fs, dir: root, ref: 'HEAD' });
    } catch {
      // a repository without commits: fall through to the content hash
    }
  }
  const { inputs } = await readTree(dir);
  return contentHash(inputs);
}

export function contentHash(inputs: readonly InputFile[]): string {
  const h = createHash('sha256');
  for (const f of inputs) {
    h.update(f.path);
    h.update('\0');
    h.update(String(f.content.length));
    h.update('\0');
    h.update(f.content);
  }
  return `sha256-${h.digest('hex')}`;
}
