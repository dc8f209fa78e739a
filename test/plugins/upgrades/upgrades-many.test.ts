// The bulk upgrade of a user with many environments reads their last pushes a few at a time: all at
// once (10,000 environments) would queue as many reads in the driver, fail the request for those
// that wait past its queue timeout, and hold the event loop for seconds (GET /health answers late).
// The upgrade status reads none of them: the user's status document holds the last pushes.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { environmentBody } from '../../harness/jobs.ts'

const ENVIRONMENTS = 40

t.test('a dry-run upgrade reads the last pushes at most 8 at a time; the upgrade status reads none', async (t) => {
  const { app, url, auth } = await startTestApp(t)
  const headers = { ...auth('dev'), 'content-type': 'application/json' }
  for (let i = 0; i < ENVIRONMENTS; i++) {
    const res = await fetch(`${url}/api/environments`, {
      method: 'POST',
      headers,
      body: JSON.stringify(environmentBody({ name: `many-${i}` })),
    })
    t.equal(res.status, 201)
  }
  // The real records, counted on their way through.
  const records = app.jobs.pushing.records
  const last = records.last.bind(records)
  let inFlight = 0
  let most = 0
  let reads = 0
  records.last = async (id) => {
    reads++
    most = Math.max(most, ++inFlight)
    try {
      return await last(id)
    } finally {
      inFlight--
    }
  }

  const listed = await fetch(`${url}/api/environments/upgrades`, { headers })
  t.equal(listed.status, 200)
  t.same(((await listed.json()) as any).data, [], 'none was pushed: none is behind')
  const upgrade = await fetch(`${url}/api/environments/upgrade`, { method: 'POST', headers, body: JSON.stringify({ dryRun: true }) })
  t.equal(upgrade.status, 202)
  t.equal(reads, ENVIRONMENTS, 'the status reads no last-push record (one status document per user); the upgrade reads each')
  t.ok(most <= 8 && most > 1, `at most 8 reads at once, and more than one (${most})`)
})
