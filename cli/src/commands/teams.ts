// ies teams list | create | rename | delete | members | add-member | remove-member | settings (docs/teams.md).
// Everyone lists their own teams with their role; an admin manages teams and members.
import { Option, type Command } from 'commander'
import type { TeamMember } from '@ies/api'
import type { Context } from '../context.ts'
import { withExamples } from '../help.ts'
import { confirmed } from '../confirm.ts'

const ROLES = ['viewer', 'operator', 'editor']
const KINDS = ['user', 'client']

const kindOption = () =>
  new Option('--kind <kind>', 'user (a person, by user name) or client (a service account, by client id)').choices(KINDS).default('user')

export function registerTeams(program: Command, ctx: () => Context): void {
  const teams = withExamples(
    program.command('teams').description('Teams: list yours; an admin creates them and sets members and roles (viewer, operator, editor)'),
    ['ies teams list', 'ies teams add-member platform ies-cli --kind client --role operator'],
  )

  withExamples(teams.command('list').description('List your teams and your role in each (an admin: every team)'), [
    'ies teams list',
    'ies teams list --json',
  ]).action(async () => {
    const c = ctx()
    c.out.list(await (await c.client()).teams(), 'No teams.', ['NAME', 'ROLE', 'ID'], (t) => [t.name, t.role ?? '', t.id])
  })

  withExamples(teams.command('create <name>').description('Create a team (admin)'), ['ies teams create platform']).action(
    async (name: string) => {
      const c = ctx()
      const team = await (await c.client()).createTeam(name)
      c.out.result(team, () => c.out.line(`Created team ${team.name} (${team.id}).`))
    },
  )

  withExamples(teams.command('rename <team> <new-name>').description('Rename a team (admin); its environments follow'), [
    'ies teams rename platform platform-eng',
  ]).action(async (team: string, name: string) => {
    const c = ctx()
    const renamed = await (await c.client()).renameTeam(team, name)
    c.out.result(renamed, () => c.out.line(`Renamed team ${team} to ${renamed.name}.`))
  })

  withExamples(
    teams
      .command('delete <team>')
      .description('Delete a team without environments or cloud credentials (admin)')
      .option('-y, --yes', 'do not ask (required when not on a terminal)'),
    ['ies teams delete platform-eng --yes'],
  ).action(async (team: string, opts: { yes?: boolean }) => {
    const c = ctx()
    if (!(await confirmed(opts.yes, `Delete team ${team}?`))) return
    await (await c.client()).deleteTeam(team)
    c.out.result({ deleted: team }, () => c.out.line(`Deleted team ${team}.`))
  })

  withExamples(
    teams.command('members <team>').description("A team's members and their roles (members from identity-provider groups are not listed)"),
    ['ies teams members platform'],
  ).action(async (team: string) => {
    const c = ctx()
    c.out.list(await (await c.client()).teamMembers(team), 'No members.', ['KIND', 'NAME', 'ROLE'], (m) => [m.kind, m.name, m.role])
  })

  withExamples(
    teams
      .command('add-member <team> <name>')
      .description('Add a member or change their role (admin)')
      .addOption(kindOption())
      .addOption(
        new Option('--role <role>', 'viewer: read; operator: also generate and push; editor: also create, change, delete')
          .choices(ROLES)
          .makeOptionMandatory(),
      ),
    ['ies teams add-member platform alice --role editor', 'ies teams add-member platform ies-cli --kind client --role operator'],
  ).action(async (team: string, name: string, opts: { kind: TeamMember['kind']; role: TeamMember['role'] }) => {
    const c = ctx()
    const member = await (await c.client()).setTeamMember(team, { kind: opts.kind, name, role: opts.role })
    c.out.result(member, () => c.out.line(`${member.kind} ${member.name} is ${member.role} of team ${team}.`))
  })

  withExamples(
    teams
      .command('settings <team>')
      .description("Set a team's settings (admin)")
      .addOption(
        new Option('--require-production-approval <on|off>', 'pushes and upgrades of its tier: production environments wait for approval')
          .choices(['on', 'off'])
          .makeOptionMandatory(),
      ),
    ['ies teams settings platform --require-production-approval on'],
  ).action(async (team: string, opts: { requireProductionApproval: 'on' | 'off' }) => {
    const c = ctx()
    const set = await (await c.client()).setTeamSettings(team, { requireProductionApproval: opts.requireProductionApproval === 'on' })
    const how = set.requireProductionApproval ? 'need approval' : 'need no approval'
    c.out.result(set, () => c.out.line(`Pushes of team ${set.name}'s production environments ${how}.`))
  })

  withExamples(
    teams.command('remove-member <team> <name>').description('Remove a member (admin): they lose access at once').addOption(kindOption()),
    ['ies teams remove-member platform alice', 'ies teams remove-member platform ies-cli --kind client'],
  ).action(async (team: string, name: string, opts: { kind: TeamMember['kind'] }) => {
    const c = ctx()
    await (await c.client()).removeTeamMember(team, { kind: opts.kind, name })
    c.out.result({ removed: name, team }, () => c.out.line(`Removed ${opts.kind} ${name} from team ${team}.`))
  })
}
