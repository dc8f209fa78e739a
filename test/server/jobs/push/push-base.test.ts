// The merge's base cannot be lost, end to end (API, real FerretDB, a real git http-backend server,
// the git CLI as the customer): IES keeps the generated files of each push and finds them from the
// `.ies/generation.json` on the branch, so a deleted generated ref, a host that refuses
// `refs/ies/*` and `ies/generated/*`, and a review branch merged by squash (the host's default
// message, no trailers) or by rebase all leave the next push a clean merge. Also: no branch
// configured is the repository's default branch, and a conflict's job record leaves out the
// customer's secret-looking lines.
import { chmod, writeFile } from 'node:fs/promises'
import path from 'node:path'
import t, { type Test } from 'tap'
import { LEFT_OUT } from '../../../../server/src/jobs/push/push-details.ts'
import { eventually } from '../../../harness/eventually.ts'
import { checkout as clone, startPushServer } from '../../../harness/push-server.ts'
import { environmentBody, waitForJob } from '../../../harness/jobs.ts'

const DEPLOY_KEY = 'iest_YmFzZS10ZXN0LWRlcGxveS1rZXk'
const TFVARS = 'terraform/terraform.tfvars'
const OUTPUTS = 'terraform/outputs.tf'
const REFUSE_IES_REFS =
  '#!/bin/sh\nwhile read old new ref; do case "$ref" in refs/ies/*|refs/heads/ies/generated/*) echo "$ref is not allowed here" >&2; exit 1;; esac; done\nexit 0\n'

