import { esc } from "./html.ts";

// Plots as inline SVG, written here rather than with a chart library: three shapes (stacked bars
// per week, horizontal bars, a line) over at most a year of weeks need ~150 lines, render with no
// script (a library draws in the browser, or brings a DOM to the build), keep every page within
// its weight, and take their colours from the stylesheet's classes, so both themes hold. Every
// mark carries its count (`data-count`) and a <title> a screen reader and a hover show.

const W = 640;
const H = 220;
const PAD = { left: 36, right: 8, top: 10, bottom: 34 };

export interface Series {
  name: string;
  /** The stylesheet class of its colour (`s-worked`). */
  cls: string;
  values: number[];
}

/** A top for the axis at or above n whose half is a whole number too (the axis marks 0, half and top). */
function niceMax(n: number): number {
  if (n <= 10) return Math.max(2, n + (n % 2));
  const step = 10 ** Math.floor(Math.log10(n));
  return Math.ceil(n / step) * step;
}

function figure(label: string, caption: string, svg: string, legend: Series[] = []): string {
  const keys = legend.length
    ? `<ul class="legend">${legend.map((s) => `<li><svg viewBox="0 0 10 10" aria-hidden="true"><rect class="${s.cls}" width="10" height="10"/></svg> ${esc(s.name)}</li>`).join("")}</ul>`
    : "";
  return `<figure class="plot" aria-label="${esc(label)}">${keys}${svg}<figcaption class="caption">${esc(caption)}</figcaption></figure>`;
}

function yAxis(max: number): string {
  const lines: string[] = [];
  for (const v of [0, max / 2, max]) {
    const y = PAD.top + (H - PAD.top - PAD.bottom) * (1 - v / max);
    lines.push(`<line class="axis" x1="${PAD.left}" x2="${W - PAD.right}" y1="${y}" y2="${y}"/>`);
    lines.push(`<text x="${PAD.left - 4}" y="${y + 4}" text-anchor="end">${Math.round(v)}</text>`);
  }
  return lines.join("");
}

/** Labels under the bars, thinned to about eight so they never overlap. */
function xLabels(labels: string[], x: (i: number) => number): string {
  const every = Math.max(1, Math.ceil(labels.length / 8));
  return labels.map((l, i) => (i % every ? "" : `<text x="${x(i)}" y="${H - PAD.bottom + 14}" text-anchor="middle">${esc(l.slice(5))}</text>`)).join("");
}

/** Bars per week, the series stacked (or side by side with `grouped`). */
export function weekBars(opts: { label: string; caption: string; weeks: string[]; series: Series[]; grouped?: boolean; empty: string }): string {
  const { weeks, series } = opts;
  if (!weeks.length) return `<p class="muted">${esc(opts.empty)}</p>`;
  const totals = weeks.map((_, i) => (opts.grouped ? Math.max(...series.map((s) => s.values[i]!)) : series.reduce((a, s) => a + s.values[i]!, 0)));
  const max = niceMax(Math.max(...totals));
  const slot = (W - PAD.left - PAD.right) / weeks.length;
  const plotH = H - PAD.top - PAD.bottom;
  const marks: string[] = [];
  weeks.forEach((week, i) => {
    let base = H - PAD.bottom;
    series.forEach((s, k) => {
      const v = s.values[i]!;
      if (!v) return;
      const h = (v / max) * plotH;
      const width = opts.grouped ? (slot * 0.8) / series.length : slot * 0.8;
      const x = PAD.left + i * slot + slot * 0.1 + (opts.grouped ? k * width : 0);
      const y = opts.grouped ? H - PAD.bottom - h : base - h;
      if (!opts.grouped) base -= h;
      marks.push(
        `<rect class="${s.cls}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${width.toFixed(1)}" height="${h.toFixed(1)}" data-week="${week}" data-series="${esc(s.name)}" data-count="${v}"><title>week of ${week}: ${v} ${esc(s.name)}</title></rect>`,
      );
    });
  });
  const svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(opts.label)}">${yAxis(max)}${marks.join("")}${xLabels(weeks, (i) => PAD.left + (i + 0.5) * slot)}</svg>`;
  return figure(opts.label, opts.caption, svg, series);
}

/** One horizontal bar per item, its label a link when it has one. */
export function rankBars(opts: {
  label: string;
  caption: string;
  cls: string;
  items: { label: string; href?: string; count: number }[];
  empty: string;
}): string {
  if (!opts.items.length) return `<p class="muted">${esc(opts.empty)}</p>`;
  const row = 24;
  const height = opts.items.length * row + 8;
  const labelW = 300;
  const max = Math.max(...opts.items.map((i) => i.count));
  const marks = opts.items.map((item, i) => {
    const y = 4 + i * row;
    const w = Math.max(2, ((W - labelW - 50) * item.count) / max);
    const text = esc(item.label.length > 48 ? `${item.label.slice(0, 47)}…` : item.label);
    const label = `<text x="${labelW - 6}" y="${y + 15}" text-anchor="end">${text}</text>`;
    return `${item.href ? `<a href="${esc(item.href)}">${label}</a>` : label}<rect class="${opts.cls}" x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${row - 8}" data-count="${item.count}"><title>${esc(item.label)}: ${item.count}</title></rect><text x="${(labelW + w + 4).toFixed(1)}" y="${y + 15}">${item.count}</text>`;
  });
  return figure(opts.label, opts.caption, `<svg viewBox="0 0 ${W} ${height}" role="img" aria-label="${esc(opts.label)}">${marks.join("")}</svg>`);
}

/** A line of percentages (0–100) over dated points. */
export function percentLine(opts: { label: string; caption: string; points: { time: string; percent: number; title: string }[]; empty: string }): string {
  const { points } = opts;
  if (!points.length) return `<p class="muted">${esc(opts.empty)}</p>`;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = (W - PAD.left - PAD.right) / points.length;
  const x = (i: number) => PAD.left + (i + 0.5) * slot;
  const y = (p: number) => PAD.top + plotH * (1 - p / 100);
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.percent).toFixed(1)}`).join("");
  const dots = points.map(
    (p, i) =>
      `<circle class="s-dot" cx="${x(i).toFixed(1)}" cy="${y(p.percent).toFixed(1)}" r="4" data-count="${p.percent}"><title>${esc(p.title)}</title></circle>`,
  );
  const svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(opts.label)}">${yAxis(100)}<path class="s-line" d="${path}"/>${dots.join("")}${xLabels(
    points.map((p) => p.time.slice(0, 10)),
    x,
  )}</svg>`;
  return figure(opts.label, opts.caption, svg);
}
