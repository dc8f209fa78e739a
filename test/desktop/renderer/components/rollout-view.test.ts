// A rollout whose previews were planned: each environment's plan summary (or why there is none), the
// data-holding addresses at risk, and, once the rollout has ended, the confirmation that restarts it
// with them (in place of the guard's coded reason); addresses already confirmed are said to be.
import t from 'tap'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { RolloutView } from '../../../../desktop/src/renderer/components/UpgradeWaves.tsx'
import { confirmsExactly } from '../../../../desktop/src/renderer/components/UpgradePlan.tsx'
import type { Rollout } from '../../../../desktop/src/renderer/lib/api/types.ts'
import { renderedText } from './rendered-text.ts'

const QUEUE = 'module.sqs[0].aws_sqs_queue.this'
const rollout = (status: Rollout['status']): Rollout => ({
  id: 'r1',
  status,
  dryRun: false,
  strategy: 'merge',
  templatesCommit: 'abc1234',
  plan: true,
  createdAt: '2026-11-28T10:00:00.000Z',
  updatedAt: '2026-11-28T10:01:00.000Z',
  skipped: [],
  ...(status === 'stopped' && { stopped: { wave: 0, reason: 'shop-dev: PUSH_WOULD_DESTROY_DATA: The push would replace...' } }),
  waves: [
    {
      pattern: '*-dev',
      status: status === 'running' ? 'previewing' : 'stopped',
      environments: [
        {
          id: 'e1',
          name: 'shop-dev',
          outcome: 'failed',
          reason: 'PUSH_WOULD_DESTROY_DATA: The push would replace or destroy 1 resource(s) holding data',
          plan: '1 to add, 0 to change, 1 to destroy (1 replaced)',
          dataAtRisk: [QUEUE],
        },
        { id: 'e2', name: 'api-dev', outcome: 'previewed', plan: 'no plan: the environment has no state backend' },
      ],
    },
  ],
})
const render = (r: Rollout, confirmed: Record<string, string[]> = {}) =>
  renderToStaticMarkup(createElement(RolloutView, { rollout: r, confirmed, onConfirm: () => {} }))

t.test('ended: each plan, and the data at risk to confirm in words', async (t) => {
  const html = render(rollout('stopped'))
  const dev = renderedText(
    html.slice(html.indexOf('data-rollout-environment="shop-dev"'), html.indexOf('data-rollout-environment="api-dev"')),
  )
  t.match(dev, /shop-dev: failed · plan: 1 to add, 0 to change, 1 to destroy \(1 replaced\)/)
  t.match(dev, /This push would destroy data .* module\.sqs\[0\]\.aws_sqs_queue\.this .*Type shop-dev/)
  t.match(dev, /Confirm and roll out again, destroying 1 resource in shop-dev/)
  t.notMatch(dev, /PUSH_WOULD_DESTROY_DATA/, "the guard's code is not shown at the environment")
  t.match(renderedText(html), /api-dev: previewed · no plan: the environment has no state backend/)
  t.match(
    renderedText(html),
    /^Stopped at wave 1: shop-dev would replace or destroy data; confirm the addresses below to roll out again\. Later waves/,
    'the stop in words, not the code',
  )
})

t.test('running: the addresses are listed, nothing to confirm yet', async (t) => {
  const html = render(rollout('running'))
  t.notMatch(html, /destroy-confirmation/)
  t.match(renderedText(html), /module\.sqs\[0\]\.aws_sqs_queue\.this \(holds data: would be replaced or destroyed\)/)
})

t.test('confirmed: said so, not asked again', async (t) => {
  const html = render(rollout('stopped'), { e1: [QUEUE] })
  t.notMatch(html, /destroy-confirmation/)
  t.match(renderedText(html), /module\.sqs\[0\]\.aws_sqs_queue\.this \(confirmed\)/)
  t.match(renderedText(html), /^Stopped at wave 1: shop-dev: PUSH_WOULD_DESTROY_DATA/, 'confirmed: the stop as the server said it')
  // another set than the plan's is not a confirmation (as the server's guard decides)
  t.match(render(rollout('stopped'), { e1: [QUEUE, 'aws_s3_bucket.x'] }), /destroy-confirmation/)
})

t.test('a confirmation is exactly the addresses at risk, in any order', async (t) => {
  t.ok(confirmsExactly(['b', 'a'], ['a', 'b']))
  t.notOk(confirmsExactly(['a'], ['a', 'b']))
  t.notOk(confirmsExactly(['a', 'c'], ['a', 'b']))
  t.notOk(confirmsExactly(undefined, ['a']))
})
