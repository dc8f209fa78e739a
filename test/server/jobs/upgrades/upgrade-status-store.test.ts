// The upgrade status from one document per user (server/src/jobs/upgrades/upgrade-status-store.ts):
// pushes recorded at once for several environments all land, a configuration change and a deletion
// show at the next read, pending pushes are folded into one string, and a missing document is built
// again from the last-push records. On the real embedded store (FerretDB).
import t from 'tap'
import { processorInput } from '@ies/server/jobs/generation/transform'
import { startTestApp } from '../../../harness/app.ts'
import { environmentBody } from '../../../harness/jobs.ts'

t.test('the upgrade status document follows pushes, changes and deletions', async (t) => {
  const { app, url, auth } = await startTestApp(t)
  const api = async (method: string, route: string, body?: unknown) => {
    const headers = { ...auth('dev'), ...(body !== undefined && { 'content-type': 'application/json' }) }
    const res = await fetch(`${url}/api${route}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
    return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as any) }
  }
  const ids: string[] = []
  for (const name of ['status-a', 'status-b', 'status-c', 'status-d'])
    ids.push((await api('POST', '/environments', environmentBody({ name }))).body.data.id)
  const records = app.jobs.pushing.records
  const userId = (await app.mongo.db.collection<{ _id: string; userId: string }>('environments').findOne({ _id: ids[0] }))!.userId
  const pushOf = async (id: string, jobId: string) => {
    const env = (await app.environments.get(userId, id))!
    await records.record({
      environmentId: id,
      userId,
      jobId,
      commit: 'c'.repeat(40),
      branch: 'main',
      templatesCommit: 'an-older-templates-version',
      format: 'terraform',
      options: { includeBackend: true, includeChart: true, includeGitops: true },
      input: processorInput(env),
      ofEnvironment: true,
    })
  }
  const status = async () => ((await api('GET', '/environments/upgrades')).body.data as any[]).map((e) => [e.name, e.behind])
  const doc = () => app.mongo.db.collection<{ _id: string; seq?: number; pushes?: string }>('upgradeStatus').findOne({ _id: userId })

  t.same(await status(), [], 'none pushed: none listed')
  // Four pushes recorded at once: none overwrites another.
  await Promise.all(ids.map((id, i) => pushOf(id, `job-${i}`)))
  const behindTemplates = { templates: true, configuration: false }
  t.same(
    (await status()).sort(),
    ['status-a', 'status-b', 'status-c', 'status-d'].map((name) => [name, behindTemplates]),
  )
  const folded = await doc()
  t.equal(folded?.seq, 4, 'the recorded pushes were folded into the one string')
  t.equal(folded?.pushes?.split('\n').length, 4)

  t.equal((await api('PUT', `/environments/${ids[1]}`, { region: 'eu-west-1' })).status, 200)
  const deleted = await api('DELETE', `/environments/${ids[2]}`)
  t.equal(deleted.status, 204, JSON.stringify(deleted.body))
  await pushOf(ids[3], 'job-later')
  t.same(
    (await status()).sort(),
    [
      ['status-a', behindTemplates],
      ['status-b', { templates: true, configuration: true }],
      ['status-d', behindTemplates],
    ],
    'a configuration change shows, a deleted environment goes',
  )
  t.notMatch((await doc())?.pushes ?? '', ids[2], "the deleted environment's line was dropped")
  t.match((await doc())?.pushes ?? '', 'job-later', 'the newest push of an environment wins')

  await app.mongo.db.collection<{ _id: string }>('upgradeStatus').deleteOne({ _id: userId })
  t.same((await status()).length, 3, 'a missing document is built again from the last-push records')
})
