// ies plan <env>    the Terraform plan of the tree a push would write (exit 8: data at risk)
// ies drift <env>   the branch head planned refresh-only against the cloud (exit 9: drift found)
import type { Command } from 'commander'
import type { Job, PlanResult } from '@ies/api'
import type { Context } from '../context.ts'
import { withExamples } from '../help.ts'
import { addWaitOptions, failedJob, waitForJob, waits, type WaitOptions } from '../job-wait.ts'
import { findEnvironment } from '../lookup.ts'
import { CommandFailed, EXIT } from '../output.ts'
import { printPlan } from '../plan-output.ts'

const TEXT = {
  plan: "Plan the tree a push would write against the environment's cloud (Terraform plan; nothing is changed)",
  drift: "Check the environment's cloud for drift: the branch head planned refresh-only against the state",
}

export function registerPlan(program: Command, ctx: () => Context): void {
  for (const kind of ['plan', 'drift'] as const) {
    const command = program.command(`${kind} <env>`).description(TEXT[kind])
    addWaitOptions(command, kind)
    withExamples(
      command,
      kind === 'plan'
        ? [
            '# what the next push would do in the cloud',
            'ies plan shop-dev',
            '# in a pipeline: exit 8 when data would be lost',
            'ies plan shop-dev --json',
          ]
        : ['# what changed in the cloud outside Terraform (exit 9 when something did)', 'ies drift shop-prod'],
    )
    command.action(async (name: string, opts: WaitOptions) => {
      const c = ctx()
      const client = await c.client()
      const environment = await findEnvironment(client, name)
      let job: Job = await client[kind](environment.id)
      if (!waits(opts)) {
        c.out.result(job, () => c.out.line(`Queued ${kind} job ${job.id} (ies jobs wait ${job.id}).`))
        return
      }
      job = await waitForJob(client, c.out, job.id, { timeoutSeconds: opts.timeout })
      if (job.status !== 'succeeded') throw failedJob(c.out, job)
      const plan = job.result as PlanResult
      c.out.result(job, () => printPlan(c.out, plan))
      if (kind === 'plan' && plan.dataAtRisk.length > 0)
        throw new CommandFailed(
          `The plan would replace or destroy ${plan.dataAtRisk.length} resource(s) holding data`,
          EXIT.DATA_AT_RISK,
          'DATA_AT_RISK',
        )
      if (kind === 'drift' && plan.resources.length > 0)
        throw new CommandFailed(`${plan.resources.length} resource(s) drifted from the state`, EXIT.DRIFT, 'DRIFT_FOUND')
    })
  }
}
