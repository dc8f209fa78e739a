// The Terraform state bucket (AWS SDK v3, S3): created, or adopted when the caller already owns it,
// then versioning on, default encryption (SSE-S3) and every public access blocked. Locking is
// S3-native (`use_lockfile`), so there is no lock table to make.
// The S3 client is imported when a bucket is made (ensureStateBucket), not by every server start.
import type { BucketLocationConstraint } from '@aws-sdk/client-s3'

export interface AwsKeys {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
}

export class BucketTakenError extends Error {}

/** Creates or adopts the bucket and applies the state-bucket settings; whether it was created. */
export async function ensureStateBucket(opts: {
  bucket: string
  region: string
  keys: AwsKeys
  endpoint?: string
}): Promise<{ created: boolean }> {
  const { CreateBucketCommand, PutBucketEncryptionCommand, PutBucketVersioningCommand, PutPublicAccessBlockCommand, S3Client } =
    await import('@aws-sdk/client-s3')
  const s3 = new S3Client({
    region: opts.region,
    credentials: opts.keys,
    ...(opts.endpoint && { endpoint: opts.endpoint, forcePathStyle: true }),
    maxAttempts: 2,
  })
  try {
    let created = true
    try {
      await s3.send(
        new CreateBucketCommand({
          Bucket: opts.bucket,
          ...(opts.region !== 'us-east-1' && {
            CreateBucketConfiguration: { LocationConstraint: opts.region as BucketLocationConstraint },
          }),
        }),
      )
    } catch (err) {
      const name = (err as { name?: string }).name
      if (name === 'BucketAlreadyOwnedByYou') created = false
      else if (name === 'BucketAlreadyExists') throw new BucketTakenError(`bucket ${opts.bucket} belongs to another account`)
      else throw err
    }
    await s3.send(new PutBucketVersioningCommand({ Bucket: opts.bucket, VersioningConfiguration: { Status: 'Enabled' } }))
    await s3.send(
      new PutBucketEncryptionCommand({
        Bucket: opts.bucket,
        ServerSideEncryptionConfiguration: {
          Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' }, BucketKeyEnabled: true }],
        },
      }),
    )
    await s3.send(
      new PutPublicAccessBlockCommand({
        Bucket: opts.bucket,
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          IgnorePublicAcls: true,
          BlockPublicPolicy: true,
          RestrictPublicBuckets: true,
        },
      }),
    )
    return { created }
  } finally {
    s3.destroy()
  }
}
