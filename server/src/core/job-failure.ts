// An error whose code and message are meant for the user, reported by a job as it is: thrown by
// the job engine and by what it calls (the templates source, push).

/** A failure the job reports as it is (its code and message are meant for the user); `cause` is for the log. */
export class JobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}
