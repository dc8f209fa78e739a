// Secrets at rest, read from the raw documents: no plaintext anywhere, tampered or moved ciphertext
// fails closed, everything survives a server restart on the same database, key rotation with
// scripts/reencrypt.ts. Also the repository API the jobs engineer builds on.
import t from 'tap'
import { buildApp } from '@ies/server'
import { loadConfig } from '@ies/server/config'
import { DecryptionError, generateKey, keyRingOf } from '@ies/server/core/crypto'
import { stateKeyOf, usesLegacyStateKey } from '../../server/src/jobs/generation/transform.ts'
import { reencryptAll } from '../../scripts/reencrypt.ts'
import { startTestApp } from '../harness/app.ts'
import { AWS_KEY, DEPLOY_KEY, api } from '../plugins/helpers.ts'

const AZURE_SECRET = 'azure-client-secret-at-rest'

t.test('encryption at rest and persistence', async (t) => {
  const key = generateKey()
  const ctx = await startTestApp(t, { ENCRYPTION_KEY: key })
  const a = api(ctx)
  const db = ctx.db.client.db()
  const cred = (
    await a.createCred('dev', { name: 'aws', provider: 'aws', credentials: { ...AWS_KEY, sessionToken: 'session-token-at-rest' } })
  ).body.data
  const azure = (
    await a.createCred('dev', {
      name: 'azure',
      provider: 'azure',
      credentials: {
        subscriptionId: '11111111-2222-3333-4444-555555555555',
        tenantId: '11111111-2222-3333-4444-666666666666',
        clientId: '11111111-2222-3333-4444-777777777777',
        clientSecret: AZURE_SECRET,
      },
    })
  ).body.data
  const envBody = { globalPrefix: 'acme', provider: 'aws', region: 'eu-west-1', cloudCredentialId: cred.id }
  const env = (
    await a.createEnv('dev', { ...envBody, name: 'secure', gitRepository: { url: 'https://git.example.com/a.git', deployKey: DEPLOY_KEY } })
  ).body.data
  const env2 = (
    await a.createEnv('dev', {
      ...envBody,
      name: 'second',
      gitRepository: { url: 'https://git.example.com/b.git', deployKey: `${DEPLOY_KEY}\n` },
    })
  ).body.data

  t.test('no plaintext secret in any stored document', async (t) => {
    const dump = JSON.stringify(
      await Promise.all(['environments', 'cloud_credentials', 'cloud_credential_defaults'].map((c) => db.collection(c).find({}).toArray())),
    )
    for (const secret of [
      AWS_KEY.secretAccessKey,
      AWS_KEY.accessKeyId,
      'session-token-at-rest',
      AZURE_SECRET,
      'PRIVATE KEY',
      DEPLOY_KEY.split('\n')[1],
    ]) {
      t.notOk(dump.includes(secret), `not stored in the clear: ${secret.slice(0, 6)}…`)
    }
    const raw = await db.collection('environments').findOne({ _id: env.id as never })
    t.match(raw?.deployKey, { v: 1, alg: 'A256GCM', kid: keyRingOf(ctx.config).currentKeyId, iv: String, tag: String, data: String })
    t.notOk(raw?.gitRepository?.deployKey, 'the plaintext field is not kept')
    const rawCred = await db.collection('cloud_credentials').findOne({ _id: cred.id as never })
    t.match(rawCred?.secret, { v: 1, alg: 'A256GCM', kid: String })
  })

  t.test('the repository API decrypts for jobs', async (t) => {
    const environments = ctx.app.environments
    t.equal(await environments.getDeployKey(await userIdOf('dev'), env.id), DEPLOY_KEY)
    t.equal(await environments.getDeployKey(await userIdOf('other'), env.id), null, "another user's id gets nothing")
    const record = await environments.get(await userIdOf('dev'), env.id)
    t.equal(record?.name, 'secure')
    t.notOk(usesLegacyStateKey(record!), 'new environments use per-environment state keys')
    t.equal(stateKeyOf(record!), `env/${env.id}/aws.tfstate`)
    const stored = await ctx.app.cloudCredentials.getCredentials(await userIdOf('dev'), azure.id)
    t.equal((stored?.credentials as { clientSecret: string }).clientSecret, AZURE_SECRET)
  })

  async function userIdOf(user: 'dev' | 'other'): Promise<string> {
    return (await a.call(user, 'GET', '/api/users/me')).body.data.id
  }

  t.test('a legacy record (before per-environment state keys) reads and falls back', async (t) => {
    const userId = await userIdOf('dev')
    const now = new Date()
    await db.collection('environments').insertOne({
      _id: '0f0f0f0f-0000-4000-8000-000000000001' as never,
      userId,
      name: 'legacy',
      globalPrefix: 'old',
      provider: 'aws',
      region: 'us-east-1',
      status: 'pending',
      createdAt: now,
      updatedAt: now,
    })
    const res = await a.getEnv('dev', '0f0f0f0f-0000-4000-8000-000000000001')
    t.equal(res.status, 200, res.raw)
    t.equal(res.body.data.domain, '')
    const record = await ctx.app.environments.get(userId, '0f0f0f0f-0000-4000-8000-000000000001')
    t.ok(usesLegacyStateKey(record!))
    t.equal(stateKeyOf(record!), 'aws.tfstate')
    const updated = await a.putEnv('dev', '0f0f0f0f-0000-4000-8000-000000000001', { domain: 'old.example.com' })
    t.equal(updated.status, 200)
    t.ok(usesLegacyStateKey((await ctx.app.environments.get(userId, '0f0f0f0f-0000-4000-8000-000000000001'))!), 'an update keeps it legacy')
  })

  t.test('the deletion hook runs before an environment is deleted', async (t) => {
    const deleted: string[] = []
    ctx.app.environments.onEnvironmentDeleted((doomed) => {
      deleted.push(doomed.name)
    })
    const doomed = (await a.createEnv('dev', { ...envBody, name: 'doomed' })).body.data
    t.equal((await a.deleteEnv('dev', doomed.id)).status, 204)
    t.same(deleted, ['doomed'])
    t.equal((await a.deleteEnv('other', env.id)).status, 404)
    t.same(deleted, ['doomed'], 'not for a 404')
  })

  await t.test('everything survives a restart on the same database', async (t) => {
    await ctx.app.close()
    const config = loadConfig({
      NODE_ENV: 'test',
      MONGODB_URI: ctx.db.uri,
      AUTH_URL: ctx.config.auth.url,
      LOG_LEVEL: 'silent',
      ENCRYPTION_KEY: key,
    })
    const app2 = await buildApp({ config, logger: false })
    t.teardown(() => app2.close())
    const b = api({ ...ctx, app: app2 })
    const got = await b.getEnv('dev', env.id)
    t.equal(got.status, 200)
    t.same(got.body.data, env, 'the environment is as it was')
    t.same((await b.getCred('dev', cred.id)).body.data.metadata, { region: 'eu-west-1', accessKeyId: 'AKIA************MPLE' })
    t.equal(
      await app2.environments.getDeployKey((await b.call('dev', 'GET', '/api/users/me')).body.data.id, env.id),
      DEPLOY_KEY,
      'the new process decrypts',
    )
    t.equal((await b.createEnv('dev', { ...envBody, name: 'secure' })).status, 409, 'the unique index is still there')

    t.test('moved or tampered ciphertext fails closed', async (t) => {
      const userId = (await b.call('dev', 'GET', '/api/users/me')).body.data.id
      const environments = app2.environments
      const one = await db.collection('environments').findOne({ _id: env.id as never })
      // The deploy key of `secure` copied into `second` (same owner): the AAD binds it to its record.
      await db.collection('environments').updateOne({ _id: env2.id as never }, { $set: { deployKey: one!.deployKey } })
      await t.rejects(environments.getDeployKey(userId, env2.id), DecryptionError)
      // A flipped bit in the ciphertext of a credential: validation refuses to use it.
      const rawCred = await db.collection('cloud_credentials').findOne({ _id: cred.id as never })
      const data = Buffer.from(rawCred!.secret.data, 'base64')
      data[3] ^= 0x20
      await db.collection('cloud_credentials').updateOne({ _id: cred.id as never }, { $set: { 'secret.data': data.toString('base64') } })
      const res = await b.call('dev', 'POST', `/api/cloud-credentials/${cred.id}/validate`)
      t.equal(res.status, 500, 'a server-side integrity failure, not a result')
      t.equal(res.body.error.code, 'INTERNAL_ERROR')
      t.notMatch(res.raw, /wJalr|session-token/)
      await t.rejects(app2.cloudCredentials.getCredentials(userId, cred.id), DecryptionError)
      t.equal((await b.getCred('dev', cred.id)).status, 200, 'metadata stays readable')
      // Put things back for the rotation test.
      await db.collection('cloud_credentials').updateOne({ _id: cred.id as never }, { $set: { secret: rawCred!.secret } })
      await db.collection('environments').updateOne({ _id: env2.id as never }, { $unset: { deployKey: '' } })
    })

    t.test('key rotation: old keys decrypt, the script re-encrypts under the current key', async (t) => {
      const newKey = generateKey()
      const rotated = loadConfig({ NODE_ENV: 'test', MONGODB_URI: ctx.db.uri, ENCRYPTION_KEY: newKey, ENCRYPTION_KEYS: key })
      const ring = keyRingOf(rotated)
      const versionBefore = (await db.collection('environments').findOne({ _id: env.id as never }))?.version
      const result = await reencryptAll(db, ring)
      t.same(result, { environments: { updated: 1, failed: [] }, cloudCredentials: { updated: 2, failed: [] } })
      const kids = [
        ...(
          await db
            .collection('environments')
            .find({ deployKey: { $exists: true } })
            .toArray()
        ).map((d) => d.deployKey.kid),
        ...(await db.collection('cloud_credentials').find({}).toArray()).map((d) => d.secret.kid),
      ]
      t.same(new Set(kids), new Set([ring.currentKeyId]), 'every secret is under the new key')
      const versionAfter = (await db.collection('environments').findOne({ _id: env.id as never }))?.version
      t.equal(
        versionAfter,
        (versionBefore ?? 0) + 1,
        'the re-encrypted environment has a new version (a PUT that read the old ciphertext re-reads)',
      )
      t.same(
        await reencryptAll(db, ring),
        { environments: { updated: 0, failed: [] }, cloudCredentials: { updated: 0, failed: [] } },
        'idempotent',
      )

      const onlyNew = loadConfig({
        NODE_ENV: 'test',
        MONGODB_URI: ctx.db.uri,
        AUTH_URL: ctx.config.auth.url,
        LOG_LEVEL: 'silent',
        ENCRYPTION_KEY: newKey,
      })
      const app3 = await buildApp({ config: onlyNew, logger: false })
      t.teardown(() => app3.close())
      const userId = (await api({ ...ctx, app: app3 }).call('dev', 'GET', '/api/users/me')).body.data.id
      t.equal(await app3.environments.getDeployKey(userId, env.id), DEPLOY_KEY, 'readable without the old key')
      const stored = await app3.cloudCredentials.getCredentials(userId, cred.id)
      t.equal((stored?.credentials as { secretAccessKey: string }).secretAccessKey, AWS_KEY.secretAccessKey)
    })
  })
})
