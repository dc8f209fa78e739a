// An environment's drift check in words: the schedule, what a scheduled check still needs, and the
// last check's outcome, and why "Check for drift now" was refused with what to set.
import t from 'tap'
import { ApiError } from '@ies/api'
import {
  driftCheckNeeds,
  driftRefusal,
  driftScheduleWords,
  lastDriftWords,
} from '../../../../../desktop/src/renderer/lib/environments/drift.ts'

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

t.test('a refused drift check: why, and the wizard step and field to set', async (t) => {
  // The server's own messages (plugins/plans/plan-refusal.ts and the push rule).
  const noBucket = new ApiError(
    409,
    'PLAN_UNAVAILABLE',
    'The environment has no state backend (terraformBackend.bucket): there is no state to plan against.',
  )
  t.match(driftRefusal(noBucket), { reason: /no state bucket/, step: 'State backend', todo: 'set the Bucket name' })
  const noCredential = new ApiError(409, 'PLAN_UNAVAILABLE', 'The environment has no cloud credential (cloudCredentialId) to plan with.')
  t.match(driftRefusal(noCredential), { reason: /no cloud credential/, step: 'Cloud credential', todo: 'choose a credential' })
  const noKey = new ApiError(400, 'VALIDATION_ERROR', 'Request validation failed', {
    details: [{ field: 'gitRepository.deployKey', message: 'The environment has no deploy key to push with' }],
  })
  t.match(driftRefusal(noKey), {
    reason: /cannot be pushed: The environment has no deploy key to push with\./,
    step: 'Git repository',
    todo: 'enter the Deploy key or access token',
  })
  const noRepo = new ApiError(400, 'VALIDATION_ERROR', 'Request validation failed', {
    details: [{ field: 'gitRepository', message: 'The environment has no Git repository to push to' }],
  })
  t.match(driftRefusal(noRepo), { step: 'Git repository', todo: 'set the Repository URL' })
  for (const r of [noBucket, noCredential, noKey, noRepo]) t.notMatch(JSON.stringify(driftRefusal(r)), /PLAN_UNAVAILABLE|VALIDATION_ERROR/)

  // Anything else is not a refusal to explain: it is shown as it comes.
  t.equal(driftRefusal(new ApiError(403, 'FORBIDDEN', 'Viewers may not')), null)
  t.equal(driftRefusal(new ApiError(400, 'VALIDATION_ERROR', 'bad', { details: [{ field: 'id', message: 'bad' }] })), null)
  t.equal(driftRefusal(new ApiError(409, 'CONFLICT', 'busy')), null)
})
