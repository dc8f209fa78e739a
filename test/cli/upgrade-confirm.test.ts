// `ies upgrade --confirm-destroy ENV=ADDRESS` (repeatable) as the upgrade body's confirmDestroy:
// addresses grouped by environment name; a value without both parts is a usage error (exit 2).
import t from 'tap'
import { confirmationsOf } from '../../cli/src/commands/upgrade.ts'
import { CommandFailed, EXIT } from '../../cli/src/output.ts'

t.test('--confirm-destroy values by environment', async (t) => {
  t.same(
    confirmationsOf(['shop-dev=module.sqs.aws_sqs_queue.this', 'shop-dev=module.a["x"].b', 'shop-qa=module.rds.aws_db_instance.this']),
    {
      'shop-dev': ['module.sqs.aws_sqs_queue.this', 'module.a["x"].b'],
      'shop-qa': ['module.rds.aws_db_instance.this'],
    },
  )
  for (const bad of ['module.sqs.aws_sqs_queue.this', '=module.x', 'shop-dev='])
    t.throws(
      () => confirmationsOf([bad]),
      new CommandFailed(`--confirm-destroy takes ENVIRONMENT=ADDRESS, not "${bad}"`, EXIT.USAGE, 'USAGE'),
      `"${bad}" is refused`,
    )
})