t.test('the base of a push cannot be lost', async (t) => {
  const { git, app, url, auth, dev, api } = await startPushServer(t, DEPLOY_KEY)
  const envWith = async (name: string, repo: string, branch: string | null = 'main') => {
    const gitRepository = { url: git.url(repo), ...(branch && { branch }), deployKey: DEPLOY_KEY }
    const res = await api('POST', '/environments', { ...environmentBody({ name }), gitRepository })
    if (res.status !== 201) throw new Error(`environment ${name}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data as { id: string }
  }
  const push = async (envId: string, body: Record<string, unknown> = {}) => {
    const res = await api('POST', `/environments/${envId}/push`, body)
    if (res.status !== 202) throw new Error(`push: ${res.status} ${JSON.stringify(res.body)}`)
    return waitForJob(url, dev, res.body.data.id)
  }
  const setDomain = async (envId: string, domain: string) => {
    const res = await api('PUT', `/environments/${envId}`, { domain })
    if (res.status !== 200) throw new Error(`update: ${res.status} ${JSON.stringify(res.body)}`)
  }

  /** A clone of the repository on `branch`, worked on with the git CLI. */
  const checkout = (repo: string, branch = 'main') => clone(t, git, DEPLOY_KEY, repo, branch)
  const show = (repo: string, spec: string) => git.git(repo, ['show', spec])
  const refuseIesRefs = async (repo: string) => {
    const hook = path.join(git.reposDir, `${repo}.git`, 'hooks', 'pre-receive')
    await writeFile(hook, REFUSE_IES_REFS)
    await chmod(hook, 0o755)
  }
  /** The customer's own comment on top of a generated file, away from what a domain change touches. */
  const comment = (text: string) => `# reviewed by the platform team\n${text}`

  await t.test('no branch configured: the default branch (master)', async (t) => {
    await git.createRepo('master', { 'README.md': '# shop\n' })
    await git.git('master', ['branch', '-m', 'main', 'master'])
    await git.git('master', ['symbolic-ref', 'HEAD', 'refs/heads/master'])
    const env = await envWith('base-master', 'master', null)
    const done = await push(env.id)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    t.match(done.result, { branch: 'master', changed: true })
    t.equal((await git.git('master', ['for-each-ref', '--format=%(refname)', 'refs/heads'])).trim(), 'refs/heads/master')
    t.match((await api('GET', `/environments/${env.id}`)).body.data.lastPush, {
      branch: 'master',
      commit: (await git.git('master', ['rev-parse', 'master'])).trim(),
    })
  })

  await t.test('the generated ref deleted: the next push still merges cleanly', async (t) => {
    await git.createRepo('noref', { 'README.md': '# shop\n' })
    const env = await envWith('base-noref', 'noref')
    t.equal((await push(env.id)).status, 'succeeded')
    const repo = await checkout('noref')
    await repo.edit(OUTPUTS, comment)
    await repo.commitAndPush('our comment')
    await repo.git('push', '-q', 'origin', ':refs/ies/generated/main')
    await setDomain(env.id, 'shop2.example.com')
    const done = await push(env.id)
    t.equal(done.status, 'succeeded', JSON.stringify(done.error))
    t.match(await show('noref', `main:${OUTPUTS}`), /^# reviewed by the platform team\n/, "the customer's comment is kept")
    t.match(await show('noref', `main:${TFVARS}`), 'domain = "shop2.example.com"')
    t.match(await git.git('noref', ['for-each-ref', 'refs/ies']), 'refs/ies/generated/main', 'the ref is made again')

    const kept = () => app.mongo.db.collection('pushBases').countDocuments({ environmentId: env.id })
    t.equal(await kept(), 2, 'IES keeps the generated files of both pushes')
    t.equal((await fetch(`${url}/api/environments/${env.id}`, { method: 'DELETE', headers: auth('dev') })).status, 204)
    t.equal(await eventually(kept, (n) => n === 0), 0, 'and removes them with the environment')
  })

  await t.test('a host that refuses refs/ies/* and ies/generated/*: a warning, and later pushes still merge', async (t) => {
    await git.createRepo('refusing', { 'README.md': '# shop\n' })
    await refuseIesRefs('refusing')
    const env = await envWith('base-refusing', 'refusing')
    const first = await push(env.id)
    t.equal(first.status, 'succeeded', JSON.stringify(first.error))
    t.match(first.result.warnings, [/could not be kept in the repository/])
    t.equal(await git.git('refusing', ['for-each-ref', 'refs/ies', 'refs/heads/ies']), '', 'no generated ref on the host')
    const repo = await checkout('refusing')
    await repo.edit(OUTPUTS, comment)
    await repo.commitAndPush('our comment')
    for (const domain of ['shop2.example.com', 'shop3.example.com']) {
      await setDomain(env.id, domain)
      const done = await push(env.id)
      t.equal(done.status, 'succeeded', JSON.stringify(done.error))
      t.match(await show('refusing', `main:${TFVARS}`), `domain = "${domain}"`)
      t.match(await show('refusing', `main:${OUTPUTS}`), /^# reviewed by the platform team\n/)
    }
  })

  /**
   * A conflict (the customer and a configuration change both changed the domain line), pushed to a
   * review branch and resolved there by keeping the customer's line; `land` merges the review into main.
   */
  const reviewedConflict = async (t: Test, repoName: string, land: (review: string) => Promise<void>) => {
    await git.createRepo(repoName, { 'README.md': '# shop\n' })
    const env = await envWith(`base-${repoName}`, repoName)
    t.equal((await push(env.id)).status, 'succeeded')
    const main = await checkout(repoName)
    await main.edit(TFVARS, (text) =>
      text.replace('domain = "shop.example.com"', 'domain = "ours.example.com"\napi_token = "tok-8d1f0c7e5b2a"'),
    )
    await main.commitAndPush('our domain')
    await setDomain(env.id, 'shop2.example.com')
    const refused = await push(env.id)
    t.equal(refused.error?.code, 'PUSH_CONFLICT')
    const recorded = JSON.stringify(refused.error)
    t.notMatch(recorded, 'tok-8d1f0c7e5b2a', "the job record leaves out the customer's secret-looking line")
    t.match(recorded, LEFT_OUT)
    const review = await push(env.id, { strategy: 'branch' })
    t.equal(review.status, 'succeeded', JSON.stringify(review.error))
    const resolving = await checkout(repoName, review.result.branch)
    await resolving.edit(TFVARS, (text) =>
      text.replace(/<<<<<<< [^\n]*\n[\s\S]*?>>>>>>> new generation\n/, 'domain = "ours.example.com"\n'),
    )
    await resolving.commitAndPush('keep our domain')
    await land(review.result.branch)
    t.match(await show(repoName, `main:${TFVARS}`), 'domain = "ours.example.com"')

    const next = await push(env.id)
    t.equal(next.status, 'succeeded', `the resolved conflict is not raised again: ${JSON.stringify(next.error)}`)
    await setDomain(env.id, 'shop3.example.com')
    const later = await push(env.id)
    t.equal(later.error?.code, 'PUSH_CONFLICT', 'a new change to the line the customer owns conflicts again')
  }

  await t.test('a review branch merged by squash with the default message: the conflict is resolved once', async (t) => {
    await reviewedConflict(t, 'squash', async (review) => {
      const main = await checkout('squash')
      await main.git('fetch', '-q', 'origin', review)
      await main.git('merge', '-q', '--squash', 'FETCH_HEAD')
      await main.git('commit', '-q', '-m', `Update shop (#12)`)
      await main.git('push', '-q', 'origin', 'HEAD:main', `:${review}`)
    })
  })

  await t.test('a review branch merged by rebase: the conflict is resolved once', async (t) => {
    await reviewedConflict(t, 'rebase', async (review) => {
      const main = await checkout('rebase')
      await main.git('fetch', '-q', 'origin', review)
      await main.git('cherry-pick', 'main..FETCH_HEAD')
      await main.git('push', '-q', 'origin', 'HEAD:main', `:${review}`)
    })
  })
})
