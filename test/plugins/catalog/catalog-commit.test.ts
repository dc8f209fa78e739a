// GET /api/catalog's ETag (the templates commit) for a templates folder inside a larger git
// repository, as the bundled templates/ folder is in the IES repository: a commit elsewhere in the
// repository keeps the ETag (a saved wizard draft still sees the same catalog, a client keeps its 304),
// an uncommitted template edit is a new catalog at once (no stale 304), and the generation of the same
// tree carries the same commit.
import { execFile } from 'node:child_process'
import { appendFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { startTestApp } from '../../harness/app.ts'
import { createEnvironment, generateAndWait } from '../../harness/jobs.ts'
import { GIT_ENV } from '../../harness/git-env.ts'

const run = promisify(execFile)
const NEW_FIELD = '\n# @param services.eks.teamNote | displayName=Team note | type=text\nteam_note = "x"\n'

t.test('the catalog ETag follows the templates folder, not the repository', async (t) => {
  const repo = await mkdtemp(path.join(os.tmpdir(), 'ies-catalog-commit-'))
  t.teardown(() => rm(repo, { recursive: true, force: true }))
  const git = async (...args: string[]) => (await run('git', args, { cwd: repo, env: GIT_ENV })).stdout.trim()
  const commitAll = async (message: string) => {
    await git('add', '-A')
    await git('commit', '-q', '-m', message)
    return git('rev-parse', 'HEAD')
  }
  const tfvars = path.join(repo, 'templates/terraform/terraform.tfvars')
  await mkdir(path.dirname(tfvars), { recursive: true })
  await cp(path.join(BUNDLED_TEMPLATES_DIR, 'terraform/terraform.tfvars'), tfvars)
  await mkdir(path.join(repo, 'server'))
  await writeFile(path.join(repo, 'server/app.ts'), 'export {}\n')
  await git('init', '-q', '-b', 'main')
  const c1 = await commitAll('templates and service')

  const { url, auth } = await startTestApp(t, { TEMPLATES_DIR: path.join(repo, 'templates'), CATALOG_CACHE_TTL_MS: '0' })
  const get = (etag?: string) => fetch(`${url}/api/catalog`, { headers: { ...auth('dev'), ...(etag && { 'if-none-match': etag }) } })

  const first = await get()
  t.equal(first.status, 200)
  t.equal(first.headers.get('etag'), `"${c1}"`)
  t.equal(((await first.json()) as any).data.commit, c1)

  await writeFile(path.join(repo, 'server/app.ts'), 'export const changed = true\n')
  const c2 = await commitAll('a commit outside the templates')
  t.not(c2, c1)
  const unrelated = await get(`"${c1}"`)
  t.equal(unrelated.status, 304, "a commit elsewhere: the client's copy is still current")
  t.equal(unrelated.headers.get('etag'), `"${c1}"`)

  await appendFile(tfvars, NEW_FIELD)
  const edited = await get(`"${c1}"`)
  t.equal(edited.status, 200, 'an uncommitted template edit is a new catalog, not a stale 304')
  const editedEtag = edited.headers.get('etag')!
  t.match(editedEtag, new RegExp(`^"${c1}-dirty-[0-9a-f]{12}"$`))
  const doc = ((await edited.json()) as any).data
  t.equal(`"${doc.commit}"`, editedEtag)
  t.ok(doc.services.eks.fields.teamNote, "the edited templates' catalog")
  t.equal((await get(editedEtag)).status, 304, 'and stable while the folder is')

  const env = await createEnvironment({ url, auth })
  const done = await generateAndWait({ url, auth }, env.id)
  t.equal(done.status, 'succeeded', JSON.stringify(done.error))
  t.equal(done.result.templatesCommit, doc.commit, "the generation of that tree carries the catalog's commit")

  const c3 = await commitAll('templates: team note')
  const committed = await get(editedEtag)
  t.equal(committed.status, 200, 'committed: the commit that changed the templates')
  t.equal(committed.headers.get('etag'), `"${c3}"`)
})
