/**
 * The catalog of a templates repository (GET /catalog?url=…): the same repository and branch the
 * caller generates from with POST /process-git-download, so the catalog's commit (its ETag) is the
 * X-Templates-Commit of a generation made right after.
 *
 * Every request asks the git host for the branch's commit (one ls-remote round trip with the
 * caller's credentials, so a cached catalog is never served to a caller the host refuses); the
 * repository is cloned (shallow, no checkout, only the parameter-values files read) only when that
 * commit is not the one cached. Entries are keyed by URL, branch and folder (never by credentials)
 * and hold only those files' text; the least recently used is dropped past `maxEntries`. Requests
 * that see the same new commit share one clone.
 */
import { buildCatalog, DEFAULT_PARAMS_FILES, type Catalog } from '../catalog.ts'
import { ProcessorError } from '../findings.ts'
import { readBranchFiles, remoteBranchHead, type RemoteBranch } from '../git.ts'
import { languageOf } from '../languages.ts'

export interface RepositoryCatalogRequest extends RemoteBranch {
  /** Folder inside the repository holding the templates ('' for the root). */
  subdir: string
  provider: string
}

interface Entry {
  commit: string
  /** Parameter-values file text by provider (null: the commit does not hold it). */
  texts: Map<string, string | null>
  catalogs: Map<string, Catalog>
}

export type RepositoryCatalogResult = { notModified: true; commit: string } | { notModified: false; commit: string; catalog: Catalog }

export class RepositoryCatalogs {
  private readonly entries = new Map<string, Entry>()
  private readonly loading = new Map<string, Promise<Entry>>()

  constructor(private readonly maxEntries = 16) {}

  /** The catalog at the branch's newest commit; `notModified` when `isCurrent(commit)` (the caller's ETag) holds. */
  async get(req: RepositoryCatalogRequest, isCurrent: (commit: string) => boolean): Promise<RepositoryCatalogResult> {
    const paramsFile = DEFAULT_PARAMS_FILES[req.provider]
    if (!paramsFile) {
      throw new ProcessorError(
        400,
        'UNKNOWN_PROVIDER',
        `no catalog for provider "${req.provider}" (known: ${Object.keys(DEFAULT_PARAMS_FILES).join(', ')})`,
      )
    }
    const head = await remoteBranchHead(req)
    if (!head) throw new ProcessorError(400, 'CLONE_FAILED', `the templates repository has no branch ${req.branch}`)
    if (isCurrent(head)) return { notModified: true, commit: head }

    const key = JSON.stringify([req.url, req.branch, req.subdir])
    let entry = this.entries.get(key)
    if (entry?.commit !== head) entry = await this.load(key, head, req)
    // The clone may have found a commit newer than the ls-remote did: it is the one served.
    if (entry.commit !== head && isCurrent(entry.commit)) return { notModified: true, commit: entry.commit }

    let catalog = entry.catalogs.get(req.provider)
    if (!catalog) {
      const text = entry.texts.get(req.provider)
      if (text == null) {
        throw new ProcessorError(404, 'MISSING_PARAMS_FILE', `parameter-values file not found in the templates repository: ${paramsFile}`)
      }
      catalog = buildCatalog(paramsFile, text, languageOf(paramsFile)!, entry.commit)
      entry.catalogs.set(req.provider, catalog)
    }
    return { notModified: false, commit: entry.commit, catalog }
  }

  private load(key: string, head: string, req: RepositoryCatalogRequest): Promise<Entry> {
    const loadKey = `${key}\n${head}`
    let pending = this.loading.get(loadKey)
    if (!pending) {
      pending = this.clone(key, req).finally(() => this.loading.delete(loadKey))
      this.loading.set(loadKey, pending)
    }
    return pending
  }

  private async clone(key: string, req: RepositoryCatalogRequest): Promise<Entry> {
    const prefix = req.subdir ? `${req.subdir.replace(/\/+$/, '')}/` : ''
    const providers = Object.keys(DEFAULT_PARAMS_FILES)
    const { commit, files } = await readBranchFiles({ ...req, paths: providers.map((p) => prefix + DEFAULT_PARAMS_FILES[p]) })
    const texts = new Map<string, string | null>()
    for (const p of providers) texts.set(p, files.get(prefix + DEFAULT_PARAMS_FILES[p])?.toString('utf8') ?? null)
    const entry: Entry = { commit, texts, catalogs: new Map() }
    // The newest load wins; should an older commit's clone finish last, the next request sees a
    // different head and loads again.
    this.entries.delete(key)
    this.entries.set(key, entry)
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    return entry
  }
}
