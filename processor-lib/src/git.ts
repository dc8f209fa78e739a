/** Cloning a templates repository (isomorphic-git over HTTP(S), no git binary) into memory. */
import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { ProcessorError } from './findings.ts';
import { readTree, type InputFile } from './tree.ts';

export interface CloneOptions {
  url: string;
  /** Branch to clone; default `main`. */
  branch?: string;
  /** Optional HTTP Basic credentials. */
  username?: string;
  password?: string;
  /** Folder inside the repository holding the templates; default the repository root. */
  subdir?: string;
}

/** Shallow-clone one branch into a temporary folder, read the tree (without .git), remove the folder. */
export async function cloneRepository(opts: CloneOptions): Promise<{ inputs: InputFile[]; commit: string; unsupported: string[] }> {
  let url: URL;
  try {
    url = new URL(opts.url);
  } catch {
    throw new ProcessorError(400, 'BAD_REQUEST', 'url is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProcessorError(400, 'BAD_REQUEST', 'url must be an http or https URL');
  }
  const subdir = opts.subdir ?? '';
  if (subdir.split('/').some((s) => s === '..') || subdir.startsWith('/')) {
    throw new ProcessorError(400, 'BAD_REQUEST', 'subdir must be a relative folder inside the repository');
  }
  const dir = await mkdtemp(join(tmpdir(), 'ies-clone-'));
  try {
    const branch = opts.branch || 'main';
    try {
      await git.clone({
        fs,
        http,
        dir,
        url: opts.url,
        ref: branch,
        singleBranch: true,
        depth: 1,
        noTags: true,
        onAuth: opts.username !== undefined ? () => ({ username: opts.username, password: opts.password ?? '' }) : undefined,
        onAuthFailure: () => ({ cancel: true }),
      });
    } catch (e) {
      const err = e as Error & { code?: string };
      throw new ProcessorError(400, 'CLONE_FAILED', `could not clone ${url.origin}${url.pathname} at ${branch}: ${err.code ?? err.message}`);
    }
    const commit = await git.resolveRef({ fs, dir, ref: 'HEAD' });
    const { inputs, unsupported } = await readTree(subdir ? join(dir, subdir) : dir);
    return { inputs, commit, unsupported };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
