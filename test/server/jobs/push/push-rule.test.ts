// The push rule (server/src/jobs/push/push-rule.ts): why an environment cannot be pushed, checked in
// order (provider, repository, its URL, deploy key, refused values, destination), the error each
// problem answers (one message for the request's 400 and the push job's failure code), which
// generation jobs a push may take its files from, and the push job's check at its turn (the same
// rule on the environment as migrated and its deploy key as read, an SSH key refused).
import t from 'tap'
import {
  checkPushJob,
  isUsableGeneration,
  pushFailure,
  pushProblem,
  pushRefusal,
  PUSH_PROBLEMS,
  type PushableEnvironment,
} from '../../../../server/src/jobs/push/push-rule.ts'
import type { JobRecord } from '../../../../server/src/jobs/queue/store.ts'

const ALLOWED = ['127.0.0.1']
const pushable: PushableEnvironment = { provider: 'aws', gitRepository: { url: 'http://127.0.0.1:9/repo.git' }, deployKey: { sealed: 'x' } }

t.test('a complete environment at an allowed destination is pushable', async (t) => {
  t.equal(await pushProblem(pushable, ALLOWED), null)
  t.equal(await pushProblem(pushable, ALLOWED, async () => []), null, 'no refused values')
})

t.test('each problem names its field, the first in order winning', async (t) => {
  const cases: [string, PushableEnvironment, string, string, RegExp][] = [
    [
      'another provider',
      { ...pushable, provider: 'gcp', gitRepository: undefined },
      'provider',
      'PROVIDER_NOT_SUPPORTED',
      /^Only provider aws generates a stack$/,
    ],
    [
      'no repository',
      { ...pushable, gitRepository: undefined, deployKey: undefined },
      'gitRepository',
      'NO_GIT_REPOSITORY',
      /^The environment has no Git repository to push to$/,
    ],
    [
      'an SSH URL',
      { ...pushable, gitRepository: { url: 'git@example.com:org/repo.git' } },
      'gitRepository.url',
      'PUSH_DESTINATION_REFUSED',
      /SSH and git:\/\/ URLs/,
    ],
    [
      'plain http to a host not allowed',
      { ...pushable, gitRepository: { url: 'http://example.com/r.git' } },
      'gitRepository.url',
      'PUSH_DESTINATION_REFUSED',
      /^The Git repository URL must be an https:\/\/ URL$/,
    ],
    [
      'no deploy key',
      { ...pushable, deployKey: undefined },
      'gitRepository.deployKey',
      'NO_DEPLOY_KEY',
      /^The environment has no deploy key to push with$/,
    ],
  ]
  for (const [name, env, field, code, message] of cases) {
    const problem = await pushProblem(env, ALLOWED, async () => [{ field: 'region', message: 'never asked' }])
    t.equal(problem?.field, field, name)
    t.equal(problem?.code, code, name)
    t.match(problem?.message, message, name)
    t.notOk(problem?.refused, `${name}: not a refused value`)
    const refusal = pushRefusal(problem!)
    t.equal(refusal.statusCode, 400, `${name}: a 400`)
    t.same(refusal.details, [{ field, message: problem!.message }], `${name}: the field and the message`)
    t.match(pushFailure(problem!), { code, message: problem!.message }, `${name}: a push job fails with the same message`)
  }
})

t.test('refused values: the first field in the message, all of them in the 422', async (t) => {
  const refused = [
    { field: 'services.eks.node_count', message: 'must be at least 1' },
    { field: 'region', message: 'is not offered' },
  ]
  const problem = await pushProblem(pushable, ALLOWED, async () => refused)
  t.equal(problem?.field, 'services.eks.node_count')
  t.equal(problem?.code, 'MIGRATION_FAILED')
  t.equal(
    problem?.message,
    'The templates refuse the stored value of services.eks.node_count: must be at least 1 (and 1 more). Change the value, then push again; nothing was pushed.',
  )
  const error = pushRefusal(problem!)
  t.equal(error.statusCode, 422)
  t.equal(error.code, 'MIGRATION_FAILED')
  t.same(error.details, { problems: refused })
})

