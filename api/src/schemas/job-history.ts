// GET /api/environments/:id/jobs: an environment's jobs, newest first, a page at a time. Unlike the
// numbered lists, the page is a cursor (`pagination.nextCursor`, null on the last page).
import { Type } from '@sinclair/typebox'
import { Meta, PageQuery } from '../envelope.ts'
import { Job } from './jobs.ts'

export const JobHistoryQuery = Type.Object({
  limit: { ...PageQuery.limit, description: 'Jobs per page.' },
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The `nextCursor` of the previous page.' })),
})

export const JobHistoryPage = Type.Object({
  data: Type.Array(Job),
  pagination: Type.Object({
    limit: Type.Integer(),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Where the next page starts; null on the last page.' }),
  }),
  meta: Meta,
})
