// The templates directory is live: the cached tree read is reused only while nothing in it changed.
import { mkdtemp, rm, writeFile, unlink, rename } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { directorySource } from '@ies/server/jobs/generation/templates'

t.test('a directory source sees every change on the next load', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ies-templates-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await writeFile(path.join(dir, 'a.tf'), 'value = "one"\n')
  const source = directorySource(dir)
  const content = async () => new Map((await source.load()).inputs.map((f) => [f.path, f.content.toString('utf8')]))

  const first = await source.load()
  t.same([...(await content())], [['a.tf', 'value = "one"\n']])
  t.equal((await source.load()).inputs, first.inputs, 'unchanged: the cached read')

  await writeFile(path.join(dir, 'a.tf'), 'value = "two"\n') // same size
  t.equal((await content()).get('a.tf'), 'value = "two"\n', 'an edit of the same size')
  t.not((await source.load()).commit, first.commit, 'a new commit (content hash)')

  await writeFile(path.join(dir, 'b.tf'), 'x = 1\n')
  t.same([...(await content()).keys()], ['a.tf', 'b.tf'], 'an added file')

  await rename(path.join(dir, 'b.tf'), path.join(dir, 'c.tf'))
  t.same([...(await content()).keys()], ['a.tf', 'c.tf'], 'a renamed file')

  await unlink(path.join(dir, 'c.tf'))
  t.same([...(await content()).keys()], ['a.tf'], 'a removed file')
})
