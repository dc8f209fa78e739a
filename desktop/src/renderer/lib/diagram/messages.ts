// The messages between the EnvironmentDiagram component and its renderer frame (diagram-frame.ts).
export const DIAGRAM_MESSAGE = 'ies-diagram'

/** To the frame: draw this Mermaid text. */
export interface DiagramRequest {
  type: typeof DIAGRAM_MESSAGE
  id: number
  text: string
}

/** From the frame: ready (once), or the SVG of a request, or why it could not be drawn. */
export interface DiagramReply {
  type: typeof DIAGRAM_MESSAGE
  id: number
  ready?: true
  svg?: string
  error?: string
}
