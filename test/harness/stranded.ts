// Sets a stored environment back to what an older catalog accepted (values the current one refuses,
// no migrations run), through the repository: a versioned write with its list summary kept, as any
// write; the API would refuse the values.
import type { FastifyInstance } from 'fastify'
import { inputOf } from '../../plugins/environments/record.ts'
import type { EnvironmentInput } from '@ies/api/schemas/environments'

type Services = Record<string, Record<string, unknown>>

/** The stored environment `id` with `change` applied to its services and its migration ids removed. */
export async function strandEnvironment(app: FastifyInstance, id: string, change: (services: Services) => Services): Promise<void> {
  const owner = ((await app.mongo.db.collection('environments').findOne({ _id: id as never })) as { userId: string } | null)?.userId
  if (!owner) throw new Error(`no environment ${id}`)
  const [stored] = await app.environments.records([id])
  const services = change(structuredClone(stored.services) as Services)
  const input = { ...inputOf(stored), services } as unknown as EnvironmentInput
  await app.environments.replace({ ...stored, migrations: undefined }, input, 'keep')
}

/** The old EKS default (public endpoint, no CIDR blocks) and an RDS engine version of `rds`. */
export const oldDefaults =
  (rds: Record<string, unknown>) =>
  (services: Services): Services => ({
    ...services,
    eks: { ...services.eks, endpointPublicAccess: true, publicAccessCidrs: '' },
    rds: { ...services.rds, ...rds },
  })
