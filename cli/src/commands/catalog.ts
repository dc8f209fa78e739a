// ies catalog [--json]
import type { Command } from 'commander'
import type { Context } from '../context.ts'
import { withExamples } from '../help.ts'

export function registerCatalog(program: Command, ctx: () => Context): void {
  withExamples(
    program.command('catalog').description('The service catalog: what an environment can configure (--json: the whole document)'),
    ['ies catalog', "# a service's fields, with jq", "ies catalog --json | jq '.services.rds.fields'"],
  ).action(async () => {
    const c = ctx()
    const { document, etag, stale } = await (await c.client()).catalog()
    if (stale) c.out.note('Warning: the server answered from its cache (the processor is unreachable).')
    c.out.result(document, () => {
      const services = Object.entries(document?.services ?? {})
      c.out.line(`Catalog of templates ${document?.commit ?? etag?.replace(/"/g, '') ?? ''}: ${services.length} services`)
      c.out.table(
        ['SERVICE', 'NAME', 'FIELDS'],
        services.map(([key, s]) => [key, s.displayName, Object.keys(s.fields).length]),
      )
    })
  })
}
