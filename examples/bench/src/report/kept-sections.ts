/**
 * Sections of `docs/benchmarks.md` that runs other than `pnpm bench` write (the MCP bridge's
 * `bench:mcp`, eager start's `bench:stream`, hand-measured ones), each between
 * `<!-- <id>:start -->` and `<!-- <id>:end -->`. Rewriting the report keeps every such section
 * of the existing file: one the new report also has is replaced by the newer text only when the
 * caller passes it; the others are inserted before `## Optimisations`, in their order.
 */

/** A marked section: its id and its text, markers included. */
export interface MarkedSection {
  readonly id: string
  readonly text: string
}

const START = /<!-- ([a-z0-9-]+):start -->/g

/** Every marked section of `doc`, in order (a start marker without its end marker is ignored). */
export function markedSections(doc: string): MarkedSection[] {
  const out: MarkedSection[] = []
  for (const match of doc.matchAll(START)) {
    const id = match[1] as string
    const end = `<!-- ${id}:end -->`
    const at = doc.indexOf(end, match.index)
    if (at !== -1) out.push({ id, text: doc.slice(match.index, at + end.length) })
  }
  return out
}

/** `doc` with `section` in place of its section of the same id, or inserted before `## Optimisations` (else appended). */
export function spliceSection(doc: string, section: MarkedSection): string {
  const current = markedSections(doc).find((s) => s.id === section.id)
  if (current !== undefined) return doc.replace(current.text, () => section.text)
  const at = doc.indexOf('\n## Optimisations')
  return at === -1 ? `${doc.trimEnd()}\n\n${section.text}\n` : `${doc.slice(0, at + 1)}${section.text}\n\n${doc.slice(at + 1)}`
}

/**
 * The new `report` with every marked section of the `previous` file it lacks (in their order),
 * then each of `fresh` (sections this run measured) in place of the kept text.
 */
export function keepSections(report: string, previous: string | undefined, fresh: readonly MarkedSection[] = []): string {
  let doc = report
  const have = new Set(markedSections(report).map((s) => s.id))
  for (const section of previous === undefined ? [] : markedSections(previous)) if (!have.has(section.id)) doc = spliceSection(doc, section)
  for (const section of fresh) doc = spliceSection(doc, section)
  return doc
}
