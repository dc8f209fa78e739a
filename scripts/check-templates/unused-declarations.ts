// The fix line of tflint's `terraform_unused_declarations` for a root variable that one service
// reads: the project's rule (docs/template-authors.md, "tflint and disabled services") instead of
// tflint's own sentence. A service's root variables sit inside its `services.<key>.enabled` section
// of `variables.tf`, so a configuration without the service comments them out with the module block
// that reads them; declared outside it, every configuration without the service leaves them unused.
// The service is the one whose section holds the `var.<name>` reads in the root module's files; the
// fix names that section's lines in the variable's file, or the lines of the section that reads it
// when the file has none yet. A variable read by several services, or by none, keeps tflint's fix.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { scanDecorators } from '@ies/processor-lib/decorators'
import { languageOf } from '@ies/processor-lib'
import { matchSections } from '@ies/processor-lib/sections'

const RULE = 'terraform_unused_declarations'
const UNUSED_VARIABLE = /^variable "([\w-]+)" is declared but not used/
const SERVICE_SECTION = /^services\.([\w-]+)\.enabled$/
const DOC = 'docs/template-authors.md, "tflint and disabled services"'

/** A service's section in one file: its key and its begin and end lines (1-based). */
interface Section {
  key: string
  file: string
  begin: number
  end: number
}

/** The `services.<key>.enabled` sections of a root module file, outermost first. */
function serviceSections(file: string, text: string): Section[] {
  const lang = languageOf(file)
  if (!lang) return []
  const { pairs } = matchSections(scanDecorators(text.split('\n'), lang), file)
  return pairs.flatMap(({ begin, end }) => {
    const key = SERVICE_SECTION.exec(begin.path)?.[1]
    return key ? [{ key, file, begin: begin.index + 1, end: end.index + 1 }] : []
  })
}

/**
 * The project's fix for a tflint finding, given the templates tree the findings' files are in; null
 * when tflint's own fix stands (another rule, a module's variable, one read by several services or none).
 */
export function unusedDeclarationFix(
  templatesDir: string,
): (finding: { file: string; line: number; rule?: string; message: string }) => string | null {
  const root = path.join(templatesDir, 'terraform')
  let files: { file: string; lines: string[]; sections: Section[] }[] | undefined
  const rootFiles = () =>
    (files ??= readdirSync(root)
      .filter((name) => name.endsWith('.tf'))
      .sort()
      .map((name) => {
        const file = `terraform/${name}`
        const text = readFileSync(path.join(root, name), 'utf8')
        return { file, lines: text.split('\n'), sections: serviceSections(file, text) }
      }))
  return (finding) => {
    if (finding.rule !== RULE || !/^terraform\/[^/]+\.tf$/.test(finding.file)) return null
    const name = UNUSED_VARIABLE.exec(finding.message.replace(`${RULE}: `, ''))?.[1]
    if (!name) return null
    const read = new RegExp(`\\bvar\\.${name}\\b`)
    // The innermost service section around each line that reads it; null: a line outside every one.
    const readers = new Map<string | null, Section | null>()
    for (const { lines, sections } of rootFiles()) {
      lines.forEach((line, i) => {
        if (!read.test(line)) return
        const around = sections.filter((s) => s.begin <= i + 1 && i + 1 <= s.end).at(-1) ?? null
        if (!readers.has(around?.key ?? null)) readers.set(around?.key ?? null, around)
      })
    }
    const [key] = readers.keys()
    if (readers.size !== 1 || !key) return null
    const own = rootFiles()
      .find((f) => f.file === finding.file)
      ?.sections.find((s) => s.key === key)
    const section = `services.${key}.enabled`
    if (own) {
      return `move variable "${name}" inside the ${section} section of ${finding.file} (lines ${own.begin}-${own.end}), so a configuration without ${key} comments it out with the module that reads it (${DOC})`
    }
    const reader = readers.get(key)!
    return `declare variable "${name}" inside a "# @section ${section} begin" ... "end" pair in ${finding.file}, as the block that reads it is in ${reader.file} (lines ${reader.begin}-${reader.end}), so a configuration without ${key} comments it out too (${DOC})`
  }
}
