// ies env list | get | create | update | delete | export
import { writeFileSync } from 'node:fs'
import { Option, type Command } from 'commander'
import { stringify } from 'yaml'
import { ENVIRONMENT_STATUSES as STATUSES, PROVIDERS } from '@ies/api'
import type { EnvironmentInput, EnvironmentListQuery } from '@ies/api'
import { exportableConfiguration, exportYaml } from '../export-config.ts'
import type { Context } from '../context.ts'
import { addAssignmentOptions, applyAssignments, type Assignments } from '../assignments.ts'
import { withExamples } from '../help.ts'
import { findEnvironment } from '../lookup.ts'
import { behindText } from './upgrade.ts'
import { registerHistory } from './env-history.ts'
import { UsageError } from '../settings.ts'
import { confirmed } from '../confirm.ts'
import { readObjectFile } from '../object-file.ts'
import { printProblems } from '../configuration-problems.ts'

export function registerEnv(program: Command, ctx: () => Context): void {
  const env = withExamples(
    program.command('env').description('Environments: list, show, create, update, delete, status, export, history, restore'),
    ['ies env list', 'ies env status shop-dev'],
  )

  registerList(env, ctx)
  registerGet(env, ctx)
  registerChanges(env, ctx)
  registerHistory(env, ctx)
  registerDelete(env, ctx)
  registerStatus(env, ctx)
  registerExport(env, ctx)
}

/** env list: the caller's environments and their teams', filtered by provider, status or team. */
function registerList(env: Command, ctx: () => Context): void {
  withExamples(
    env
      .command('list')
      .description("List your environments and your teams' (TEAM empty: your own; ROLE: what you may do)")
      .addOption(new Option('--provider <provider>', 'only this provider').choices(PROVIDERS))
      .addOption(new Option('--status <status>', 'only this status').choices(STATUSES))
      .option('--team <team>', "only this team's")
      .option('-l, --label <selector>', 'only those with these labels: key=value or key, comma-separated, all must match'),
    ['ies env list', 'ies env list --provider aws --json', 'ies env list --team platform', 'ies env list --label tier=production'],
  ).action(async (opts: { provider?: string; status?: string; team?: string; label?: string }) => {
    const c = ctx()
    const list = await (
      await c.client()
    ).allEnvironments({ ...(opts as Pick<EnvironmentListQuery, 'provider' | 'status' | 'team' | 'label'>), sort: 'name' })
    c.out.result(list, () => {
      if (list.length === 0) return c.out.line('No environments.')
      c.out.table(
        ['NAME', 'TEAM', 'ROLE', 'PROVIDER', 'REGION', 'LABELS', 'STATUS', 'UPDATED', 'ID'],
        // A stranded environment (values the current templates refuse: ies env status names them) says so.
        list.map((e) => [
          e.name,
          e.team ?? '',
          e.role ?? '',
          e.provider,
          e.region,
          labelsText(e.labels),
          e.problems?.length ? `${e.status} (stranded)` : e.status,
          e.updatedAt,
          e.id,
        ]),
      )
    })
  })
}

/** Labels as `key=value` pairs, comma-separated (as `--label` takes them). */
function labelsText(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(',')
}

/** `--label key=value` (repeatable) into a labels object; `key=` removes the label in an update (null). */
function collectLabel(value: string, previous: Record<string, string | null> = {}): Record<string, string | null> {
  const at = value.indexOf('=')
  if (at < 1) throw new UsageError(`--label ${value}: give key=value, e.g. --label tier=production`)
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) === '' ? null : value.slice(at + 1) }
}

const LABEL_HELP = 'a label key=value (repeatable), e.g. tier=production; key= removes it in an update'

/** env get: one environment as YAML (or JSON), with the values the templates refuse. */
function registerGet(env: Command, ctx: () => Context): void {
  withExamples(
    env
      .command('get <name-or-id>')
      .description("Show an environment (YAML; --json for JSON); a team's by <team>/<name> where names repeat"),
    ['ies env get shop-dev', 'ies env get platform/shop-prod', 'ies env get shop-dev --json'],
  ).action(async (nameOrId: string) => {
    const c = ctx()
    const found = await findEnvironment(await c.client(), nameOrId)
    c.out.result(found, () => {
      c.out.text(stringify(found))
      printProblems(c.out, found.problems, found.name)
    })
  })
}

