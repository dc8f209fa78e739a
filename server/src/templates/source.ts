// What a templates source offers (templates.ts makes one from TEMPLATES_DIR or TEMPLATES_REPO):
// the newest templates, a pinned version, how far a version is behind. Generations, pushes, the
// catalog and the upgrade status read the templates through it (`app.templates`).
import type { InputFile } from '@ies/processor-lib'

export interface Templates {
  commit: string
  inputs: InputFile[]
}

export interface TemplatesSource {
  /** Where the templates come from, for logs and the job result (a path or a URL without credentials). */
  readonly origin: string
  load(): Promise<Templates>
  /**
   * The templates of a given version: a templates commit (either source: a directory's only when
   * IES has generated from it, templates-versions.ts) or a tag of a templates repository; null
   * when there is no such version.
   */
  version(ref: string): Promise<Templates | null>
  /** How many commits `from` is behind `to` (a templates repository); null when unknown. */
  distance(from: string, to: string): Promise<number | null>
  /** Ends what the source keeps running (a directory source's watchers); the server calls it when it closes. */
  close?(): void
}
