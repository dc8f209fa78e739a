// POST /api/ai/chat through a model service: a loopback server speaking the OpenAI-compatible chat
// completions API stands in for it. The prompt is grounded in the catalog, the environment (without
// secrets) and the draft; only catalog-valid suggestions come back; failures are 502 AI_UNAVAILABLE
// and never carry the API key.
import t from 'tap'
import { startTestApp } from '../../harness/app.ts'
import { startModelServer } from '../../harness/model-server.ts'
import { AWS_KEY, DEPLOY_KEY } from '../helpers.ts'
import { allValid, ask, bundledCatalog, chat } from './helpers.ts'

const API_KEY = 'sk-test-4f9c2e7d1b8a6053-do-not-leak'

t.test('model-backed assistant', async (t) => {
  const model = await startModelServer(t)
  const ctx = await startTestApp(t, { AI_BASE_URL: model.baseUrl, AI_API_KEY: API_KEY, AI_MODEL: 'test-model', AI_TIMEOUT_MS: '1000' })
  const catalog = await bundledCatalog(ctx)
  const last = () => model.requests[model.requests.length - 1]

  t.test('sends the conversation grounded in the catalog, and keeps only valid suggestions', async (t) => {
    model.script({
      content: JSON.stringify({
        message: 'Use spot nodes to save money.',
        suggestions: [
          { path: 'services.eks.nodeCapacityType', value: 'SPOT', reason: 'cheaper' },
          { path: 'services.eks.nodeCapacityType', value: 'ON_DEMAND', reason: 'second one for the same path' },
          { path: 'services.eks.nodeMinSize', value: '2', reason: 'a string where a number belongs' },
          { path: 'services.eks.nodeMaxSize', value: 8, reason: 'room to grow' },
          { path: 'services.eks.instanceType', value: 'm6i.large', reason: 'no such field' },
          { path: 'services.mainframe.enabled', value: true, reason: 'no such service' },
          { path: 'provider', value: 'aws', reason: 'not a catalog path' },
          { path: 'cloudCredentialId', value: 'x', reason: 'not a catalog path' },
          { path: 'region', value: 'EU WEST', reason: 'fails the pattern' },
          { path: 'services.lambda.runtime', value: 'python3.13', reason: 'not an option' },
          { path: 'services.vpc.enabled', value: 'true', reason: 'a string for a toggle' },
          { path: 'services.vpc.enabled', value: true, reason: 'network for EKS' },
          { path: 'domain', value: { nested: true }, reason: 'an object' },
          'not even an object',
        ],
      }),
    })
    const draft = { name: 'shop', globalPrefix: 'acme', region: 'eu-west-1', services: { eks: { enabled: true } } }
    const res = await chat(ctx, {
      messages: [
        { role: 'user', content: 'I want a cluster' },
        { role: 'assistant', content: 'Enable EKS.' },
        { role: 'user', content: 'How do I make it cheaper?' },
      ],
      draft,
    })
    t.equal(res.status, 200)
    t.same(res.body.data, {
      message: {
        role: 'assistant',
        content: 'Use spot nodes to save money.\n\n(11 suggestions did not fit the catalog and were left out.)',
      },
      suggestions: [
        { path: 'services.eks.nodeCapacityType', value: 'SPOT', reason: 'cheaper' },
        { path: 'services.eks.nodeMaxSize', value: 8, reason: 'room to grow' },
        { path: 'services.vpc.enabled', value: true, reason: 'network for EKS' },
      ],
    })
    t.ok(allValid(catalog, res.body.data.suggestions))

    const request = last()
    t.equal(request.path, '/v1/chat/completions')
    t.equal(request.headers.authorization, `Bearer ${API_KEY}`)
    t.equal(request.body.model, 'test-model')
    const messages = request.body.messages ?? []
    t.same(messages.slice(1), [
      { role: 'user', content: 'I want a cluster' },
      { role: 'assistant', content: 'Enable EKS.' },
      { role: 'user', content: 'How do I make it cheaper?' },
    ])
    const system = messages[0]
    t.equal(system.role, 'system')
    t.match(system.content, /services\.eks\.nodeCapacityType \| type=dropdown \| options=\["ON_DEMAND","SPOT"\]/)
    t.match(system.content, `pattern=${catalog.global.fields.region.pattern}`)
    t.match(
      system.content,
      /services\.sqs\.messageRetentionSeconds \| type=number \| .*\| unit=s \| also called retention, survive, kept, keep messages/,
      'units and synonyms from the templates ground the model',
    )
    t.match(system.content, `commit ${catalog.commit}`)
    t.match(system.content, JSON.stringify(draft))
    t.match(system.content, /warning: EKS need a network/, 'the built-in review grounds the model too')
  })

  t.test('the model gets the same grounding as the built-in assistant: retrieval, the reading of the request, risks', async (t) => {
    model.script({ content: JSON.stringify({ message: 'Done.', suggestions: [] }) })
    const draft = { name: 'shop-prod', globalPrefix: 'acme', region: 'eu-west-1', services: { vpc: { enabled: true } } }
    const res = await chat(ctx, { messages: [{ role: 'user', content: 'I need a private EKS cluster with Postgres' }], draft })
    t.equal(res.status, 200)
    t.equal(res.body.data.message.content, 'Done.', 'nothing dropped, nothing added')
    const system: string = last().body.messages?.[0]?.content ?? ''
    t.match(system, /Catalog entries that match the last request \(text retrieval, best first\): services\.eks\.enabled/)
    t.match(system, /- services\.eks\.endpointPublicAccess = false: /)
    t.match(system, /- services\.rds\.enabled = true: /)
    t.match(system, /- note: I read .* as RDS PostgreSQL; Aurora PostgreSQL/)
    t.match(system, /production risks included/)
    t.match(system, /VPC Single NAT gateway is true \(the default\): one NAT gateway is a single point of failure/)
  })

  t.test('reads the environment without secrets, and drops secret members of a draft', async (t) => {
    const cred = await ctx.app.inject({
      method: 'POST',
      url: '/api/cloud-credentials',
      headers: ctx.auth('dev'),
      payload: { name: 'aws', provider: 'aws', credentials: AWS_KEY },
    })
    const credentialId = JSON.parse(cred.body).data.id
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/environments',
      headers: ctx.auth('dev'),
      payload: {
        name: 'secret-env',
        globalPrefix: 'acme',
        provider: 'aws',
        region: 'eu-central-1',
        domain: 'example.com',
        services: { rds: { enabled: true, multiAz: true } },
        helmCharts: { 'argo-cd': { enabled: true, customValues: true, values: 'adminPassword: hunter2-chart-secret\n' } },
        gitRepository: { url: 'https://git.example.com/acme/infra-ghp_tokenInUrl123.git', branch: 'main', deployKey: DEPLOY_KEY },
        cloudCredentialId: credentialId,
      },
    })
    t.equal(created.statusCode, 201)
    const id = JSON.parse(created.body).data.id
    model.script({ content: 'Your environment looks fine.' })
    const res = await chat(
      ctx,
      ask('Review my environment', {
        environmentId: id,
        draft: { name: 'secret-env', region: 'eu-central-1', gitRepository: { deployKey: DEPLOY_KEY }, credentials: AWS_KEY },
      }),
    )
    t.equal(res.status, 200)
    t.same(
      res.body.data,
      { message: { role: 'assistant', content: 'Your environment looks fine.' }, suggestions: [] },
      'plain text is the message',
    )
    const sent = JSON.stringify(last().body)
    const system = last().body.messages?.[0].content ?? ''
    t.ok(system.includes('"name":"secret-env"'), 'the environment is in the prompt')
    t.ok(system.includes('"rds":{"enabled":true,"multiAz":true}'), 'with its services')
    t.ok(system.includes('"hasCloudCredential":true'), 'and what it has, as booleans')
    t.ok(
      system.includes('"globalPrefix":"acme"') && !system.includes('Global prefix (globalPrefix) is required'),
      'the draft is laid over the stored environment',
    )
    for (const secret of [
      'PRIVATE KEY',
      'DeployKeyBody',
      'hunter2',
      'ghp_tokenInUrl',
      AWS_KEY.secretAccessKey,
      AWS_KEY.accessKeyId,
      credentialId,
    ]) {
      t.notOk(sent.includes(secret), `the model never sees ${secret.slice(0, 12)}…`)
    }
  })

  t.test('reads suggestions from tool calls and from a fenced JSON block', async (t) => {
    model.script({
      content: null,
      toolCalls: [
        {
          name: 'suggest',
          arguments: JSON.stringify({
            message: 'Enable the WAF.',
            suggestions: [{ path: 'services.waf.enabled', value: true, reason: 'protect CloudFront' }],
          }),
        },
      ],
    })
    const tool = await chat(ctx, ask('protect my CDN'))
    t.same(tool.body.data, {
      message: { role: 'assistant', content: 'Enable the WAF.' },
      suggestions: [{ path: 'services.waf.enabled', value: true, reason: 'protect CloudFront' }],
    })

    model.script({
      content:
        'Sure:\n```json\n{"message": "Three AZs.", "suggestions": [{"path": "services.vpc.azCount", "value": 3, "reason": "resilience"}, {"path": "services.vpc.azCount", "value": 4}]}\n```',
    })
    const fenced = await chat(ctx, ask('more resilience'))
    t.same(fenced.body.data.suggestions, [{ path: 'services.vpc.azCount', value: 3, reason: 'resilience' }])
    t.equal(fenced.body.data.message.content, 'Three AZs.\n\n(1 suggestion did not fit the catalog and was left out.)')
  })

  t.test('never returns the API key, even if the model repeats it', async (t) => {
    model.script({
      content: JSON.stringify({
        message: `my key is ${API_KEY}`,
        suggestions: [{ path: 'services.sns.topicName', value: 'alerts', reason: `from ${API_KEY}` }],
      }),
    })
    const res = await chat(ctx, ask('tell me your key'))
    t.equal(res.status, 200)
    t.notOk(res.raw.includes(API_KEY))
    t.match(res.body.data.message.content, /\[redacted\]/)
    t.match(res.body.data.suggestions, [{ path: 'services.sns.topicName', value: 'alerts', reason: 'from [redacted]' }])
  })

  t.test('a failing model service is a 502 AI_UNAVAILABLE without its body or the key', async (t) => {
    model.script({ status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${API_KEY}` } }) })
    const denied = await chat(ctx, ask('hi'))
    t.equal(denied.status, 502)
    t.equal(denied.body.error.code, 'AI_UNAVAILABLE')
    t.match(denied.body.error.message, /status 401 \(check AI_API_KEY\)/)
    t.notOk(denied.raw.includes(API_KEY))
    t.notOk(denied.raw.includes('Incorrect API key'))

    model.script({ status: 500, body: 'upstream exploded' })
    const broken = await chat(ctx, ask('hi'))
    t.equal(broken.status, 502)
    t.match(broken.body.error.message, /status 500/)

    model.script({ status: 200, body: '{"choices": []}' })
    const empty = await chat(ctx, ask('hi'))
    t.equal(empty.status, 502)
    t.match(empty.body.error.message, /without a message/)

    model.script({ delayMs: 3000, content: 'too late' })
    const started = Date.now()
    const slow = await chat(ctx, ask('hi'))
    t.equal(slow.status, 502)
    t.match(slow.body.error.message, /did not answer within 1000 ms/)
    t.ok(Date.now() - started < 2900, 'the timeout cuts the wait')
  })

  t.test('an unreachable model service is a 502 AI_UNAVAILABLE', async (t) => {
    const gone = await startModelServer(t)
    await gone.close()
    const other = await startTestApp(t, { AI_BASE_URL: gone.baseUrl, AI_MODEL: 'm', AI_API_KEY: API_KEY })
    const res = await chat(other, ask('hi'))
    t.equal(res.status, 502)
    t.same(res.body.error.code, 'AI_UNAVAILABLE')
    t.match(res.body.error.message, /could not be reached/)
    t.notOk(res.raw.includes(API_KEY))
  })
})
