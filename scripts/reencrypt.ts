// Re-encrypts every stored secret (environment deploy keys, cloud credentials) under the current
// ENCRYPTION_KEY. Rotate a key: put the old one in ENCRYPTION_KEYS, the new one in ENCRYPTION_KEY,
// run `npx tsx scripts/reencrypt.ts` with the service's environment, then drop the old key.
// Exits 1 when a value could not be decrypted with any configured key (their ids are listed).
import { MongoClient, type Db } from 'mongodb'
import { loadConfig } from '../server/src/config.ts'
import { keyRingOf, type KeyRing } from '../server/src/core/crypto.ts'
import { EnvironmentRepository } from '../plugins/environments/repository.ts'
import { CloudCredentialRepository } from '../plugins/cloud-credentials/repository.ts'

export async function reencryptAll(db: Db, keys: KeyRing) {
  return {
    environments: await new EnvironmentRepository(db, keys).reencryptAll(),
    cloudCredentials: await new CloudCredentialRepository(db, keys).reencryptAll(),
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const config = loadConfig()
  if (!config.encryption.key) {
    console.error('ENCRYPTION_KEY is not set: nothing to re-encrypt to')
    process.exit(2)
  }
  const client = await new MongoClient(config.mongodbUri, { serverSelectionTimeoutMS: 5000 }).connect()
  try {
    const result = await reencryptAll(client.db(), keyRingOf(config))
    let failed = 0
    for (const [collection, { updated, failed: ids }] of Object.entries(result)) {
      console.log(`${collection}: ${updated} re-encrypted${ids.length ? `, ${ids.length} unreadable: ${ids.join(', ')}` : ''}`)
      failed += ids.length
    }
    process.exitCode = failed > 0 ? 1 : 0
  } finally {
    await client.close()
  }
}
