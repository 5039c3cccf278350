/**
 * A batch as a timeline picture: one lane per pool slot, one bar per dispatched call split into
 * its pipeline stages, exclusive calls drawn as barriers across every lane, and calls that never
 * reached dispatch (bad arguments, unknown tool, denied, cut response) as markers on their own
 * row. Built from the testkit's {@link StageTracer} entries, which carry each stage's time.
 *
 * `layoutBatch` is the pure geometry (tested on its own); `renderTimelineSvg` draws it.
 */
import type { StageEvent } from '@deepseek-ai/dsh-tool-testkit'

/** A call of a batch, as the timeline needs it. */
export interface TimelineCall {
  readonly id: string
  readonly name: string
  /** `ok` or the failure code. */
  readonly outcome: string
  /** Whether the call runs alone (its tool's `isConcurrencySafe(args)` is not exactly `true`). */
  readonly exclusive: boolean
}

/** One batch: its calls in model order and the tracer entries recorded while it ran. */
export interface TimelineBatch {
  readonly title: string
  readonly calls: readonly TimelineCall[]
  readonly events: readonly StageEvent[]
}

/**
 * The stages a bar is split into, each between two traced entries:
 *
 * - `policy` — `tools/pre-execute`, approval and guards (`pre` → `guard`, or → `post` when denied);
 * - `queued` — waiting for a pool slot or a barrier (`guard` → `wrap`);
 * - `dispatch` — `tools/execute` wrappers and the body (`wrap` → `unwrap`): this holds the slot;
 * - `in-order` — done, waiting for earlier calls to complete in model order (`unwrap` → `post`);
 * - `complete` — post-execute, `finalizeContent` and `tools/result` (`post` → `result`).
 */
export type Segment = 'policy' | 'queued' | 'dispatch' | 'in-order' | 'complete'

/** A span of one stage, in ms from the batch's first entry. */
export interface Span {
  readonly segment: Segment
  readonly from: number
  readonly to: number
}

/** A dispatched call: its lane (pool slot, 0-based) and its stage spans. */
export interface Bar {
  readonly call: TimelineCall
  readonly lane: number
  readonly spans: readonly Span[]
}

/** A call that never held a slot, at the time of its result (ms from the batch start). */
export interface Marker {
  readonly call: TimelineCall
  readonly at: number
}

/** The geometry of one batch in ms: what {@link renderTimelineSvg} draws. */
export interface BatchLayout {
  readonly title: string
  /** Duration from the first to the last traced entry, in ms. */
  readonly duration: number
  /** Pool slots used (lanes drawn); at least 1. */
  readonly lanes: number
  readonly bars: readonly Bar[]
  readonly markers: readonly Marker[]
  /** Dispatch spans of exclusive calls: nothing else is dispatched inside them. */
  readonly barriers: readonly { readonly call: TimelineCall; readonly from: number; readonly to: number }[]
}

const SEGMENT_BOUNDS: readonly [Segment, string, readonly string[]][] = [
  ['policy', 'pre', ['guard', 'post']],
  ['queued', 'guard', ['wrap']],
  ['dispatch', 'wrap', ['unwrap']],
  ['in-order', 'unwrap', ['post']],
  ['complete', 'post', ['result']],
]

/**
 * Lays a batch out: dispatched calls take the lowest pool slot free when they entered
 * dispatch (ordered by the tracer's sequence, so ties in time cannot double-book a slot).
 */
export function layoutBatch(batch: TimelineBatch): BatchLayout {
  const t0 = batch.events.reduce((m, e) => Math.min(m, e.at), Infinity)
  const t1 = batch.events.reduce((m, e) => Math.max(m, e.at), -Infinity)
  const first = (id: string, stage: string): StageEvent | undefined => batch.events.find((e) => e.callId === id && e.stage === stage)
  const laneFreeAfter: number[] = [] // per lane: seq of the occupant's `unwrap`
  const bars: Bar[] = []
  const markers: Marker[] = []
  const dispatched = batch.calls
    .map((call) => ({ call, wrap: first(call.id, 'wrap'), unwrap: first(call.id, 'unwrap') }))
    .filter((d): d is { call: TimelineCall; wrap: StageEvent; unwrap: StageEvent } => d.wrap !== undefined && d.unwrap !== undefined)
    .sort((a, b) => a.wrap.seq - b.wrap.seq)
  const laneOf = new Map<string, number>()
  for (const d of dispatched) {
    let lane = laneFreeAfter.findIndex((seq) => seq < d.wrap.seq)
    if (lane === -1) lane = laneFreeAfter.length
    laneFreeAfter[lane] = d.unwrap.seq
    laneOf.set(d.call.id, lane)
  }
  for (const call of batch.calls) {
    const lane = laneOf.get(call.id)
    if (lane === undefined) {
      const last = batch.events.filter((e) => e.callId === call.id).pop()
      if (last !== undefined) markers.push({ call, at: last.at - t0 })
      continue
    }
    const spans: Span[] = []
    for (const [segment, from, tos] of SEGMENT_BOUNDS) {
      const a = first(call.id, from)
      const b = tos.map((t) => first(call.id, t)).find((e) => e !== undefined)
      if (a !== undefined && b !== undefined && b.seq > a.seq) spans.push({ segment, from: a.at - t0, to: b.at - t0 })
    }
    bars.push({ call, lane, spans })
  }
  const barriers = bars
    .filter((b) => b.call.exclusive)
    .flatMap((b) => b.spans.filter((s) => s.segment === 'dispatch').map((s) => ({ call: b.call, from: s.from, to: s.to })))
  return { title: batch.title, duration: Number.isFinite(t1 - t0) ? t1 - t0 : 0, lanes: Math.max(1, laneFreeAfter.length), bars, markers, barriers }
}

