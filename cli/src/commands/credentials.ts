// ies credentials list | create | validate. Secret values come from a file or hidden prompts, are
// sent to the API once and are never printed.
import { Option, type Command } from 'commander'
import type { CredentialCreate, CredentialSummary } from '../client/index.ts'
import type { Context } from '../context.ts'
import { findCredential } from '../lookup.ts'
import { CommandFailed, EXIT } from '../output.ts'
import { UsageError } from '../settings.ts'
import { readObjectFile } from './env.ts'

const CREDENTIAL_PROVIDERS = ['aws', 'azure', 'gcp']

/** The prompts per provider: [field, label, secret]. gcp takes its key file with --from-file. */
const PROMPTS: Record<string, Array<[string, string, boolean]>> = {
  aws: [
    ['accessKeyId', 'Access key id', false],
    ['secretAccessKey', 'Secret access key', true],
    ['region', 'Region (optional)', false],
  ],
  azure: [
    ['subscriptionId', 'Subscription id', false],
    ['tenantId', 'Tenant id', false],
    ['clientId', 'Client id', false],
    ['clientSecret', 'Client secret', true],
  ],
}

async function promptSecrets(provider: string): Promise<Record<string, unknown>> {
  const fields = PROMPTS[provider]
  if (!fields || !process.stdin.isTTY) {
    throw new UsageError(
      `Give the ${provider} credentials with --from-file <file> (YAML or JSON)${fields ? ' when not on a terminal' : ''}`,
    )
  }
  // Loaded only when asking: the prompts library is the largest of the command line's.
  const { input, password } = await import('@inquirer/prompts')
  const out: Record<string, unknown> = {}
  for (const [field, label, secret] of fields) {
    const value = secret ? await password({ message: label, mask: '*' }) : await input({ message: label })
    if (value !== '') out[field] = value
  }
  return out
}

export function registerCredentials(program: Command, ctx: () => Context): void {
  const credentials = program.command('credentials').description('Cloud credentials: list, create, validate (secrets are never shown)')

  credentials
    .command('list')
    .description('List your cloud credentials')
    .addOption(new Option('--provider <provider>').choices(CREDENTIAL_PROVIDERS))
    .action(async (opts: { provider?: string }) => {
      const c = ctx()
      const list = await (await c.client()).allCredentials(opts as { provider?: CredentialSummary['provider'] })
      c.out.result(list, () => {
        if (list.length === 0) return c.out.line('No cloud credentials.')
        c.out.table(
          ['NAME', 'PROVIDER', 'DEFAULT', 'UPDATED', 'ID'],
          list.map((x) => [x.name, x.provider, x.isDefault ? 'yes' : '', x.updatedAt, x.id]),
        )
      })
    })

  credentials
    .command('create')
    .description('Store a cloud credential (encrypted at rest; prompts for the secret values on a terminal)')
    .requiredOption('--name <name>')
    .addOption(new Option('--provider <provider>').choices(CREDENTIAL_PROVIDERS).makeOptionMandatory())
    .option(
      '--from-file <file>',
      'YAML or JSON with the secret values (aws: accessKeyId, secretAccessKey, region; azure: ...; gcp: projectId, serviceAccountKey)',
    )
    .action(async (opts: { name: string; provider: string; fromFile?: string }) => {
      const c = ctx()
      const client = await c.client()
      // Signed in before asking for secrets, not after.
      await (await c.session()).getToken()
      const secrets = opts.fromFile ? readObjectFile(opts.fromFile) : await promptSecrets(opts.provider)
      const body = { name: opts.name, provider: opts.provider, credentials: secrets } as CredentialCreate
      const created = await client.createCredential(body)
      c.out.result(created, () => c.out.line(`Created ${created.provider} credential ${created.name} (${created.id}).`))
    })

  credentials
    .command('validate <name-or-id>')
    .description('Check a credential with its cloud (exits 1 when the cloud refuses it)')
    .action(async (nameOrId: string) => {
      const c = ctx()
      const client = await c.client()
      const found = await findCredential(client, nameOrId)
      const result = await client.validateCredential(found.id)
      c.out.result(result, () => {
        if (result.valid) c.out.line(`Valid: ${result.identity.arn} (account ${result.identity.accountId}).`)
      })
      if (!result.valid)
        throw new CommandFailed(`The credential ${found.name} is not valid: ${result.error}`, EXIT.FAILURE, 'CREDENTIAL_INVALID')
    })
}
