// One reading of a stored environment: the server's processor input and the wizard's form values
// take the same domain, services and Git fields from it, and never the deploy key.
import t from 'tap'
import { environmentValues } from '@ies/api/environment-values'
import { processorInput } from '@ies/server/jobs/generation/transform'
import { valuesFromEnvironment } from '../../desktop/src/renderer/lib/wizard/values.ts'
import type { Environment } from '@ies/api'

const stored = {
  id: 'e1',
  name: 'shop',
  globalPrefix: 'acme',
  provider: 'aws',
  region: 'eu-west-1',
  services: { rds: { enabled: true, allocatedStorage: 50 } },
  terraformBackend: { bucket: 'acme-state', region: 'eu-central-1' },
  gitRepository: { url: 'https://git.example.com/acme/shop.git', branch: 'dev', deployKey: 'SECRET', hasDeployKey: true },
} as const

t.test('an absent domain reads as "", services are a copy, the Git configuration never carries the deploy key', async (t) => {
  const values = environmentValues<Record<string, Record<string, unknown>>>(structuredClone(stored) as never)
  t.equal(values.domain, '')
  t.same(values.gitRepository, { url: stored.gitRepository.url, branch: 'dev' })
  t.same(values.terraformBackend, { bucket: 'acme-state', region: 'eu-central-1' })
  const source = structuredClone(stored) as { services: Record<string, Record<string, unknown>> }
  const copy = environmentValues(source as never) as { services: Record<string, Record<string, unknown>> }
  copy.services.rds.allocatedStorage = 10
  t.equal(source.services.rds.allocatedStorage, 50, 'the source is untouched')
})

t.test('the processor input and the wizard read the environment alike', async (t) => {
  const input = processorInput({ ...structuredClone(stored), _id: 'e1', userId: 'u1', stateKeyScope: 'environment' })
  const form = valuesFromEnvironment(structuredClone(stored) as unknown as Environment)
  t.equal(input.domain, form.domain)
  t.same(input.services, form.services)
  t.equal(input.gitRepository?.url, form.gitRepository.url)
  t.equal(input.gitRepository?.branch, form.gitRepository.branch)
  t.notOk(JSON.stringify(input).includes('SECRET'), 'no deploy key in the processor input')
  t.equal(form.gitRepository.deployKey, '', 'the form starts without a key')
  t.same(input.terraformBackend, { bucket: 'acme-state', region: 'eu-central-1', key: 'env/e1/aws.tfstate', useLockfile: true })
  t.equal(form.terraformBackend.key, '', 'the form leaves the key to the server')
})