const SVG_WIDTH = 960
const LEFT = 110
const RIGHT = 150
const PLOT = SVG_WIDTH - LEFT - RIGHT
const LANE = 30
const COLOURS: Record<Segment, string> = {
  policy: '#8e7cc3',
  queued: '#d9d9d9',
  dispatch: '#6aa84f',
  'in-order': '#f1c232',
  complete: '#3d85c6',
}
const ERROR_COLOUR = '#cc4125'
/** Approximate width of one character of the 11 px monospace font. */
const CHAR = 7

/** `&`, `<`, `>` and `"` escaped for SVG text and attributes. */
function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

const round = (n: number): string => String(Math.round(n * 10) / 10)

/** A tick step of 1, 2 or 5 × 10ⁿ ms giving at most ~8 ticks over `duration`. */
function tickStep(duration: number): number {
  const raw = Math.max(duration, 1) / 8
  const p = 10 ** Math.floor(Math.log10(raw))
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p
}

function legend(y: number): string[] {
  const rows: [string, string][][] = [
    [
      ['policy', COLOURS.policy],
      ['queued (slot or barrier)', COLOURS.queued],
      ['dispatch + body (ok)', COLOURS.dispatch],
      ['dispatch + body (error)', ERROR_COLOUR],
    ],
    [
      ['done, post-execute waits its model-order turn', COLOURS['in-order']],
      ['post-execute → result', COLOURS.complete],
      ['barrier: an exclusive call runs alone', 'url(#barrier)'],
    ],
  ]
  const out: string[] = []
  for (const [r, items] of rows.entries()) {
    let x = LEFT
    const ry = y + r * 16
    for (const [label, fill] of items) {
      out.push(`<rect x="${x}" y="${ry - 9}" width="12" height="10" fill="${fill}" stroke="#999" stroke-width="0.5"/>`, `<text x="${x + 16}" y="${ry}">${esc(label)}</text>`)
      x += 40 + label.length * CHAR
    }
  }
  return out
}

