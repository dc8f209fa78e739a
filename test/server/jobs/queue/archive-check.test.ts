// A generation's archive is checked against the files it must hold (the processed files plus
// terraform/backend.tf when it is written): the zip's entries are counted and named, and a short
// archive fails the generation with GENERATION_FAILED and MISSING_OUTPUT findings.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { zipTree } from '@ies/processor-lib'
import { archiveOf, checkedArchive, generate, GenerationError, inProcessProcessor } from '@ies/server/jobs/generation/generation'
import { directorySource } from '@ies/server/templates/templates'
import type { ProcessorInput } from '@ies/server/jobs/generation/transform'
import { unzip } from '../../../harness/jobs.ts'

const input: ProcessorInput = {
  name: 'shop',
  globalPrefix: 'acme',
  provider: 'aws',
  region: 'eu-central-1',
  domain: '',
  services: {},
  terraformBackend: { key: 'env/x/aws.tfstate', useLockfile: true },
}

t.test('the archive holds the processed files and the backend file', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-archive-check-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await mkdir(path.join(dir, 'terraform'), { recursive: true })
  await writeFile(path.join(dir, 'terraform/main.tf'), 'locals {\n  # @param name\n  name = "x"\n}\n')
  await writeFile(path.join(dir, 'terraform/terraform.tfvars'), '# @param region\nregion = "x"\n')
  const processor = inProcessProcessor(directorySource(dir), { trimDecoratorAttrs: false })
  const generated = await generate({
    input,
    format: 'terraform',
    options: { includeBackend: true, includeChart: false, includeGitops: false },
    processor,
  })
  t.same(
    generated.expected,
    ['terraform/main.tf', 'terraform/terraform.tfvars', 'terraform/backend.tf'],
    'expected: processed files plus backend.tf',
  )
  const files = await unzip(await archiveOf(generated))
  t.same([...files.keys()], ['terraform/backend.tf', 'terraform/main.tf', 'terraform/terraform.tfvars'])

  // The same tree zipped without the backend file, checked against what the generation expects.
  const short = await zipTree(generated.files.filter((f) => f.path !== 'terraform/backend.tf'))
  const err = await checkedArchive(short, generated.expected).catch((e: unknown) => e)
  t.ok(err instanceof GenerationError, 'a generation error')
  t.match(err, { code: 'GENERATION_FAILED', message: 'the archive does not hold every generated file' })
  t.same((err as GenerationError).details, [
    { code: 'MISSING_OUTPUT', severity: 'error', file: '.', line: 0, path: null, message: '2 files in the output for 3 expected' },
    {
      code: 'MISSING_OUTPUT',
      severity: 'error',
      file: 'terraform/backend.tf',
      line: 0,
      path: null,
      message: 'expected in the output but absent',
    },
  ])

  // A templates tree that already holds terraform/backend.tf: two entries of one name are refused.
  await writeFile(path.join(dir, 'terraform/backend.tf'), 'terraform {}\n')
  const doubled = await generate({
    input,
    format: 'terraform',
    options: { includeBackend: true, includeChart: false, includeGitops: false },
    processor,
  })
  await t.rejects(archiveOf(doubled), {
    code: 'GENERATION_FAILED',
    details: [{ file: '.' }, { file: 'terraform/backend.tf', message: 'appears more than once in the output' }],
  })
})