t.test('a destination whose address is not public is refused unless allowed', async (t) => {
  const problem = await pushProblem({ ...pushable, gitRepository: { url: 'https://127.0.0.1:9/repo.git' } }, [])
  t.equal(problem?.field, 'gitRepository.url')
  t.match(problem?.message, /PUSH_ALLOWED_HOSTS/)
  t.equal(await pushProblem({ ...pushable, gitRepository: { url: 'https://127.0.0.1:9/repo.git' } }, ALLOWED), null)
})

t.test('a usable generation: a successful generation of the same environment with its archive', async (t) => {
  const job = { _id: 'g1', type: 'generate', environmentId: 'e1', status: 'succeeded', archiveId: 'a1' } as unknown as JobRecord
  t.ok(isUsableGeneration(job, 'e1'))
  t.notOk(isUsableGeneration(null, 'e1'), 'no such job')
  t.notOk(isUsableGeneration(job, 'e2'), 'another environment')
  t.notOk(isUsableGeneration({ ...job, type: 'push' }, 'e1'), 'a push job')
  t.notOk(isUsableGeneration({ ...job, status: 'failed' }, 'e1'), 'a failed generation')
  t.notOk(isUsableGeneration({ ...job, status: 'running' }, 'e1'), 'an unfinished generation')
  t.notOk(isUsableGeneration({ ...job, archiveId: undefined }, 'e1'), 'no archive')
})

t.test("the push job's check at its turn: the same rule, the deploy key as read", async (t) => {
  const env = { provider: 'aws', gitRepository: { url: 'https://git.example.com/org/repo.git', branch: 'main' } }
  // A check that passes is made against an allowed loopback address: no name to resolve.
  const allowed = { ...env, gitRepository: { url: 'http://127.0.0.1:9/repo.git', branch: 'main' } }
  t.same(await checkPushJob(allowed, 'ghp_token123', ALLOWED), { repository: allowed.gitRepository, deployKey: 'ghp_token123' })
  const refused = async (e: Parameters<typeof checkPushJob>[0], key: string | null, hosts = ALLOWED) => {
    try {
      await checkPushJob(e, key, hosts)
    } catch (err) {
      return err
    }
    return null
  }
  t.match(await refused({ provider: 'gcp' }, 'ghp_token123'), { code: 'PROVIDER_NOT_SUPPORTED', message: PUSH_PROBLEMS.provider.message })
  t.match(await refused({ provider: 'aws' }, 'ghp_token123'), {
    code: 'NO_GIT_REPOSITORY',
    message: 'The environment has no Git repository to push to',
  })
  t.match(await refused({ provider: 'aws', gitRepository: { url: '' } }, 'x'), { code: 'NO_GIT_REPOSITORY' }, 'an empty URL')
  t.match(await refused(env, null), { code: 'NO_DEPLOY_KEY', message: 'The environment has no deploy key to push with' })
  t.match(await refused(allowed, ''), { code: 'NO_DEPLOY_KEY' }, 'an empty key')
  const pem = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----\n'
  t.match(await refused(allowed, pem), {
    code: 'DEPLOY_KEY_NOT_USABLE',
    message: 'An SSH deploy key cannot authenticate an HTTPS push; store an access token',
  })
  t.match(await refused({ ...env, gitRepository: { url: 'http://example.com/r.git' } }, 'x'), {
    code: 'PUSH_DESTINATION_REFUSED',
    message: 'The Git repository URL must be an https:// URL',
  })
  t.match(await refused({ provider: 'aws', gitRepository: { url: 'https://127.0.0.1:9/repo.git' } }, 'x', []), {
    code: 'PUSH_DESTINATION_REFUSED',
    message: /PUSH_ALLOWED_HOSTS/,
  })
  t.same(await pushProblem({ ...allowed, deployKey: { sealed: pem } }, ALLOWED), null, 'a stored (sealed) key is not read by the rule')
})
