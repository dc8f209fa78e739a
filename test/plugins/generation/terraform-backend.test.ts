// POST /api/environments/terraform-backend/create against a real moto server: the bucket is created
// (or adopted) with versioning, default encryption and a public-access block.
import t from 'tap'
import { GetBucketEncryptionCommand, GetBucketVersioningCommand, GetPublicAccessBlockCommand, S3Client } from '@aws-sdk/client-s3'
import { startTestApp } from '../../harness/app.ts'
import { startTestMoto } from '../../harness/moto.ts'
import { createEnvironment } from '../../harness/jobs.ts'

t.test('terraform state backend', async (t) => {
  const moto = await startTestMoto(t)
  const { url, auth } = await startTestApp(t, { AWS_ENDPOINT_URL: moto.endpoint })
  const dev = { ...auth('dev'), 'content-type': 'application/json' }
  const keys = { accessKeyId: 'AKIAIESTESTSTATE0001', secretAccessKey: 'state-secret-access-key-for-tests-000000' }
  const credential = (
    (await (
      await fetch(`${url}/api/cloud-credentials`, {
        method: 'POST',
        headers: dev,
        body: JSON.stringify({ name: 'aws-state', provider: 'aws', credentials: { ...keys, region: 'eu-central-1' } }),
      })
    ).json()) as any
  ).data
  t.ok(credential?.id, 'credential stored')
  const env = await createEnvironment({ url, auth })
  const create = (body: unknown, headers = dev) =>
    fetch(`${url}/api/environments/terraform-backend/create`, { method: 'POST', headers, body: JSON.stringify(body) })

  const res = await create({ cloudCredentialId: credential.id, bucket: 'acme-shop-tfstate', environmentId: env.id })
  t.equal(res.status, 201, 'created')
  t.same(((await res.json()) as any).data, {
    bucket: 'acme-shop-tfstate',
    region: 'eu-central-1',
    key: `env/${env.id}/aws.tfstate`,
    useLockfile: true,
  })

  const s3 = new S3Client({ region: 'eu-central-1', endpoint: moto.endpoint, forcePathStyle: true, credentials: keys })
  t.teardown(() => s3.destroy())
  t.equal((await s3.send(new GetBucketVersioningCommand({ Bucket: 'acme-shop-tfstate' }))).Status, 'Enabled', 'versioning')
  const enc = await s3.send(new GetBucketEncryptionCommand({ Bucket: 'acme-shop-tfstate' }))
  t.equal(
    enc.ServerSideEncryptionConfiguration?.Rules?.[0]?.ApplyServerSideEncryptionByDefault?.SSEAlgorithm,
    'AES256',
    'default encryption',
  )
  t.same(
    (await s3.send(new GetPublicAccessBlockCommand({ Bucket: 'acme-shop-tfstate' }))).PublicAccessBlockConfiguration,
    {
      BlockPublicAcls: true,
      IgnorePublicAcls: true,
      BlockPublicPolicy: true,
      RestrictPublicBuckets: true,
    },
    'public access blocked',
  )

  const again = await create({ cloudCredentialId: credential.id, bucket: 'acme-shop-tfstate' })
  t.equal(again.status, 200, 'adopted when the caller already owns it')
  t.match(((await again.json()) as any).data, { bucket: 'acme-shop-tfstate', key: 'env/<environment_id>/aws.tfstate', useLockfile: true })

  const other = { ...auth('other'), 'content-type': 'application/json' }
  t.equal(
    (await create({ cloudCredentialId: credential.id, bucket: 'other-bucket' }, other)).status,
    400,
    "another user's credential is refused",
  )
  t.equal((await create({ cloudCredentialId: credential.id, bucket: 'Bad_Name' })).status, 400, 'bucket name validated')
  t.equal((await create({ bucket: 'no-credential' })).status, 400, 'credential required')
})
