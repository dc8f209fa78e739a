// An environment's drift check in words: the schedule, what a scheduled check still needs, and the
// last check's outcome.
import t from 'tap'
import { driftCheckNeeds, driftScheduleWords, lastDriftWords } from '../../../../../desktop/src/renderer/lib/environments/drift.ts'

t.test('the schedule in words', async (t) => {
  t.equal(driftScheduleWords(undefined), 'Only when asked')
  t.equal(driftScheduleWords(1), 'Every hour')
  t.equal(driftScheduleWords(24), 'Every 24 hours')
})

t.test('what a scheduled check still needs', async (t) => {
  t.same(driftCheckNeeds({}), ['a state bucket', 'a cloud credential', 'a Git repository'])
  t.same(driftCheckNeeds({ bucket: 's', gitUrl: 'https://git.example.com/a.git', credentialId: 'c1' }), [])
  t.same(driftCheckNeeds({ bucket: 's', credentialId: 'c1' }), ['a Git repository'])
})

t.test("the last check's outcome", async (t) => {
  t.same(lastDriftWords({ jobId: 'j', checkedAt: '2026-01-01T00:00:00Z', drifted: [] }), {
    summary: 'No drift: the cloud matches the Terraform state',
    resources: [],
  })
  t.same(
    lastDriftWords({
      jobId: 'j',
      checkedAt: '2026-01-01T00:00:00Z',
      drifted: [{ address: 'aws_s3_bucket.logs', attributes: ['tags', 'versioning'] }],
    }),
    { summary: '1 resource differs from the state', resources: ['aws_s3_bucket.logs (tags, versioning)'] },
  )
  const two = lastDriftWords({
    jobId: 'j',
    checkedAt: '2026-01-01T00:00:00Z',
    drifted: [
      { address: 'a.b', attributes: [] },
      { address: 'c.d', attributes: ['x'] },
    ],
  })
  t.equal(two.summary, '2 resources differ from the state')
  t.same(two.resources, ['a.b', 'c.d (x)'])
})
