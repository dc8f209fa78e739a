// "Preview and update all" with "Plan each environment first": each environment of the banner shows,
// beside its preview, its plan's summary (or why there is none) and the data-holding addresses at
// risk; once the preview has ended they are offered for confirmation (typing the environment's name,
// as in waves), and addresses confirmed are said to be, not asked again.
import t from 'tap'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { UpgradeRow, type Row } from '../../../../desktop/src/renderer/components/UpgradeAll.tsx'
import type { EnvironmentUpgrade } from '../../../../desktop/src/renderer/lib/push/lifecycle.ts'
import { renderedText } from './rendered-text.ts'

const QUEUE = 'module.sqs[0].aws_sqs_queue.this'
const env = (name: string): EnvironmentUpgrade => ({
  id: `id-${name}`,
  name,
  lastPush: null,
  behind: { templates: true, configuration: false },
})
const previewed: Row = {
  state: 'done',
  outcome: {
    kind: 'preview',
    branch: 'main',
    templatesCommit: 'abc1234',
    changes: [{ path: 'terraform/versions.tf', change: 'modified' }],
  },
}
const atRisk = {
  id: 'id-shop-dev',
  name: 'shop-dev',
  outcome: 'previewed' as const,
  plan: '1 to add, 0 to change, 1 to destroy (1 replaced)',
  dataAtRisk: [QUEUE],
}
const render = (props: Partial<Parameters<typeof UpgradeRow>[0]>) =>
  renderToStaticMarkup(createElement(UpgradeRow, { env: env('shop-dev'), row: previewed, canConfirm: true, onConfirm: () => {}, ...props }))

t.test('previewed: the plan, and the data at risk to confirm in words', async (t) => {
  const html = render({ planned: atRisk })
  t.match(renderedText(html), /^shop-dev 1 file change: 1 modified\..* · plan: 1 to add, 0 to change, 1 to destroy \(1 replaced\)/)
  t.match(html, /destroy-confirmation/)
  t.match(renderedText(html), /This push would destroy data .* module\.sqs\[0\]\.aws_sqs_queue\.this .*Type shop-dev/)
  t.match(renderedText(html), /Confirm: Update all may destroy 1 resource in shop-dev/)
})

t.test('no plan: why, and nothing to confirm', async (t) => {
  const html = render({ planned: { id: 'id-shop-dev', name: 'shop-dev', plan: 'no plan: the environment has no state backend' } })
  t.match(renderedText(html), /· no plan: the environment has no state backend/)
  t.notMatch(html, /destroy-confirmation/)
})

t.test('confirmed: said so, not asked again; while previewing or updating, only listed', async (t) => {
  const confirmed = render({ planned: atRisk, confirmed: [QUEUE] })
  t.notMatch(confirmed, /destroy-confirmation/)
  t.match(renderedText(confirmed), /module\.sqs\[0\]\.aws_sqs_queue\.this \(confirmed\)/)
  const other = render({ planned: atRisk, confirmed: [QUEUE, 'aws_s3_bucket.x'] })
  t.match(other, /destroy-confirmation/, "another set than the plan's is not a confirmation")
  const busy = render({ planned: atRisk, canConfirm: false })
  t.notMatch(busy, /destroy-confirmation/)
  t.match(renderedText(busy), /module\.sqs\[0\]\.aws_sqs_queue\.this \(holds data: would be replaced or destroyed\)/)
})

t.test('not planned: the row as before', async (t) => {
  const html = render({})
  t.notMatch(html, /rollout-plan|rollout-at-risk|destroy-confirmation/)
})
