// schemathesis against a real server (FerretDB, a JWKS token issuer, the server on loopback): the
// OpenAPI document the server serves with a valid token, every operation, many generated cases each,
// checks for 5xx, undocumented status codes and content types, bodies that break the response schema,
// and operations that ignore authentication. Zero failures.
//
// Needs `python3 -m pip install schemathesis`. In CI (CI set) a missing schemathesis fails this test;
// elsewhere the test is skipped with a message. SCHEMATHESIS_MAX_EXAMPLES overrides the case count.
import t from 'tap'
import { startTestApp } from '../harness/app.ts'
import { startTestMoto } from '../harness/moto.ts'
import type { TokenIssuer } from '../harness/token-issuer.ts'
import { environmentBody, waitForJob } from '../harness/jobs.ts'
import { refusingEndpoint } from './loopback.ts'
import { loopbackOnly } from './loopback-only.ts'
import { findSchemathesis, junitSummary, runSchemathesis } from './schemathesis.ts'

const MAX_EXAMPLES = Number(process.env.SCHEMATHESIS_MAX_EXAMPLES ?? 50)
const DEPLOY_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nc2NoZW1hdGhlc2lzLWRlcGxveS1rZXk=\n-----END OPENSSH PRIVATE KEY-----\n'
t.setTimeout(20 * 60_000)

/** The same claims for an hour: access tokens live 300 s, a run takes longer. */
function longLived(issuer: TokenIssuer, token: string): string {
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'))
  return issuer.sign({ ...claims, exp: Math.floor(Date.now() / 1000) + 3600 })
}

const command = findSchemathesis()
if (!command) {
  if (process.env.CI) {
    t.fail('schemathesis is not installed; CI installs it with: python3 -m pip install schemathesis')
  } else {
    t.plan(0, 'schemathesis is not installed (python3 -m pip install schemathesis); skipped outside CI')
  }
} else {
  t.test('schemathesis: every operation of /api/openapi.json, zero failures', { timeout: 900_000 }, async (t) => {
    // Generated Git URLs name arbitrary hosts: this process resolves and connects to loopback only.
    const guard = loopbackOnly()
    t.teardown(() => guard.restore())
    t.rejects(fetch('http://192.0.2.1/'), 'the loopback guard refuses a non-loopback address')
    // AWS is a local moto server (credential checks, state buckets); the other outbound calls
    // (Azure and Google token endpoints, pushes) go to a loopback port that answers 503.
    const moto = await startTestMoto(t)
    const upstream = await refusingEndpoint()
    t.teardown(() => upstream.close())
    const { url, auth, tokenFor, issuer } = await startTestApp(t, {
      JOBS_WAIT_TIMEOUT_MS: '2000',
      AWS_ENDPOINT_URL: moto.endpoint,
      AZURE_AUTHORITY_HOST: upstream.url,
      GCP_TOKEN_URL: `${upstream.url}/token`,
      CREDENTIAL_VALIDATE_TIMEOUT_MS: '2000',
      PUSH_ALLOWED_HOSTS: '127.0.0.1',
    })
    const dev = { ...auth('dev'), 'content-type': 'application/json' }
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${url}${path}`, { method: 'POST', headers: dev, body: JSON.stringify(body) })
      t.equal(res.status < 300, true, `seed ${path}: ${res.status}`)
      return ((await res.json()) as any).data
    }

    // Real records, so that part of the cases reach past 404 (each path parameter is a real id half the time).
    const credential = await post('/api/cloud-credentials', {
      name: 'seed-aws',
      provider: 'aws',
      credentials: { accessKeyId: 'AKIASEEDSEEDSEED0001', secretAccessKey: 'seed-secret', region: 'eu-central-1' },
    })
    const environment = await post(
      '/api/environments',
      environmentBody({
        name: 'seed-env',
        cloudCredentialId: credential.id,
        gitRepository: { url: `${upstream.url.replace('http:', 'https:')}/seed.git`, branch: 'main', deployKey: DEPLOY_KEY },
      }),
    )
    const job = await post(`/api/environments/${environment.id}/generate`, { format: 'terraform', options: { includeBackend: true } })
    t.equal((await waitForJob(url, dev, job.id)).status, 'succeeded', 'seed generation job')

    const docRes = await fetch(`${url}/api/openapi.json`, { headers: auth('dev') })
    t.equal(docRes.status, 200, 'the document is served with a valid token')
    const document = await docRes.text()
    const paths = JSON.parse(document).paths as Record<string, Record<string, unknown>>
    const expected = Object.entries(paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))

    const result = await runSchemathesis(command, {
      document,
      baseUrl: url,
      token: longLived(issuer, tokenFor('dev')),
      maxExamples: MAX_EXAMPLES,
      maxTimeSeconds: 900,
      operations: [
        {
          name: /^(GET|PUT) \/api\/environments\/\{id\}$|^POST \/api\/environments\/\{id\}\/(generate|push)$/,
          ids: { id: [environment.id] },
        },
        {
          name: /^(GET|PUT) \/api\/cloud-credentials\/\{id\}|^POST \/api\/cloud-credentials\/\{id\}\/validate$/,
          ids: { id: [credential.id] },
        },
        { name: /^GET \/api\/jobs\//, ids: { jobId: [job.id] } },
        { name: /^(GET|POST) \/api\/environments\/\{id\}\/history/, ids: { id: [environment.id] } },
      ],
    })
    t.comment(result.output.split('\n').slice(-60).join('\n'))
    const summary = junitSummary(result.junit)
    t.ok(summary.operations.length > 0, `schemathesis reported operations (report in ${result.dir})`)
    t.same(
      expected.filter((op) => !summary.operations.some((name) => name.includes(op))),
      [],
      'every operation of the document was tested',
    )
    t.same(summary.failed, [], 'no operation failed a check')
    if (summary.toolErrors.length) t.comment(`schemathesis runtime errors (its own, not the API's): ${summary.toolErrors.join(', ')}`)
    t.ok(
      result.exitCode === 0 || (summary.failed.length === 0 && summary.toolErrors.length > 0),
      `schemathesis exits 0, or 1 only for its own runtime errors (exit ${result.exitCode})`,
    )
  })
}
