// The push rule (server/src/jobs/push/push-rule.ts): why an environment cannot be pushed, checked in
// order (provider, repository, its URL, deploy key, refused values, destination), the error each
// problem answers, which generation jobs a push may take its files from, and the push job's own
// checks at its turn (its repository and deploy key, with the job's failure codes).
import t from 'tap'
import {
  checkJobDeployKey,
  isUsableGeneration,
  jobRepository,
  pushProblem,
  pushRefusal,
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
  const cases: [string, PushableEnvironment, string, RegExp][] = [
    ['another provider', { ...pushable, provider: 'gcp', gitRepository: undefined }, 'provider', /^only provider aws generates a stack$/],
    ['no repository', { ...pushable, gitRepository: undefined, deployKey: undefined }, 'gitRepository', /no Git repository to push to/],
    ['an SSH URL', { ...pushable, gitRepository: { url: 'git@example.com:org/repo.git' } }, 'gitRepository.url', /SSH and git:\/\/ URLs/],
    [
      'plain http to a host not allowed',
      { ...pushable, gitRepository: { url: 'http://example.com/r.git' } },
      'gitRepository.url',
      /https:\/\//,
    ],
    ['no deploy key', { ...pushable, deployKey: undefined }, 'gitRepository.deployKey', /no deploy key to push with/],
  ]
  for (const [name, env, field, message] of cases) {
    const problem = await pushProblem(env, ALLOWED, async () => [{ field: 'region', message: 'never asked' }])
    t.equal(problem?.field, field, name)
    t.match(problem?.message, message, name)
    t.notOk(problem?.refused, `${name}: not a refused value`)
    t.equal(pushRefusal(problem!).statusCode, 400, `${name}: a 400`)
  }
})

t.test('refused values: the first field in the message, all of them in the 422', async (t) => {
  const refused = [
    { field: 'services.eks.node_count', message: 'must be at least 1' },
    { field: 'region', message: 'is not offered' },
  ]
  const problem = await pushProblem(pushable, ALLOWED, async () => refused)
  t.equal(problem?.field, 'services.eks.node_count')
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

t.test("the push job's repository and deploy key at its turn", async (t) => {
  const repository = { url: 'https://git.example.com/org/repo.git', branch: 'main' }
  t.equal(jobRepository({ gitRepository: repository }), repository)
  t.throws(() => jobRepository({}), { code: 'NO_GIT_REPOSITORY', message: 'The environment has no Git repository' })
  t.throws(() => jobRepository({ gitRepository: { url: '' } }), { code: 'NO_GIT_REPOSITORY' }, 'an empty URL')
  t.doesNotThrow(() => checkJobDeployKey('ghp_token123'))
  t.throws(() => checkJobDeployKey(null), { code: 'NO_DEPLOY_KEY', message: 'The environment has no deploy key to push with' })
  t.throws(() => checkJobDeployKey(''), { code: 'NO_DEPLOY_KEY' }, 'an empty key')
  const pem = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----\n'
  t.throws(() => checkJobDeployKey(pem), { code: 'DEPLOY_KEY_NOT_USABLE', message: /SSH deploy key cannot authenticate an HTTPS push/ })
})
