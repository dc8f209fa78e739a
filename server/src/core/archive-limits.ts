// Sizes of generated and templates archives kept in the database.

/** What an archive may hold when it is unpacked (the processor service's answer, a stored archive read back). */
export const UNZIP_LIMITS = { maxFiles: 5000, maxBytes: 200 * 1024 * 1024 }

/** The largest archive stored as one document: well below MongoDB's 16 MiB document limit. */
export const INLINE_LIMIT_BYTES = 8 * 1024 * 1024