/** env delete: after a yes (or --yes), with its jobs and archives. */
function registerDelete(env: Command, ctx: () => Context): void {
  withExamples(
    env
      .command('delete <name-or-id>')
      .description('Delete an environment with its jobs and archives')
      .option('-y, --yes', 'do not ask (required when not on a terminal)'),
    ['ies env delete shop-dev', 'ies env delete shop-dev --yes'],
  ).action(async (nameOrId: string, opts: { yes?: boolean }) => {
    const c = ctx()
    const client = await c.client()
    const found = await findEnvironment(client, nameOrId)
    if (!(await confirmed(opts.yes, `Delete environment ${found.name} and its jobs and archives?`))) {
      c.out.line('Nothing deleted.')
      return
    }
    await client.deleteEnvironment(found.id)
    c.out.result({ id: found.id, name: found.name, deleted: true }, () => c.out.line(`Deleted environment ${found.name}.`))
  })
}

/** env status: the last push, whether it is behind, the stranded values and the templates pin. */
function registerStatus(env: Command, ctx: () => Context): void {
  withExamples(
    env
      .command('status <name-or-id>')
      .description('Its last push (commit, branch, when) and whether it is behind its templates or configuration'),
    ['ies env status shop-dev', '# in a script: behind.templates and behind.configuration', 'ies env status shop-dev --json'],
  ).action(async (nameOrId: string) => {
    const c = ctx()
    const found = await findEnvironment(await c.client(), nameOrId)
    const status = {
      id: found.id,
      name: found.name,
      lastPush: found.lastPush ?? null,
      behind: found.behind ?? null,
      problems: found.problems ?? [],
      ...(found.templatesPin && { templatesPin: found.templatesPin }),
    }
    c.out.result(status, () => {
      const push = status.lastPush
      c.out.line(`${found.name} (${found.id})`)
      printProblems(c.out, status.problems, found.name)
      if (status.templatesPin) c.out.line(`Pinned:    templates ${status.templatesPin} (ies upgrade moves the pin)`)
      if (!push) return c.out.line('Never pushed.')
      c.out.line(
        `Last push: ${push.commit.slice(0, 12)} to ${push.branch}, ${push.pushedAt} (templates ${push.templatesCommit.slice(0, 12)})`,
      )
      if (status.behind)
        c.out.line(
          `Behind:    ${behindText(status.behind)}${behindText(status.behind) === 'up to date' ? '' : ' (ies upgrade, or ies push)'}`,
        )
    })
  })
}

/** env export: the configuration without credential fields, as `ies apply` takes it. */
function registerExport(env: Command, ctx: () => Context): void {
  withExamples(
    env
      .command('export <name-or-id>')
      .description('The configuration as YAML without credential fields (applies with `ies apply`)')
      .option('-o, --out <file>', 'write to this file instead of standard output'),
    ['ies env export shop-dev -o shop-dev.yaml', 'ies apply -f shop-dev.yaml'],
  ).action(async (nameOrId: string, opts: { out?: string }) => {
    const c = ctx()
    const found = await findEnvironment(await c.client(), nameOrId)
    const yaml = exportYaml(found)
    if (c.flags.json && !opts.out) c.out.result(exportableConfiguration(found), () => undefined)
    else if (opts.out) {
      writeFileSync(opts.out, yaml)
      c.out.note(`Wrote ${opts.out}`)
    } else c.out.text(yaml)
  })
}

