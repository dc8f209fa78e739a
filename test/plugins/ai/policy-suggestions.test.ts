// The assistant's suggestions respect the organisation's rules: on a production draft, a suggestion
// that would bring a `deny` (a public Kubernetes API, a single NAT gateway) is left out and the answer
// says which rule refuses it; the same suggestion on a development draft is kept, as are suggestions
// that break no rule.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { startModelServer } from '../../harness/model-server.ts'
import { chat } from './helpers.ts'

t.test('suggestions within the rules', async (t) => {
  const model = await startModelServer(t)
  const ctx = await startTestApp(t, { AI_BASE_URL: model.baseUrl, AI_API_KEY: 'sk-test', AI_MODEL: 'test-model', AI_TIMEOUT_MS: '5000' })
  const answer = JSON.stringify({
    message: 'Open the cluster up.',
    suggestions: [
      { path: 'services.eks.endpointPublicAccess', value: true, reason: 'reach the API from your laptop' },
      { path: 'services.eks.nodeMaxSize', value: 8, reason: 'room to grow' },
    ],
  })
  const draft = (tier: string) => ({
    name: 'shop',
    globalPrefix: 'acme',
    region: 'eu-west-1',
    labels: { tier },
    services: { eks: { enabled: true, endpointPublicAccess: false } },
  })
  const messages = [{ role: 'user', content: 'Make the cluster reachable' }]

  model.script({ content: answer })
  const prod = await chat(ctx, { messages, draft: draft('production') })
  t.equal(prod.status, 200, JSON.stringify(prod.body))
  t.same(
    prod.body.data.suggestions.map((s: { path: string }) => s.path),
    ['services.eks.nodeMaxSize'],
    'the public endpoint is not suggested for production',
  )
  t.match(prod.body.data.message.content, /Not suggested: services\.eks\.endpointPublicAccess = true; .*eks_private_endpoint/)

  model.script({ content: answer })
  const dev = await chat(ctx, { messages, draft: draft('development') })
  t.same(
    dev.body.data.suggestions.map((s: { path: string }) => s.path),
    ['services.eks.endpointPublicAccess', 'services.eks.nodeMaxSize'],
    'allowed outside production',
  )
  t.notMatch(dev.body.data.message.content, /Not suggested/)
})
