// ies credentials list | create | rotate | default | validate | delete. Secret values come from a file or hidden prompts, are
// sent to the API once and are never printed.
import { Option, type Command } from 'commander'
import { CREDENTIAL_PROVIDERS } from '@ies/api'
import type { CredentialCreate, CredentialSummary, CredentialUpdate } from '@ies/api'
import type { Context } from '../context.ts'
import { findCredential } from '../lookup.ts'
import { withExamples } from '../help.ts'
import { CommandFailed, EXIT } from '../output.ts'
import { UsageError } from '../settings.ts'
import { confirmed } from '../confirm.ts'
import { readObjectFile } from '../object-file.ts'

const FROM_FILE_TEXT =
  'YAML or JSON with the secret values (aws: accessKeyId, secretAccessKey, region; azure: subscriptionId, tenantId, clientId, clientSecret; gcp: projectId, serviceAccountKey)'

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
  const credentials = withExamples(
    program
      .command('credentials')
      .description('Cloud credentials: list, create, rotate, default, validate, delete (secrets are never shown)'),
    ['ies credentials list', 'ies credentials create --name aws-dev --provider aws'],
  )

  credentials
    .command('list')
    .description('List your cloud credentials')
    .addOption(new Option('--provider <provider>', 'only this provider').choices(CREDENTIAL_PROVIDERS))
    .action(async (opts: { provider?: string }) => {
      const c = ctx()
      const list = await (await c.client()).allCredentials(opts as { provider?: CredentialSummary['provider'] })
      c.out.list(list, 'No cloud credentials.', ['NAME', 'PROVIDER', 'DEFAULT', 'UPDATED', 'ID'], (x) => [
        x.name,
        x.provider,
        x.isDefault ? 'yes' : '',
        x.updatedAt,
        x.id,
      ])
    })

  credentials
    .command('create')
    .description('Store a cloud credential (encrypted at rest; prompts for the secret values on a terminal)')
    .requiredOption('--name <name>', 'its name (what environment files give as cloudCredential)')
    .addOption(new Option('--provider <provider>', 'the cloud').choices(CREDENTIAL_PROVIDERS).makeOptionMandatory())
    .option('--from-file <file>', FROM_FILE_TEXT)
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
    .command('rotate <name-or-id>')
    .description('Replace the secret values of a credential (its name, id and the environments using it stay)')
    .option('--from-file <file>', FROM_FILE_TEXT)
    .action(async (nameOrId: string, opts: { fromFile?: string }) => {
      const c = ctx()
      const client = await c.client()
      const found = await findCredential(client, nameOrId)
      const secrets = opts.fromFile ? readObjectFile(opts.fromFile) : await promptSecrets(found.provider)
      const updated = await client.updateCredential(found.id, { credentials: secrets } as CredentialUpdate)
      c.out.result(updated, () =>
        c.out.line(`Rotated ${found.provider} credential ${found.name}; check it with: ies credentials validate ${found.name}`),
      )
    })

  credentials
    .command('default <name-or-id>')
    .description('Make a credential the default of its provider (the wizard preselects it)')
    .action(async (nameOrId: string) => {
      const c = ctx()
      const client = await c.client()
      const found = await findCredential(client, nameOrId)
      const updated = await client.setDefaultCredential(found.id)
      c.out.result(updated, () => c.out.line(`${updated.name} is now the default ${updated.provider} credential.`))
    })

  credentials
    .command('delete <name-or-id>')
    .description('Delete a credential (refused while an environment uses it)')
    .option('-y, --yes', 'do not ask (required when not on a terminal)')
    .action(async (nameOrId: string, opts: { yes?: boolean }) => {
      const c = ctx()
      const client = await c.client()
      const found = await findCredential(client, nameOrId)
      if (!(await confirmed(opts.yes, `Delete the ${found.provider} credential ${found.name}?`))) {
        c.out.line('Nothing deleted.')
        return
      }
      await client.deleteCredential(found.id)
      c.out.result({ id: found.id, name: found.name, deleted: true }, () => c.out.line(`Deleted credential ${found.name}.`))
    })

  const examples: Record<string, string[]> = {
    list: ['ies credentials list', 'ies credentials list --provider aws --json'],
    create: [
      '# prompts for the secret values on a terminal',
      'ies credentials create --name aws-dev --provider aws',
      'ies credentials create --name gcp-dev --provider gcp --from-file gcp-dev.yaml',
    ],
    rotate: ['ies credentials rotate aws-dev', 'ies credentials rotate aws-dev --from-file aws-dev.yaml'],
    default: ['ies credentials default aws-dev'],
    delete: ['ies credentials delete aws-old', 'ies credentials delete aws-old --yes'],
    validate: ['ies credentials validate aws-dev'],
  }

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
  for (const command of credentials.commands) withExamples(command, examples[command.name()] ?? [])
}
