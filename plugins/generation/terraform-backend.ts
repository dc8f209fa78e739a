// POST /api/environments/terraform-backend/create
// Body: { cloudCredentialId (one of the caller's aws credentials), bucket (S3 name), region? (default:
// the credential's region, else us-east-1), environmentId? (one of the caller's environments) }.
// Creates the state bucket (201) or adopts it when the caller's account already owns it (200), with
// versioning, default encryption and a public-access block, and answers the `terraformBackend` to
// store: { bucket, region, key, useLockfile: true }. `key` is the environment's state key when
// environmentId is given, else the scoped form `env/<environment_id>/aws.tfstate` that generation
// fills in (the transform always writes the environment's own key).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Envelope, ErrorBody, ok } from '@ies/server/core/envelope'
import { AppError, conflict, fieldError, unavailable, validationError } from '@ies/server/core/errors'
import { stateKeyOf } from '@ies/server/jobs/generation/transform'
import { CreatedTerraformBackend, TerraformBackendCreate } from '@ies/api/schemas/terraform-backend'
import { BucketTakenError, ensureStateBucket, type AwsKeys } from './state-bucket.ts'

const AWS_REJECTED = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'ExpiredToken',
  'InvalidToken',
  'UnrecognizedClientException',
])

export const terraformBackendRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const credentials = app.cloudCredentials
  const environments = app.environments

  app.post(
    '/terraform-backend/create',
    {
      schema: {
        body: TerraformBackendCreate,
        response: {
          200: Envelope(CreatedTerraformBackend),
          201: Envelope(CreatedTerraformBackend),
          400: ErrorBody,
          401: ErrorBody,
          409: ErrorBody,
          503: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { userId } = request.principal
      const body = request.body
      const stored = await credentials.getCredentials(userId, body.cloudCredentialId)
      if (!stored) throw fieldError('cloudCredentialId', 'no such cloud credential')
      if (stored.provider !== 'aws') throw fieldError('cloudCredentialId', 'must be an aws credential')
      let key = 'env/<environment_id>/aws.tfstate'
      if (body.environmentId) {
        // The body names it: one the caller may not see is a field error, not a 404 of the route.
        const { env } = await environments.access(request.principal, body.environmentId, 'read').catch((err: unknown) => {
          throw err instanceof AppError && err.statusCode === 404 ? fieldError('environmentId', 'no such environment') : err
        })
        key = stateKeyOf(env)
      }
      const aws = stored.credentials as AwsKeys & { region?: string }
      const region = body.region ?? aws.region ?? 'us-east-1'
      let created: boolean
      try {
        ;({ created } = await ensureStateBucket({
          bucket: body.bucket,
          region,
          keys: {
            accessKeyId: aws.accessKeyId,
            secretAccessKey: aws.secretAccessKey,
            ...(aws.sessionToken && { sessionToken: aws.sessionToken }),
          },
          endpoint: app.config.cloud.awsEndpointUrl,
        }))
      } catch (err) {
        if (err instanceof BucketTakenError) throw conflict(err.message)
        const name = (err as { name?: string }).name ?? ''
        if (AWS_REJECTED.has(name))
          throw validationError([{ field: 'cloudCredentialId', message: `AWS answered ${name}` }], 'AWS refused the credential')
        request.log.warn({ err: { name, message: (err as Error).message } }, 'state bucket creation failed')
        throw unavailable('AWS could not be reached to create the state bucket')
      }
      const backend = { bucket: body.bucket, region, key, useLockfile: true as const }
      return reply.code(created ? 201 : 200).send(ok(request, backend))
    },
  )
}
