/**
 * Sections of `docs/benchmarks.md` that the main run (`pnpm bench`, `bench:render`) does not
 * measure: each is written by its own run or by hand (the MCP bridge's `bench:mcp`, the MCP
 * server's, the durable engines', the PTC replay figures) between two markers,
 * `<!-- NAME:start -->` and `<!-- NAME:end -->`, each on a line of its own. When the main report is rendered again, every
 * such block of the old file is carried over unchanged, in its place: before the first heading
 * (`## ` or `### `) that followed it in the old file and is not itself inside a kept block, or
 * before `## Optimisations` when that heading is gone from the new report (else at the end).
 * Blocks that stood next to each other (only blank lines between them) stay together.
 */

/** One kept block: its marker name and its text, markers included. */
export interface KeptBlock {
  /** The marker's name (`mcp-bridge` for `<!-- mcp-bridge:start -->`). */
  readonly name: string
  /** The block's text from its start marker through its end marker. */
  readonly text: string
}

/** A run of adjacent kept blocks and the heading line that followed it in the old file. */
interface KeptRun {
  readonly blocks: readonly KeptBlock[]
  /** The first heading line after the run, outside any kept block; `undefined` at the end of the file. */
  readonly before: string | undefined
}

const MARKER = /^<!-- ([a-z0-9-]+):start -->$/gm

/** Every well-formed kept block of `doc`, in file order, with its offsets. */
function findBlocks(doc: string): Array<KeptBlock & { readonly from: number; readonly to: number }> {
  const blocks: Array<KeptBlock & { from: number; to: number }> = []
  for (const m of doc.matchAll(MARKER)) {
    const name = m[1] as string
    const from = m.index
    if (blocks.length > 0 && from < (blocks[blocks.length - 1] as { to: number }).to) continue
    const endMarker = `<!-- ${name}:end -->`
    const found = new RegExp(`^${endMarker}$`, 'm').exec(doc.slice(from))
    if (found === null) continue
    const to = from + found.index + endMarker.length
    blocks.push({ name, text: doc.slice(from, to), from, to })
  }
  return blocks
}

/** The first heading line at or after `from` in `doc`, or `undefined`. */
function nextHeading(doc: string, from: number): string | undefined {
  const m = /^#{2,3} .*$/m.exec(doc.slice(from))
  return m === null ? undefined : m[0]
}

/** The kept blocks of `doc`, grouped into runs of adjacent blocks with the heading that followed each run. */
export function keptRuns(doc: string): readonly KeptRun[] {
  const blocks = findBlocks(doc)
  const runs: KeptRun[] = []
  let i = 0
  while (i < blocks.length) {
    const run = [blocks[i] as (typeof blocks)[number]]
    while (i + run.length < blocks.length && doc.slice((run[run.length - 1] as { to: number }).to, (blocks[i + run.length] as { from: number }).from).trim() === '') {
      run.push(blocks[i + run.length] as (typeof blocks)[number])
    }
    i += run.length
    runs.push({ blocks: run.map(({ name, text }) => ({ name, text })), before: nextHeading(doc, (run[run.length - 1] as { to: number }).to) })
  }
  return runs
}

/** Inserts `text` before the line `heading` of `doc` (its first occurrence), before `## Optimisations` when `heading` is absent, else at the end. */
function insertBefore(doc: string, heading: string | undefined, text: string): string {
  const at = (line: string): number => {
    const m = new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm').exec(doc)
    return m === null ? -1 : m.index
  }
  const where = heading === undefined ? -1 : at(heading)
  const fallback = where === -1 ? at('## Optimisations') : where
  return fallback === -1 ? `${doc.trimEnd()}\n\n${text}\n` : `${doc.slice(0, fallback)}${text}\n\n${doc.slice(fallback)}`
}

/**
 * `report` (a freshly rendered main report) with every kept block of `old` carried over, as
 * described in this module's comment; a block whose markers `report` already has is the report's
 * own (rendered now) and is not carried. Pure: the same inputs give the same text.
 */
export function carryKeptSections(report: string, old: string): string {
  let doc = report
  for (const run of keptRuns(old)) {
    const names = new Set(findBlocks(doc).map((b) => b.name))
    const carried = run.blocks.filter((b) => !names.has(b.name))
    if (carried.length > 0) doc = insertBefore(doc, run.before, carried.map((b) => b.text).join('\n\n'))
  }
  return doc
}

/**
 * `doc` with `block` (a section a run measured now) in place of its block of the same name, or
 * inserted before `## Optimisations` (else appended) when `doc` has none. Pure.
 */
export function spliceSection(doc: string, block: KeptBlock): string {
  const current = findBlocks(doc).find((b) => b.name === block.name)
  if (current !== undefined) return doc.slice(0, current.from) + block.text + doc.slice(current.to)
  return insertBefore(doc, undefined, block.text)
}
