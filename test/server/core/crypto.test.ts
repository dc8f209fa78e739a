// AES-256-GCM at rest: round trip, fresh IVs, AAD binding, tampering fails closed, key rotation,
// and the configuration rules for ENCRYPTION_KEY / ENCRYPTION_KEYS.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { loadConfig } from '@ies/server/config'
import { DecryptionError, KeyRing, generateKey, keyIdOf, keyRingOf } from '@ies/server/core/crypto'

const ctx = { purpose: 'test.secret', recordId: 'record-1', ownerId: 'user-1' }
const key = () => randomBytes(32)

t.test('a secret round-trips, with a fresh 96-bit IV, a 128-bit tag and the key id', async (t) => {
  const ring = new KeyRing(key())
  const a = ring.encryptSecret('hunter2-very-secret', ctx)
  const b = ring.encryptSecret('hunter2-very-secret', ctx)
  t.equal(Buffer.from(a.iv, 'base64').length, 12)
  t.equal(Buffer.from(a.tag, 'base64').length, 16)
  t.equal(a.kid, ring.currentKeyId)
  t.not(a.iv, b.iv, 'every value gets its own IV')
  t.not(a.data, b.data)
  t.notMatch(JSON.stringify(a), /hunter2/)
  t.equal(ring.decryptSecret(a, ctx), 'hunter2-very-secret')
  t.equal(ring.decryptSecret(ring.encryptSecret('', ctx), ctx), '', 'empty values too')
})

t.test('the record id, owner and purpose are authenticated: a copied ciphertext fails', async (t) => {
  const ring = new KeyRing(key())
  const secret = ring.encryptSecret('s3cret', ctx)
  for (const other of [
    { ...ctx, recordId: 'record-2' },
    { ...ctx, ownerId: 'user-2' },
    { ...ctx, purpose: 'other.secret' },
  ]) {
    t.throws(() => ring.decryptSecret(secret, other), DecryptionError, JSON.stringify(other))
  }
})

t.test('tampering fails closed, and the error carries no secret material', async (t) => {
  const ring = new KeyRing(key())
  const secret = ring.encryptSecret('plaintext-value', ctx)
  const flip = (b64: string) => {
    const buf = Buffer.from(b64, 'base64')
    buf[0] ^= 1
    return buf.toString('base64')
  }
  const cases = {
    data: { ...secret, data: flip(secret.data) },
    tag: { ...secret, tag: flip(secret.tag) },
    iv: { ...secret, iv: flip(secret.iv) },
    'short tag': { ...secret, tag: Buffer.from(secret.tag, 'base64').subarray(0, 8).toString('base64') },
    'unknown key id': { ...secret, kid: 'nope' },
    'unknown version': { ...secret, v: 2 as unknown as 1 },
    'truncated data': { ...secret, data: '' },
  }
  for (const [name, bad] of Object.entries(cases)) {
    try {
      ring.decryptSecret(bad, ctx)
      t.fail(`${name}: decrypted`)
    } catch (err) {
      t.type(err, DecryptionError, name)
      t.notMatch((err as Error).message, /plaintext-value/)
      t.notMatch((err as Error).message, secret.data)
    }
  }
})

t.test('old keys still decrypt; values under them are stale and re-encrypt to the current key', async (t) => {
  const oldKey = key()
  const before = new KeyRing(oldKey)
  const secret = before.encryptSecret('rotate me', ctx)
  const after = new KeyRing(key(), [oldKey])
  t.equal(after.decryptSecret(secret, ctx), 'rotate me')
  t.ok(after.isStale(secret))
  const fresh = after.reencryptSecret(secret, ctx)
  t.equal(fresh.kid, after.currentKeyId)
  t.notOk(after.isStale(fresh))
  t.equal(new KeyRing(after['keys'].get(after.currentKeyId)!).decryptSecret(fresh, ctx), 'rotate me', 'no old key needed any more')
  t.throws(() => new KeyRing(key()).decryptSecret(secret, ctx), DecryptionError, 'without the old key it fails')
  t.not(keyIdOf(oldKey), after.currentKeyId)
})

t.test('configuration', async (t) => {
  const base = { AUTH_URL: 'https://idp.example.com' }
  t.throws(() => loadConfig({ ...base, NODE_ENV: 'production' }), /ENCRYPTION_KEY is required/, 'production needs ENCRYPTION_KEY')
  const k = generateKey()
  const config = loadConfig({ ...base, NODE_ENV: 'production', ENCRYPTION_KEY: k, ENCRYPTION_KEYS: `${generateKey()}, ${generateKey()}` })
  t.equal(config.encryption.key, k)
  t.equal(config.encryption.oldKeys.length, 2)
  for (const bad of ['short', randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), `${k.slice(0, -2)}!=`]) {
    t.throws(() => loadConfig({ ENCRYPTION_KEY: bad }), /ENCRYPTION_KEY must be 32 bytes/, `ENCRYPTION_KEY=${bad}`)
    t.throws(() => loadConfig({ ENCRYPTION_KEYS: bad }), /ENCRYPTION_KEYS must be 32 bytes/, `ENCRYPTION_KEYS=${bad}`)
  }
  const ring = keyRingOf(config)
  t.equal(ring.currentKeyId, keyIdOf(Buffer.from(k, 'base64')))
  const testRing = keyRingOf(loadConfig({ NODE_ENV: 'test' }))
  t.equal(keyRingOf(loadConfig({ NODE_ENV: 'test' })).currentKeyId, testRing.currentKeyId, 'tests without a key share one per process')
})
