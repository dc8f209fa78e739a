/** The files a processing reads (a templates tree's) and writes (the generated tree's). */

export interface TreeFile {
  /** Relative path with `/` separators. */
  path: string
  /** Processed text for decorated languages, the original bytes for files copied verbatim. */
  content: string | Buffer
  /** Unix permission bits (0o644 / 0o755). */
  mode: number
}

export interface InputFile {
  path: string
  content: Buffer
  mode: number
}
