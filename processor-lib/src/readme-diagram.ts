/**
 * The environment diagram in generated Markdown: a line holding only `<!-- ies:environment-diagram -->`
 * in a Markdown file of the tree (the generated repository's README) becomes a ```mermaid block of
 * the enabled services (contract/diagram.ts), made from the catalog of the tree's parameter-values
 * file and the configuration. The marker is an HTML comment, invisible wherever the file is shown
 * unprocessed. Without the parameter-values file among the processed files (a request that selects
 * only some folders) the file is copied as it is.
 */
import { buildCatalog, DEFAULT_PARAMS_FILES } from './catalog.ts'
import { catalogDiagramServices, environmentDiagram, type DiagramService } from './contract/diagram.ts'
import { languageOf } from './languages.ts'
import type { InputFile, TreeFile } from './files.ts'

export const DIAGRAM_MARKER = '<!-- ies:environment-diagram -->'

const isMarkdown = (path: string) => /\.md$/i.test(path)

function providerOf(config: unknown): string {
  const provider = config !== null && typeof config === 'object' ? (config as { provider?: unknown }).provider : undefined
  return typeof provider === 'string' && provider in DEFAULT_PARAMS_FILES ? provider : 'aws'
}

/**
 * The diagram's services by the parameter-values file's bytes: a templates source hands the same
 * buffers to every generation until the tree changes, so the file is read into a catalog once.
 */
const servicesByFile = new WeakMap<Buffer, DiagramService[]>()

/** The Mermaid text of the configuration, from the parameter-values file among `inputs`, or null without it. */
export function treeDiagram(inputs: readonly InputFile[], config: unknown): string | null {
  const paramsFile = DEFAULT_PARAMS_FILES[providerOf(config)]
  const params = inputs.find((f) => f.path === paramsFile)
  const lang = paramsFile ? languageOf(paramsFile) : null
  if (!params || !lang) return null
  let services = servicesByFile.get(params.content)
  if (!services) {
    services = catalogDiagramServices(buildCatalog(paramsFile, params.content.toString('utf8'), lang, ''))
    servicesByFile.set(params.content, services)
  }
  return environmentDiagram(services, config)
}

/** The files with each Markdown marker line replaced by the diagram (files without one are returned as they are). */
export function withEnvironmentDiagram(files: TreeFile[], inputs: readonly InputFile[], config: unknown): TreeFile[] {
  const marked = (f: TreeFile) => isMarkdown(f.path) && f.content.includes(DIAGRAM_MARKER)
  if (!files.some(marked)) return files
  const diagram = treeDiagram(inputs, config)
  if (diagram === null) return files
  const block = ['```mermaid', diagram.trimEnd(), '```'].join('\n')
  return files.map((f) => {
    if (!marked(f)) return f
    const text = f.content.toString('utf8')
    const lines = text.split('\n').map((line) => (line.trim() === DIAGRAM_MARKER ? block : line))
    return { ...f, content: lines.join('\n') }
  })
}
