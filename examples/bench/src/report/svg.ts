/**
 * Hand-written SVG bar charts (pure): horizontal grouped bars on a log₁₀ axis, every number
 * drawn from the data given.
 */

/** One bar. */
export interface Bar {
  readonly label: string
  readonly value: number
  readonly color: string
}

/** A group of bars under one heading (e.g. a batch size). */
export interface BarGroup {
  readonly label: string
  readonly bars: readonly Bar[]
}

/** A chart panel. */
export interface BarPanel {
  readonly title: string
  readonly groups: readonly BarGroup[]
}

/** Chart options. */
export interface BarChartOptions {
  readonly title: string
  readonly subtitle?: string
  /** Unit appended to value labels and the axis, e.g. `µs`. */
  readonly unit: string
  readonly panels: readonly BarPanel[]
  readonly width?: number
}

/** Escapes text for SVG. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** A compact number: 3 significant digits, thousands separated. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value)
  const abs = Math.abs(value)
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US')
  if (abs >= 100) return value.toFixed(0)
  if (abs >= 10) return value.toFixed(1)
  if (abs >= 1) return value.toFixed(2)
  return value.toPrecision(2)
}

function decadeLabel(exp: number, unit: string): string {
  const v = 10 ** exp
  return `${v >= 1 ? v.toLocaleString('en-US') : v.toPrecision(1)} ${unit}`
}

/**
 * Renders panels stacked vertically, each a set of groups of horizontal bars on a shared log
 * axis (decades from the smallest to the largest value).
 *
 * @throws RangeError when a value is not a positive finite number.
 */
export function renderBarChart(options: BarChartOptions): string {
  const width = options.width ?? 820
  const all = options.panels.flatMap((p) => p.groups.flatMap((g) => g.bars.map((b) => b.value)))
  for (const v of all) if (!(Number.isFinite(v) && v > 0)) throw new RangeError(`bar values must be positive finite numbers, got ${v}`)
  const lo = Math.floor(Math.log10(Math.min(...all)))
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...all))))
  const longest = Math.max(...options.panels.flatMap((p) => p.groups.flatMap((g) => g.bars.map((b) => b.label.length))))
  const left = Math.max(120, Math.ceil(24 + longest * 6.4))
  const right = 90
  const plotW = width - left - right
  const x = (v: number) => left + ((Math.log10(v) - lo) / (hi - lo)) * plotW
  const barH = 14
  const barGap = 3
  const groupGap = 12
  const parts: string[] = []
  let y = options.subtitle === undefined ? 40 : 58
  parts.push(`<text x="${width / 2}" y="24" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(options.title)}</text>`)
  if (options.subtitle !== undefined) parts.push(`<text x="${width / 2}" y="44" text-anchor="middle" font-size="12" fill="#555">${escapeXml(options.subtitle)}</text>`)
  const legend = new Map<string, string>()
  for (const panel of options.panels) {
    parts.push(`<text x="12" y="${y + 14}" font-size="13" font-weight="bold">${escapeXml(panel.title)}</text>`)
    y += 24
    const top = y
    for (const group of panel.groups) {
      parts.push(`<text x="12" y="${y + 12}" font-size="12" font-weight="bold" fill="#333">${escapeXml(group.label)}</text>`)
      y += 18
      for (const bar of group.bars) {
        legend.set(bar.label, bar.color)
        const w = Math.max(1, x(bar.value) - left)
        parts.push(`<text x="${left - 6}" y="${y + barH - 3}" text-anchor="end" font-size="11" fill="#555">${escapeXml(bar.label)}</text>`)
        parts.push(`<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${bar.color}"><title>${escapeXml(`${group.label} ${bar.label}: ${formatNumber(bar.value)} ${options.unit}`)}</title></rect>`)
        parts.push(`<text x="${(left + w + 4).toFixed(1)}" y="${y + barH - 3}" font-size="11">${escapeXml(`${formatNumber(bar.value)} ${options.unit}`)}</text>`)
        y += barH + barGap
      }
      y += groupGap
    }
    for (let e = lo; e <= hi; e++) {
      const gx = x(10 ** e).toFixed(1)
      parts.push(`<line x1="${gx}" y1="${top - 4}" x2="${gx}" y2="${y - groupGap + 2}" stroke="#ccc" stroke-dasharray="3,3"/>`)
      parts.push(`<text x="${gx}" y="${y + 2}" text-anchor="middle" font-size="10" fill="#777">${escapeXml(decadeLabel(e, options.unit))}</text>`)
    }
    y += 22
  }
  let lx = 12
  for (const [label, color] of legend) {
    const itemWidth = 28 + label.length * 6.4
    if (lx + itemWidth > width - 12 && lx > 12) {
      lx = 12
      y += 18
    }
    parts.push(`<rect x="${lx}" y="${y}" width="12" height="12" fill="${color}"/>`)
    parts.push(`<text x="${lx + 16}" y="${y + 10}" font-size="11">${escapeXml(label)}</text>`)
    lx += itemWidth
  }
  y += 24
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif">`,
    `<rect width="${width}" height="${y}" fill="#fff"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n')
}