/** env create and env update: a file and/or flags. */
function registerChanges(env: Command, ctx: () => Context): void {
  const create = env
    .command('create')
    .description('Create an environment from a file and/or flags')
    .option('-f, --file <file>', 'YAML or JSON with the environment (name, globalPrefix, provider, region, services, ...)')
    .option('--name <name>', 'its name: 3 to 50 lowercase letters, digits and hyphens, a letter first')
    .option('--global-prefix <prefix>', 'the prefix of every resource name (2 to 20 lowercase letters, digits and hyphens)')
    .addOption(new Option('--provider <provider>', 'the cloud').choices(PROVIDERS))
    .option('--region <region>', "the cloud's region, e.g. eu-central-1")
    .option('--domain <domain>', 'the DNS domain of the environment (optional)')
    .option('--team <team>', 'create it in this team (you must be its editor); without: your own')
    .option('--templates-pin <version>', 'pin it to this templates version (a commit or tag); default: follow the newest')
    .option('-l, --label <key=value>', LABEL_HELP, collectLabel)
  addAssignmentOptions(create)
  withExamples(create, [
    'ies env create -f shop-dev.yaml',
    'ies env create --name shop-dev --global-prefix acme --provider aws --region eu-central-1 --set services.vpc.enabled=true',
    'ies env create -f shop-prod.yaml --team platform',
    'ies env create -f shop-prod.yaml --label tier=production',
  ])
  create.action(
    async (
      opts: Assignments & {
        file?: string
        name?: string
        globalPrefix?: string
        provider?: string
        region?: string
        domain?: string
        team?: string
        templatesPin?: string
        label?: Record<string, string | null>
      },
    ) => {
      const c = ctx()
      const body: Record<string, unknown> = opts.file ? readObjectFile(opts.file) : {}
      const flags = {
        name: opts.name,
        globalPrefix: opts.globalPrefix,
        provider: opts.provider,
        region: opts.region,
        domain: opts.domain,
        team: opts.team,
        templatesPin: opts.templatesPin,
      }
      for (const [key, value] of Object.entries(flags)) if (value !== undefined) body[key] = value
      if (opts.label) body.labels = { ...(body.labels as object), ...opts.label }
      applyAssignments(body, opts)
      if (Object.keys(body).length === 0)
        throw new UsageError('Nothing to create: give -f <file> or --name, --global-prefix, --provider, --region')
      const created = await (await c.client()).createEnvironment(body as EnvironmentInput)
      c.out.result(created, () => c.out.line(`Created environment ${created.name} (${created.id}).`))
    },
  )

  const update = env
    .command('update <name-or-id>')
    .description('Change an environment: a JSON Merge Patch from a file and/or --set (null removes a member)')
    .option('-f, --file <file>', 'YAML or JSON merge patch')
    .option('--templates-pin <version>', 'pin it to this templates version (a commit or tag): pushes keep it until an upgrade')
    .option('--follow', 'remove the pin: generations and pushes use the newest templates again')
    .option('-l, --label <key=value>', LABEL_HELP, collectLabel)
  addAssignmentOptions(update)
  withExamples(update, [
    'ies env update shop-dev --set services.rds.multiAz=true',
    'ies env update shop-prod --label tier=production',
    '# remove a member (JSON Merge Patch)',
    'ies env update shop-dev --set domain=null',
    'ies env update shop-dev --set-env gitRepository.deployKey=IES_DEPLOY_KEY',
    '# keep the templates version it was last pushed with (docs/updating.md)',
    'ies env update shop-prod --templates-pin "$(ies env status shop-prod --json | jq -r .lastPush.templatesCommit)"',
  ])
  update.action(
    async (
      nameOrId: string,
      opts: Assignments & { file?: string; templatesPin?: string; follow?: boolean; label?: Record<string, string | null> },
    ) => {
      const c = ctx()
      const patch: Record<string, unknown> = opts.file ? readObjectFile(opts.file) : {}
      if (opts.templatesPin !== undefined && opts.follow) throw new UsageError('Give --templates-pin or --follow, not both')
      if (opts.templatesPin !== undefined) patch.templatesPin = opts.templatesPin
      if (opts.follow) patch.templatesPin = null
      if (opts.label) patch.labels = { ...(patch.labels as object), ...opts.label }
      applyAssignments(patch, opts)
      if (Object.keys(patch).length === 0) throw new UsageError('Nothing to update: give -f <file> or --set path=value')
      const client = await c.client()
      const found = await findEnvironment(client, nameOrId)
      const updated = await client.updateEnvironment(found.id, patch)
      c.out.result(updated, () => c.out.line(`Updated environment ${updated.name}.`))
    },
  )
}
