// The detail page's drift lines: the schedule (shared with the wizard's review) and the last drift
// check's outcome as GET /environments/:id serves it.
import t from 'tap'
import { createElement, Fragment } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { LastDriftCheck } from '../../../../desktop/src/renderer/components/LastDriftCheck.tsx'
import { DeliveryFields } from '../../../../desktop/src/renderer/components/ConfigurationFields.tsx'
import { renderedText } from './rendered-text.ts'

t.test('no drift check yet: nothing is said', async (t) => {
  t.equal(renderToStaticMarkup(createElement(LastDriftCheck, { drift: null })), '')
  t.equal(renderToStaticMarkup(createElement(LastDriftCheck, { drift: undefined })), '')
})

t.test('the last check: no drift, or each resource that differs with its attributes', async (t) => {
  const clean = renderToStaticMarkup(
    createElement(LastDriftCheck, { drift: { jobId: 'j1', checkedAt: '2026-11-28T09:00:00.000Z', drifted: [] } }),
  )
  t.match(renderedText(clean), /^Last drift check No drift: the cloud matches the Terraform state, checked /)
  t.match(clean, /data-drifted="0"/)
  const drifted = renderToStaticMarkup(
    createElement(LastDriftCheck, {
      drift: {
        jobId: 'j2',
        checkedAt: '2026-11-28T09:00:00.000Z',
        drifted: [{ address: 'aws_s3_bucket.logs', attributes: ['tags'] }],
      },
    }),
  )
  t.match(renderedText(drifted), /1 resource differs from the state, checked .* aws_s3_bucket\.logs \(tags\)/)
  t.match(drifted, /data-drifted="1"/)
})

t.test('the schedule among the delivery fields', async (t) => {
  const fields = (driftCheckHours: number | undefined) =>
    renderedText(renderToStaticMarkup(createElement(Fragment, null, createElement(DeliveryFields, { credential: null, driftCheckHours }))))
  t.match(fields(24), /Drift check Every 24 hours$/)
  t.match(fields(undefined), /Drift check Only when asked$/)
})
