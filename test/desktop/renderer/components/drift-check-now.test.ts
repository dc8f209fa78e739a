// "Check for drift now" beside the last drift check, rendered in each state: idle, running (the
// button waits), succeeded (the page has read the environment again: LastDriftCheck shows the new
// outcome), failed (the job's message), refused (in words, with the step and field to set, no code).
// The real requests and the job-following are in test/e2e/drift-check.test.ts.
import t from 'tap'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { ApiError } from '@ies/api'
import { DriftCheckView, type DriftCheckViewProps } from '../../../../desktop/src/renderer/components/DriftCheckNow.tsx'
import { LastDriftCheck } from '../../../../desktop/src/renderer/components/LastDriftCheck.tsx'
import type { Job } from '../../../../desktop/src/renderer/lib/api/types.ts'
import { renderedText } from './rendered-text.ts'

const base: DriftCheckViewProps = {
  env: { id: 'env-1' },
  job: null,
  log: [],
  error: null,
  pollError: null,
  running: false,
  onCheck: () => {},
}
const view = (p: Partial<DriftCheckViewProps>) => renderToStaticMarkup(createElement(DriftCheckView, { ...base, ...p }))
const job = (status: Job['status'], extra: Partial<Job> = {}): Job => ({ id: 'job-7', type: 'drift', status, ...extra }) as Job

t.test('idle: the button, nothing else', async (t) => {
  const html = view({})
  t.match(renderedText(html), /^Check for drift now$/)
  t.notMatch(html, /disabled/)
})

t.test('running: the button waits and the job is followed', async (t) => {
  const html = view({ job: job('running'), running: true, log: [{ at: '10:00:00', text: 'Job running' }] })
  t.match(html, /<button[^>]*disabled/)
  t.match(html, /aria-label="Drift check in progress"/)
  t.match(renderedText(html), /running job job-7 .*Job running/)
})

t.test('succeeded: the new outcome is the last drift check the page read again', async (t) => {
  const drift = {
    jobId: 'job-7',
    checkedAt: '2026-11-28T10:00:00.000Z',
    drifted: [{ address: 'module.sqs[0].aws_sqs_queue.this', attributes: ['tags', 'visibility_timeout_seconds'] }],
  }
  const html = renderToStaticMarkup(
    createElement(LastDriftCheck, { drift }, createElement(DriftCheckView, { ...base, job: job('succeeded', { result: {} as never }) })),
  )
  t.match(
    renderedText(html),
    /^Last drift check 1 resource differs from the state, checked .* module\.sqs\[0\]\.aws_sqs_queue\.this \(tags, visibility_timeout_seconds\)/,
  )
  t.match(html, /data-job-id="job-7"/)
  t.match(renderedText(html), /Check for drift now Checked: the outcome is above\. succeeded job job-7/)
})

t.test('before the first check: said, with the button', async (t) => {
  const html = renderToStaticMarkup(createElement(LastDriftCheck, { drift: null }, createElement(DriftCheckView, base)))
  t.match(renderedText(html), /^Last drift check Not checked yet Check for drift now$/)
})

t.test("failed: the job's error message", async (t) => {
  const failed = job('failed', {
    error: { code: 'TERRAFORM_UNAVAILABLE', message: 'Terraform could not be started (TERRAFORM_BIN): ask your operator.' },
  } as Partial<Job>)
  const html = view({ job: failed })
  t.match(renderedText(html), /Drift check failed Terraform could not be started \(TERRAFORM_BIN\): ask your operator\./)
  t.match(html, /data-testid="job-failed"/)
})

t.test('refused: why, and what to set where; never the code', async (t) => {
  const refused = view({
    error: new ApiError(409, 'PLAN_UNAVAILABLE', 'The environment has no cloud credential (cloudCredentialId) to plan with.'),
  })
  t.match(
    renderedText(refused),
    /The drift check cannot run yet This environment has no cloud credential, so IES cannot read what is in the cloud\. Edit the environment, step Cloud credential: choose a credential\./,
  )
  t.match(refused, /href="#\/environments\/env-1\/edit"/)
  t.notMatch(refused, /PLAN_UNAVAILABLE|cloudCredentialId/)

  // Any other error is said as it comes (a viewer, a server that is down).
  const other = view({ error: new ApiError(403, 'FORBIDDEN', 'You may not operate this environment') })
  t.match(renderedText(other), /The drift check failed You may not operate this environment/)
})
