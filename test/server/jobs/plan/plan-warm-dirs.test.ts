// The warm Terraform directories plans reuse (server/src/jobs/plan/warm-dirs.ts), with the real
// Terraform on a tree that needs no cloud (a local module and `terraform_data`, no backend): the
// second plan of a tree does not run init again, a tree that calls another module gets a directory
// of its own, a warm directory that no longer fits (its module manifest gone) is initialised again
// and the plan still succeeds, concurrent first plans initialise once, and stopping removes them all.
// The end-to-end plans against moto (S3 backend, credential, secrets) are in plan.test.ts.
import { readdir, stat, rm } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { loadConfig } from '@ies/server/config'
import { runPlan, type TreeFile } from '@ies/server/jobs/plan/plan-run'
import { initFingerprint, WarmDirs } from '@ies/server/jobs/plan/warm-dirs'
import { terraformMissing } from '../../../../scripts/check-templates/terraform.ts'
import { ensureCliConfig } from '../../../../scripts/terraform/cli-config.ts'

const file = (p: string, text: string): TreeFile => ({ path: p, read: async () => Buffer.from(text) })
const moduleText = 'variable "n" {}\nresource "terraform_data" "this" {\n  input = var.n\n}\n'
const tree = (calls: string[], n = 1): TreeFile[] => [
  file('terraform/main.tf', calls.map((c) => `module "${c}" {\n  source = "./modules/m"\n  n      = var.n\n}\n`).join('')),
  file('terraform/variables.tf', 'variable "n" {\n  type = number\n}\n'),
  file('terraform/terraform.tfvars', `n = ${n}\n`),
  file('terraform/modules/m/main.tf', moduleText),
  file('README.md', 'not planned\n'),
]

t.test('the fingerprint reads what init reads, and nothing else', async (t) => {
  const f = (p: string, text: string) => ({ path: p, content: Buffer.from(text) })
  const base = [f('main.tf', 'module "a" {\n  source = "./m"\n}\n'), f('terraform.tfvars', 'n = 1\n'), f('x.tf', 'resource "a" "b" {}\n')]
  const same = initFingerprint(base, ['terraform'])
  t.equal(initFingerprint([...base.slice(0, 1), f('terraform.tfvars', 'n = 2\n'), base[2]!], ['terraform']), same, 'a value: the same')
  t.equal(initFingerprint([...base.slice(0, 2), f('x.tf', 'resource "a" "b" { x = 1 }\n')], ['terraform']), same, 'a resource: the same')
  t.not(initFingerprint([f('main.tf', 'module "b" {\n  source = "./m"\n}\n'), ...base.slice(1)], ['terraform']), same, 'a module call')
  t.not(initFingerprint([...base, f('backend.tf', 'terraform {\n  backend "s3" {}\n}\n')], ['terraform']), same, 'a backend')
  t.not(initFingerprint([...base, f('.terraform.lock.hcl', 'x')], ['terraform']), same, 'a lock file')
  t.not(initFingerprint(base, ['/opt/terraform']), same, 'another binary')
})

const reason = terraformMissing()
if (reason) {
  t.test('real Terraform', { skip: reason }, async () => {})
} else {
  t.test('plans reuse the initialised directory of their environment and tree', async (t) => {
    const config = loadConfig({ TERRAFORM_CLI_CONFIG: ensureCliConfig()! } as NodeJS.ProcessEnv)
    const warm = new WarmDirs()
    t.teardown(() => warm.close())
    const cloud = { accessKeyId: 'AKIAWARMDIRTEST00001', secretAccessKey: 'warmDirTestSecret', region: 'eu-central-1' }
    const plan = (files: TreeFile[], environmentId = 'env-a') =>
      runPlan({ settings: config.plan, cloud, holders: {}, kind: 'plan', environmentId, warm, files })
    const manifest = () => path.join(warm.list().at(-1)!.dataDir, 'modules', 'modules.json')

    const [a, b] = await Promise.all([plan(tree(['one'])), plan(tree(['one']))])
    t.same([a.summary.add, b.summary.add], [1, 1], 'both first plans plan the module resource')
    t.equal(warm.list().length, 1, 'concurrent first plans of one tree share one directory')
    const initialised = (await stat(manifest())).mtimeMs
    const again = await plan(tree(['one'], 2))
    t.equal(again.summary.add, 1)
    t.equal((await stat(manifest())).mtimeMs, initialised, 'a value changed: no init again')

    const two = await plan(tree(['one', 'two']))
    t.equal(two.summary.add, 2, 'a new module call is planned')
    t.equal(warm.list().length, 2, 'in a directory of its own')
    const other = await plan(tree(['one']), 'env-b')
    t.equal(other.summary.add, 1)
    t.equal(warm.list().length, 3, 'another environment: its own directory')

    await rm(path.join(warm.list()[0]!.dataDir, 'modules'), { recursive: true, force: true })
    const healed = await plan(tree(['one'], 3))
    t.equal(healed.summary.add, 1, 'a directory that no longer fits is initialised again')
    t.ok(existsSync(manifest()), 'its manifest is back')

    const root = path.dirname(path.dirname(warm.list()[0]!.dataDir))
    t.ok((await readdir(root)).length >= 3)
    await warm.close()
    t.notOk(existsSync(root), 'stopping removes them all')
  })

  t.test('at most `limit` directories are kept', async (t) => {
    const warm = new WarmDirs(2)
    t.teardown(() => warm.close())
    const dirs: string[] = []
    for (const key of ['a', 'b', 'c'])
      await warm.use(
        key,
        async () => {},
        async (dir) => void dirs.push(dir.dataDir),
      )
    t.equal(warm.list().length, 2)
    t.notOk(existsSync(dirs[0]!), 'the least recently used one is removed')
    t.ok(existsSync(dirs[2]!))
  })
}
