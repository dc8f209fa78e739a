// The organisation's rules in the wizard, the state part: the draft the rules read (no deploy key),
// the message of a finding, and findings shown only for the draft they were computed for.
import t from 'tap'
import { draftForRules, findingsFor, policyMessage } from '../../../../../desktop/src/renderer/lib/wizard/policy-check.ts'
import { emptyValues } from '../../../../../desktop/src/renderer/lib/wizard/values.ts'

function draftValues(endpointPublicAccess: boolean) {
  const v = emptyValues({ provider: 'aws', globalPrefix: 'acme', region: 'eu-west-1' })
  v.name = 'shop-prod'
  v.labels = { tier: 'production' }
  v.services = { eks: { enabled: true, endpointPublicAccess } }
  v.gitRepository = { url: 'https://git.example.com/a.git', branch: 'main', deployKey: 'SECRET-KEY', hasDeployKey: false }
  return v
}

t.test('the draft the rules read is the create request without the deploy key', async (t) => {
  const draft = draftForRules(draftValues(true))
  t.notMatch(draft, /SECRET-KEY|deployKey/)
  t.match(JSON.parse(draft), {
    name: 'shop-prod',
    labels: { tier: 'production' },
    services: { eks: { enabled: true, endpointPublicAccess: true } },
    gitRepository: { url: 'https://git.example.com/a.git', branch: 'main' },
  })
})

t.test('a denial and a warning say their rule and level', async (t) => {
  t.equal(policyMessage({ rule: 'r', level: 'deny', message: 'm' }), 'Refused by the rule r: m')
  t.equal(policyMessage({ rule: 'r', level: 'warn', message: 'm' }), 'Warning from the rule r: m')
})

t.test('findings are shown for the draft they were computed for only', async (t) => {
  const before = draftForRules(draftValues(true))
  const after = draftForRules(draftValues(false))
  const answer = {
    draft: before,
    findings: {
      deny: { 'services.eks.endpointPublicAccess': 'Refused by the rule eks_private_endpoint: …' },
      warn: { 'labels.tier': 'Warning from the rule tier_label: …' },
    },
  }
  t.same(findingsFor(answer, before), answer.findings, 'the current draft: its findings')
  t.same(findingsFor(answer, after), { deny: {}, warn: {} }, 'the value fixed: no stale denial (nor warning) until its own answer')
  t.same(findingsFor(null, before), { deny: {}, warn: {} }, 'no answer yet: nothing')
  t.same(findingsFor({ draft: after, findings: { deny: {}, warn: {} } }, after), { deny: {}, warn: {} }, "the new draft's answer")
})
