// ies policy check -f <file or folder>: what the organisation's rules say of environment files before
// anything is sent: each environment the files describe, laid over the stored one of the same name
// (as `ies apply` would update it) or as a new one, judged by the server's rules; nothing is stored.
import type { Command } from 'commander'
import { exportableConfiguration } from '@ies/api/export-config'
import { mergePatch } from '@ies/api/merge-patch'
import { violationLine } from '@ies/api/schemas/policies'
import type { PolicyResult } from '@ies/api'
import { loadDesired } from '../apply.ts'
import type { Context } from '../context.ts'
import { withExamples } from '../help.ts'
import { CommandFailed, EXIT } from '../output.ts'
import { OPEN_CODES } from '@ies/api/errors'

const keyOf = (team: unknown, name: string) => `${typeof team === 'string' ? team : ''}/${name}`

export function registerPolicy(program: Command, ctx: () => Context): void {
  const policy = withExamples(program.command('policy').description("The organisation's rules (docs/policies.md)"), [
    'ies policy check -f shop-prod.yaml',
  ])
  withExamples(
    policy
      .command('check')
      .description("Check environment files against the organisation's rules before applying them (exit 1 on a deny)")
      .requiredOption('-f, --file <file-or-folder...>', 'YAML/JSON files, or folders of them, as `ies apply` takes them')
      .option('--team <team>', 'the team of every environment the files describe that names none'),
    ['ies policy check -f shop-prod.yaml', 'ies policy check -f envs/ --json', 'ies policy check -f envs/ && ies apply -f envs/'],
  ).action(async (opts: { file: string[]; team?: string }) => {
    const c = ctx()
    const desired = loadDesired(opts.file)
    const client = await c.client()
    const stored = new Map((await client.allEnvironments()).map((e) => [keyOf(e.team, e.name), e.id]))
    const results: Array<{ name: string; file: string } & PolicyResult> = []
    for (const d of desired) {
      if (opts.team !== undefined && d.config.team === undefined) d.config.team = opts.team
      const id = stored.get(keyOf(d.config.team, d.name))
      const base = id ? exportableConfiguration(await client.getEnvironment(id)) : {}
      const environment = mergePatch(base, d.config) as Record<string, unknown>
      results.push({ name: d.name, file: d.file, ...(await client.evaluatePolicies(environment)) })
    }
    const denied = results.filter((r) => r.deny.length > 0)
    c.out.result({ ok: denied.length === 0, environments: results }, () => {
      for (const r of results) {
        const mark = r.deny.length > 0 ? c.out.colors.red('✗') : c.out.colors.green('✓')
        c.out.line(`${mark} ${r.name}${c.out.colors.dim(`  (${r.file})`)}`)
        for (const v of r.deny) c.out.line(`    ${c.out.colors.red('deny')} ${violationLine(v)}`)
        for (const v of r.warn) c.out.line(`    ${c.out.colors.yellow('warn')} ${violationLine(v)}`)
      }
    })
    if (denied.length > 0) {
      const names = denied.map((r) => r.name).join(', ')
      throw new CommandFailed(`The organisation's rules refuse ${names}`, EXIT.FAILURE, OPEN_CODES.policyDenied)
    }
  })
}