function panel(layout: BatchLayout, top: number): { svg: string[]; height: number } {
  if (layout.bars.length === 0 && layout.markers.length === 0) {
    const note = `${layout.title}: no call went through the pipeline`
    return { svg: [`<g class="batch" data-title="${esc(layout.title)}" data-lanes="0">`, `<text class="title" x="${LEFT}" y="${top + 14}">${esc(note)}</text>`, '</g>'], height: 20 }
  }
  const scale = PLOT / Math.max(layout.duration, 1)
  const x = (ms: number): number => LEFT + ms * scale
  const hasMarkers = layout.markers.length > 0
  const rows = layout.lanes + (hasMarkers ? 1 : 0)
  const plotTop = top + 26
  const plotHeight = rows * LANE
  const out: string[] = [`<g class="batch" data-title="${esc(layout.title)}" data-lanes="${layout.lanes}">`]
  out.push(`<text class="title" x="${LEFT}" y="${top + 14}">${esc(`${layout.title} · ${round(layout.duration)} ms`)}</text>`)
  for (let lane = 0; lane < layout.lanes; lane++) {
    const y = plotTop + lane * LANE
    out.push(`<rect class="lane" data-lane="${lane}" x="${LEFT}" y="${y}" width="${PLOT}" height="${LANE}" fill="${lane % 2 === 0 ? '#f7f7f7' : '#ffffff'}"/>`)
    out.push(`<text x="${LEFT - 8}" y="${y + 19}" text-anchor="end">slot ${lane + 1}</text>`)
  }
  if (hasMarkers) {
    const y = plotTop + layout.lanes * LANE
    out.push(`<text x="${LEFT - 8}" y="${y + 19}" text-anchor="end">not run</text>`)
  }
  const step = tickStep(layout.duration)
  for (let t = 0; t <= layout.duration + 1e-9; t += step) {
    out.push(`<line x1="${round(x(t))}" y1="${plotTop}" x2="${round(x(t))}" y2="${plotTop + plotHeight + 4}" stroke="#ccc"/>`)
    out.push(`<text class="tick" x="${round(x(t))}" y="${plotTop + plotHeight + 16}" text-anchor="middle">${round(t)} ms</text>`)
  }
  for (const b of layout.barriers) {
    out.push(
      `<rect class="barrier" data-call="${esc(b.call.id)}" x="${round(x(b.from))}" y="${plotTop}" width="${round(Math.max(1, (b.to - b.from) * scale))}" height="${plotHeight}" fill="url(#barrier)" stroke="#999"><title>${esc(`${b.call.id} ${b.call.name} runs alone: a barrier`)}</title></rect>`,
    )
  }
  for (const bar of layout.bars) {
    const y = plotTop + bar.lane * LANE
    out.push(`<g class="call" data-call="${esc(bar.call.id)}" data-lane="${bar.lane}" data-outcome="${esc(bar.call.outcome)}">`)
    for (const s of bar.spans) {
      const thick = s.segment === 'dispatch'
      const fill = thick && bar.call.outcome !== 'ok' ? ERROR_COLOUR : COLOURS[s.segment]
      const before = s.segment === 'policy' || s.segment === 'queued'
      const sy = thick ? y + 7 : before ? y + 2 : y + 24
      const title = `${bar.call.id} ${bar.call.name}: ${s.segment} ${round(s.to - s.from)} ms`
      out.push(
        `<rect class="stage ${s.segment}" x="${round(x(s.from))}" y="${sy}" width="${round(Math.max(1, (s.to - s.from) * scale))}" height="${thick ? 16 : 4}" fill="${fill}"><title>${esc(title)}</title></rect>`,
      )
    }
    const d = bar.spans.find((s) => s.segment === 'dispatch')
    if (d !== undefined) {
      const bits = [bar.call.id, bar.call.name, ...(bar.call.outcome === 'ok' ? [] : [bar.call.outcome])]
      const candidates = [bits.join(' '), bar.call.outcome === 'ok' ? bar.call.id : `${bar.call.id} ${bar.call.outcome}`, bar.call.id]
      const fits = (text: string): boolean => (d.to - d.from) * scale > text.length * CHAR + 6
      const inside = candidates.find(fits)
      // Outside the bar only when nothing else is drawn there (the tooltip always names the call).
      const nextStart = Math.min(SVG_WIDTH, ...layout.bars.filter((o) => o.lane === bar.lane && o.call !== bar.call).flatMap((o) => o.spans.filter((s) => s.segment === 'dispatch' && s.from >= d.to).map((s) => x(s.from))))
      const full = candidates[0] as string
      if (inside !== undefined) out.push(`<text class="label" x="${round(x(d.from) + 4)}" y="${y + 19}" fill="#fff">${esc(inside)}</text>`)
      else if (x(d.to) + full.length * CHAR + 6 < nextStart) out.push(`<text class="label" x="${round(x(d.to) + 4)}" y="${y + 19}">${esc(full)}</text>`)
    }
    out.push('</g>')
  }
  if (hasMarkers) {
    const y = plotTop + layout.lanes * LANE
    let lastLabelEnd = -Infinity
    let row = 0
    for (const m of layout.markers) {
      const mx = x(m.at)
      out.push(
        `<path class="marker" data-call="${esc(m.call.id)}" data-outcome="${esc(m.call.outcome)}" d="M${round(mx)} ${y + 9}l5 5l-5 5l-5 -5z" fill="${m.call.outcome === 'ok' ? COLOURS.dispatch : ERROR_COLOUR}"><title>${esc(`${m.call.id} ${m.call.name} ${m.call.outcome}`)}</title></path>`,
      )
      const label = `${m.call.id} ${m.call.outcome}`
      const width = label.length * CHAR
      // Right of the marker, or left of it when it would leave the picture.
      const lx = mx + 8 + width > SVG_WIDTH ? mx - 8 - width : mx + 8
      row = lx < lastLabelEnd ? row + 1 : 0
      lastLabelEnd = lx + width
      out.push(`<text class="label" x="${round(lx)}" y="${y + 18 + row * 11}">${esc(label)}</text>`)
    }
  }
  out.push('</g>')
  return { svg: out, height: 26 + plotHeight + 24 + (hasMarkers ? 12 : 0) }
}

/**
 * An SVG (one panel per batch, a shared legend) of the given batches. Times are real and so
 * change from run to run; the structure does not: `g.batch[data-lanes]`, `g.call[data-call]
 * [data-lane]`, `rect.barrier[data-call]` and `path.marker[data-call]` name what is drawn.
 */
export function renderTimelineSvg(batches: readonly TimelineBatch[], heading = 'dsh-tools demo: each batch as a timeline'): string {
  const body: string[] = []
  let y = 66
  for (const batch of batches) {
    const { svg, height } = panel(layoutBatch(batch), y)
    body.push(...svg)
    y += height + 16
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SVG_WIDTH}" height="${y}" viewBox="0 0 ${SVG_WIDTH} ${y}" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="11">`,
    '<defs><pattern id="barrier" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#eeeeee"/><line x1="0" y1="0" x2="0" y2="6" stroke="#b0b0b0" stroke-width="2"/></pattern></defs>',
    `<rect width="${SVG_WIDTH}" height="${y}" fill="#fff"/>`,
    `<text x="${LEFT}" y="18" font-size="13" font-weight="bold">${esc(heading)}</text>`,
    ...legend(38),
    ...body,
    '</svg>',
    '',
  ].join('\n')
}
