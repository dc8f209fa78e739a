// The organisation's rules judge what an upgrade would push: the configuration after the migrations
// of the version it upgrades to, not of the version the environment is pinned to. A production
// environment pinned to the templates before a migration that turns its EKS endpoint public is
// skipped by an upgrade to that migration's version, naming the rule, and planned into a wave by an
// upgrade to the version it is on.
import t from 'tap'
import { BUNDLED_TEMPLATES_DIR } from '@ies/server/config'
import { environmentBody } from '../../harness/jobs.ts'
import { checkout, pushedAndPinned, rolloutEnded, startPushServer } from '../../harness/push-server.ts'

const DEPLOY_KEY = 'iest_dXBncmFkZS1ydWxlcy1kZXBsb3kta2V5'

/** A migration the newer templates add: an endpoint with an allow-list becomes public. */
const PUBLIC_ENDPOINT = `id: 0900-eks-endpoint-public-with-allow-list
description: An EKS endpoint with an allow-list of CIDR blocks is made public.
steps:
  - default:
      path: services.eks.endpointPublicAccess
      from: false
      to: true
      when:
        services.eks.publicAccessCidrs: ["203.0.113.0/24"]
`

t.test("an upgrade is judged on the target version's migrations", async (t) => {
  const server = await startPushServer(t, DEPLOY_KEY, async (git) => {
    await git.createRepo('templates', BUNDLED_TEMPLATES_DIR)
    return { TEMPLATES_REPO: git.url('templates', true) }
  })
  const { git, api } = server

  await git.createRepo('shop-prod', {})
  const services = {
    vpc: { enabled: true, singleNatGateway: false },
    eks: { enabled: true, endpointPublicAccess: false, publicAccessCidrs: '203.0.113.0/24' },
  }
  const body = environmentBody({ name: 'shop-prod', labels: { tier: 'production' }, services })
  const { id, templatesCommit: before } = await pushedAndPinned(server, DEPLOY_KEY, git.url('shop-prod'), body)

  // The template author adds the migration: a commit on the templates repository.
  const author = await checkout(t, git, DEPLOY_KEY, 'templates')
  await author.write('migrations/0900-eks-endpoint-public-with-allow-list.yaml', PUBLIC_ENDPOINT)
  await author.git('add', 'migrations')
  await author.commitAndPush('templates: a migration that makes an allow-listed endpoint public')
  const after = (await author.git('rev-parse', 'HEAD')).trim()

  const upgrade = async (to: string) => {
    const started = await api('POST', '/environments/upgrade', { ids: [id], to })
    t.equal(started.status, 202, JSON.stringify(started.body))
    return rolloutEnded(api, started.body.data.rolloutId)
  }

  const refused = await upgrade(after)
  t.match(refused.skipped, [{ name: 'shop-prod', reason: /^the organisation's rules refuse it: .*eks_private_endpoint/ }])
  t.same(
    refused.waves.flatMap((w: any) => w.environments),
    [],
    'the migrated configuration is refused: nothing is pushed',
  )
  const stored = (await api('GET', `/environments/${id}`)).body.data
  t.equal(stored.templatesPin, before, 'the pin stays where it was')

  const same = await upgrade(before)
  t.same(same.skipped, [], 'at the version it is on, no migration turns the endpoint public')
  t.same(
    same.waves.flatMap((w: any) => w.environments.map((e: any) => e.name)),
    ['shop-prod'],
  )
})
