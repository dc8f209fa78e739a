// A credential's region is checked like an environment's; an edit renames alone
// or replaces the whole secret; a check that could not reach the provider is not "invalid".
import t from 'tap'
import { checkOutcome, credentialUpdateFromForm, credentialsFromForm } from '../../../../../desktop/src/renderer/lib/credentials/fields.ts'
import { checkRegion } from '../../../../../desktop/src/renderer/lib/environments/rules.ts'

t.test('the region is checked like an environment region', async (t) => {
  const { errors } = credentialsFromForm('aws', { accessKeyId: 'AKIA', secretAccessKey: 's', region: 'EU WEST' })
  t.same(errors, { 'credentials.region': checkRegion('EU WEST') })
  t.same(credentialsFromForm('aws', { accessKeyId: 'AKIA', secretAccessKey: 's', region: 'eu-west-1' }).credentials, {
    accessKeyId: 'AKIA',
    secretAccessKey: 's',
    region: 'eu-west-1',
  })
})

t.test('an edit: the name alone, or the whole new secret', async (t) => {
  t.same(credentialUpdateFromForm('aws', ' prod ', {}), { body: { name: 'prod' }, errors: {}, rotates: false })
  const rotation = credentialUpdateFromForm('aws', 'prod', { accessKeyId: 'AKIA2', secretAccessKey: 'new' })
  t.same(rotation, { body: { name: 'prod', credentials: { accessKeyId: 'AKIA2', secretAccessKey: 'new' } }, errors: {}, rotates: true })
  t.same(credentialUpdateFromForm('aws', 'prod', { secretAccessKey: 'new' }).errors, { 'credentials.accessKeyId': 'is required' })
  t.same(credentialUpdateFromForm('aws', '', {}).errors, { name: 'is required' })
})

t.test('valid, invalid, or could not check (as the server classified it)', async (t) => {
  const checkedAt = '2026-11-25T03:00:00.000Z'
  t.same(checkOutcome({ valid: true, identity: { arn: 'arn:aws:iam::1:user/a', accountId: '1' }, checkedAt }), {
    state: 'valid',
    text: 'Valid: arn:aws:iam::1:user/a',
  })
  t.same(checkOutcome({ valid: false, error: 'The security token included in the request is invalid.', checkedAt }), {
    state: 'invalid',
    text: 'Invalid: The security token included in the request is invalid.',
  })
  const error = 'Could not reach AWS STS: the host name does not resolve (ENOTFOUND)'
  const outcome = checkOutcome({ valid: false, error, unreachable: true, checkedAt })
  t.equal(outcome.state, 'unreachable')
  t.notMatch(outcome.text, /ENOTFOUND/, 'the words, not the raw message')
  t.equal(outcome.detail, error, 'which stays available as a detail')
})
