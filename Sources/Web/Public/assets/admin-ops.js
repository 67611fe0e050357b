// The console's Instances, Charts and Audit pages. The charts are SVG drawn here (no chart
// library): per queue, jobs completed, failed and enqueued per step, and the median and p95 run
// time, each with a table of the same numbers.
import { h, append, replace, field, errorSlot, button, when, ago, showError } from './dom.js';
import * as api from './api.js';
import { count, plural, refill, table, panelHeading, ms, rfc3339 } from './admin-common.js';

const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes. */
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined && v !== false) el.setAttribute(k, String(v));
  append(el, children);
  return el;
}

// Instances --------------------------------------------------------------------------------------
export const instancesPanel = {
  id: 'instances',
  title: 'Instances',
  mount(el, ctx) {
    el.region = h('div', { class: 'region' });
    append(el, [panelHeading(this.id, this.title, ctx),
      h('p', { class: 'lead', text: 'Every gateway instance that runs job workers, by its last heartbeat (every 5 s; gone after 30 s without one).' }),
      el.region]);
  },
  async refresh(el) {
    const items = (await api.get('/v1/admin/instances')).items ?? [];
    refill(el.region, items.length
      ? table('Instances', ['Host', 'PID', 'Version', 'Started', 'Last heartbeat', 'State', 'Jobs running', 'Queues'], items.map((i) =>
        h('tr', { dataset: { instanceId: i.id, state: i.state } },
          h('th', { scope: 'row' }, h('span', { class: 'break', text: i.host }), h('small', { class: 'muted block break', text: i.id })),
          h('td', { class: 'pid', text: String(i.pid) }),
          h('td', { text: i.version }),
          h('td', { text: when(i.startedAt) }),
          h('td', { class: 'heartbeat' }, ago(i.lastHeartbeatAt), h('small', { class: 'muted block', text: when(i.lastHeartbeatAt) })),
          h('td', {}, h('span', { class: `badge ${i.state === 'alive' ? 'badge-ok' : 'badge-bad'}`, text: i.state })),
          h('td', { class: 'running', text: String(i.running) }),
          h('td', {}, h('ul', { class: 'plain-list compact' }, Object.entries(i.queues ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([name, q]) =>
            h('li', { text: `${name}: ${q.running} running of ${q.concurrency}` })))))), { id: 'instances-table' })
      : h('p', { class: 'muted', id: 'instances-none', text: 'No instance runs workers (each one started with --no-workers, or none has written its heartbeat yet).' }));
  },
};

// Charts -----------------------------------------------------------------------------------------
const WINDOWS = [
  { value: '1h', step: '1m', label: 'Last hour', per: 'minute' },
  { value: '6h', step: '5m', label: 'Last 6 hours', per: '5 minutes' },
  { value: '24h', step: '15m', label: 'Last 24 hours', per: '15 minutes' },
  { value: '7d', step: '2h', label: 'Last 7 days', per: '2 hours' },
];

const SERIES = [
  { key: 'completed', label: 'Completed', cls: 'series-completed', value: (b) => b.completed },
  { key: 'failed', label: 'Failed', cls: 'series-failed', value: (b) => (b.retryable ?? 0) + (b.discarded ?? 0) },
  { key: 'enqueued', label: 'Enqueued', cls: 'series-enqueued', value: (b) => b.enqueued },
];
const TIMES = [
  { key: 'median', label: 'Median run time', cls: 'series-median', value: (b) => b.runMsMedian },
  { key: 'p95', label: 'p95 run time', cls: 'series-p95', value: (b) => b.runMsP95 },
];

const W = 640;
const PAD = { left: 52, right: 12, top: 10, bottom: 22 };

function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

function timeLabel(at, stepSeconds) {
  const d = new Date(at);
  return stepSeconds >= 3600 ? d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
    : d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** One plot: lines of `series` over the buckets, y from 0 to a round maximum, at (0, top). */
function plot(buckets, series, { top, height, format, stepSeconds, title, floor = 2 }) {
  const n = buckets.length;
  const innerW = W - PAD.left - PAD.right;
  const x = (i) => PAD.left + (n <= 1 ? innerW / 2 : (i * innerW) / (n - 1));
  const values = series.flatMap((se) => buckets.map((b) => se.value(b)).filter((v) => v !== null && v !== undefined));
  // At least `floor`, so that the middle gridline is a round number too.
  const max = niceMax(Math.max(floor, ...values));
  const y = (v) => top + height - (v / max) * height;
  const g = s('g', { class: 'plot' });
  g.append(s('text', { x: PAD.left, y: top - 2, class: 'plot-title' }, title));
  for (const frac of [0, 0.5, 1]) {
    const v = max * frac;
    g.append(s('line', { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: 'grid' }));
    g.append(s('text', { x: PAD.left - 6, y: y(v) + 4, class: 'axis', 'text-anchor': 'end' }, format(v)));
  }
  if (n) {
    g.append(s('text', { x: PAD.left, y: top + height + 16, class: 'axis' }, timeLabel(buckets[0].at, stepSeconds)));
    if (n > 2) g.append(s('text', { x: x(Math.floor((n - 1) / 2)), y: top + height + 16, class: 'axis', 'text-anchor': 'middle' }, timeLabel(buckets[Math.floor((n - 1) / 2)].at, stepSeconds)));
    g.append(s('text', { x: W - PAD.right, y: top + height + 16, class: 'axis', 'text-anchor': 'end' }, timeLabel(buckets[n - 1].at, stepSeconds)));
  }
  for (const se of series) {
    // A gap where there is no value (no run time in a step with nothing run).
    let d = '';
    let pen = false;
    buckets.forEach((b, i) => {
      const v = se.value(b);
      if (v === null || v === undefined) { pen = false; return; }
      d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    if (d) g.append(s('path', { d, class: `line ${se.cls}`, dataset: null }));
    // Points, so that a single step shows too.
    buckets.forEach((b, i) => {
      const v = se.value(b);
      if (v !== null && v !== undefined && v > 0) g.append(s('circle', { cx: x(i), cy: y(v), r: n > 100 ? 1.5 : 2.5, class: `dot ${se.cls}` }));
    });
  }
  return g;
}

function chartSvg(queue, stats, win) {
  const buckets = queue.buckets ?? [];
  const t = queue.total ?? {};
  const failed = (t.retryable ?? 0) + (t.discarded ?? 0);
  const titleId = `chart-${queue.queue}-title`;
  const descId = `chart-${queue.queue}-desc`;
  const svg = s('svg', { viewBox: `0 0 ${W} 300`, class: 'chart', role: 'img', 'aria-labelledby': `${titleId} ${descId}`, dataset: null },
    s('title', { id: titleId }, `Queue ${queue.queue}, ${win.label.toLowerCase()}, per ${win.per}`),
    s('desc', { id: descId }, `${count(t.completed)} completed, ${count(failed)} failed, ${count(t.enqueued)} enqueued; median run time ${ms(t.runMsMedian)}, p95 ${ms(t.runMsP95)}. The table below has every step.`));
  svg.append(plot(buckets, SERIES, { top: 22, height: 130, format: (v) => count(Math.round(v)), stepSeconds: stats.stepSeconds, title: `Jobs per ${win.per}` }));
  svg.append(plot(buckets, TIMES, { top: 200, height: 70, format: (v) => (v === 0 ? '0' : ms(v)), stepSeconds: stats.stepSeconds, title: 'Run time', floor: 10 }));
  svg.dataset.queue = queue.queue;
  return svg;
}

function legend() {
  return h('ul', { class: 'legend', 'aria-hidden': 'true' }, [...SERIES, ...TIMES].map((se) =>
    h('li', {}, h('span', { class: `swatch ${se.cls}` }), se.label)));
}

function numbersTable(queue, stats, win) {
  const rows = (queue.buckets ?? []).map((b) => h('tr', {},
    h('th', { scope: 'row', text: timeLabel(b.at, stats.stepSeconds) }),
    h('td', { text: count(b.completed) }),
    h('td', { text: count(b.retryable) }),
    h('td', { text: count(b.discarded) }),
    h('td', { text: count(b.cancelled) }),
    h('td', { text: count(b.enqueued) }),
    h('td', { text: ms(b.runMsMedian) }),
    h('td', { text: ms(b.runMsP95) })));
  const t = queue.total ?? {};
  rows.push(h('tr', { class: 'total' }, h('th', { scope: 'row', text: 'Whole window' }),
    [t.completed, t.retryable, t.discarded, t.cancelled, t.enqueued].map((v) => h('td', { text: count(v) })),
    h('td', { text: ms(t.runMsMedian) }), h('td', { text: ms(t.runMsP95) })));
  return table(`Queue ${queue.queue}: jobs per ${win.per}, ${win.label.toLowerCase()}`,
    ['Step starting', 'Completed', 'Failed, to retry', 'Failed, discarded', 'Cancelled', 'Enqueued', 'Median run time', 'p95 run time'],
    rows, { class: 'data numbers', dataset: null }, { visibleCaption: true });
}

export const chartsPanel = {
  id: 'charts',
  title: 'Charts',
  window: '1h',
  open: new Set(),
  mount(el, ctx) {
    const select = h('select', { id: 'chart-window', name: 'window' }, WINDOWS.map((w) => h('option', { value: w.value, selected: w.value === this.window }, w.label)));
    select.addEventListener('change', () => { this.window = select.value; this.refresh(el, ctx).catch((e) => showError(el.errors, e)); });
    el.errors = errorSlot();
    el.region = h('div', { class: 'region charts', id: 'charts-region' });
    append(el, [panelHeading(this.id, this.title, ctx, h('span', { class: 'field inline' }, h('label', { for: 'chart-window', text: 'Window' }), select)),
      h('p', { class: 'lead', text: 'Per queue: jobs completed, failed (attempts to retry and last attempts) and enqueued per step, and the median and p95 run time, from the counts the workers record.' }),
      el.errors, el.region]);
  },
  async refresh(el) {
    const win = WINDOWS.find((w) => w.value === this.window) ?? WINDOWS[0];
    const stats = await api.get('/v1/admin/jobs/stats', { window: win.value, step: win.step });
    el.errors.replaceChildren();
    const queues = [...(stats.queues ?? [])].sort((a, b) => a.queue.localeCompare(b.queue));
    refill(el.region, queues.length ? [legend(), queues.map((q) => {
      const t = q.total ?? {};
      const details = h('details', { class: 'chart-numbers', open: this.open.has(q.queue), dataset: { queue: q.queue } },
        h('summary', { dataset: { key: `numbers-${q.queue}` } }, `The numbers for queue ${q.queue}`), numbersTable(q, stats, win));
      details.addEventListener('toggle', () => { if (details.open) this.open.add(q.queue); else this.open.delete(q.queue); });
      return h('section', { class: 'chart-card', 'aria-labelledby': `chart-h-${q.queue}`, dataset: { queue: q.queue } },
        h('h2', { id: `chart-h-${q.queue}`, text: `Queue ${q.queue}` }),
        h('p', { class: 'chart-summary', text: `${win.label}: ${count(t.completed)} completed · ${count((t.retryable ?? 0) + (t.discarded ?? 0))} failed · ${count(t.enqueued)} enqueued · median ${ms(t.runMsMedian)} · p95 ${ms(t.runMsP95)}` }),
        h('div', { class: 'chart-box' }, chartSvg(q, stats, win)), details);
    })] : h('p', { class: 'muted', id: 'charts-none', text: `Nothing counted in this window (${win.label.toLowerCase()}) yet.` }));
  },
};

// Audit ------------------------------------------------------------------------------------------
// The audit log: every admin and operator write, newest first, filtered by actor, action and
// time. Records are shown as the API gives them (arguments redacted there).
export const auditPanel = {
  id: 'audit',
  title: 'Audit log',
  filters: { actor: '', action: '', since: '' },
  cursors: [null],
  limit: 50,
  mount(el, ctx) {
    const actor = field('Actor', h('input', { name: 'actor', id: 'audit-actor', autocomplete: 'off', placeholder: 'username or account id' }));
    const action = field('Action', h('input', { name: 'action', id: 'audit-action', autocomplete: 'off', placeholder: 'e.g. jobs.bulk', list: 'audit-actions' }));
    const since = field('Since', h('input', { name: 'since', id: 'audit-since', type: 'datetime-local' }));
    el.errors = errorSlot();
    const form = h('form', { id: 'audit-filters', 'aria-label': 'Audit filters', novalidate: true },
      h('div', { class: 'row row-end' }, actor.wrap, action.wrap, since.wrap,
        h('div', { class: 'field' }, h('button', { type: 'submit', class: 'btn btn-primary' }, 'Show'))),
      h('datalist', { id: 'audit-actions' }), el.errors);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const at = since.input.value ? new Date(since.input.value) : null;
      this.filters = { actor: actor.input.value.trim(), action: action.input.value.trim(), since: at && !Number.isNaN(at.getTime()) ? rfc3339(at) : '' };
      this.cursors = [null];
      this.refresh(el, ctx).catch(() => {});
    });
    el.form = form;
    el.region = h('div', { class: 'region', id: 'audit-region' });
    append(el, [panelHeading(this.id, this.title, ctx),
      h('p', { class: 'lead', text: 'Every write by an administrator or operator: who, when, what, its target and its outcome. Records are never edited and are kept 400 days.' }),
      form, el.region]);
  },
  async refresh(el, ctx) {
    let page;
    try {
      page = await api.get('/v1/admin/audit', { ...this.filters, limit: this.limit, cursor: this.cursors[this.cursors.length - 1] });
      el.errors.replaceChildren();
    } catch (error) {
      if (error.status === 404 && !error.problem?.detail) {
        refill(el.region, h('p', { class: 'muted', id: 'audit-missing', text: 'This gateway has no audit log yet.' }));
        return;
      }
      showError(el.errors, error, el.form);
      throw error;
    }
    const items = page.items ?? [];
    const actions = new Set(items.map((r) => r.action).filter(Boolean));
    replace(el.form.querySelector('datalist'), [...actions].sort().map((a) => h('option', { value: a })));
    const rows = items.map((r, index) => h('tr', { dataset: { action: r.action ?? '', auditId: r.id ?? index } },
      h('td', { text: when(r.at ?? r.createdAt ?? r.time) }),
      h('th', { scope: 'row' }, actorText(r)),
      h('td', {}, h('code', { text: r.action ?? '—' })),
      h('td', { class: 'break', text: targetText(r) }),
      h('td', {}, outcomeBadge(r)),
      h('td', {}, detailsOf(r))));
    refill(el.region, items.length
      ? table('Audit log', ['When', 'Actor', 'Action', 'Target', 'Outcome', 'Details'], rows, { id: 'audit-table' })
      : h('p', { class: 'muted', id: 'audit-none', text: 'No record matches.' }),
    h('div', { class: 'pager' },
      this.cursors.length > 1 ? button('Newer', () => { this.cursors.pop(); this.refresh(el, ctx).catch(() => {}); }, 'secondary', { id: 'audit-prev', dataset: { key: 'audit-prev' } }) : null,
      h('span', { class: 'muted', text: `Page ${this.cursors.length}: ${plural(items.length, 'record')}` }),
      page.nextCursor ? button('Older', () => { this.cursors.push(page.nextCursor); this.refresh(el, ctx).catch(() => {}); }, 'secondary', { id: 'audit-next', dataset: { key: 'audit-next' } }) : null));
  },
};

function actorText(r) {
  if (r.username) return `${r.username}${r.role ? ` (${r.role})` : ''}`;
  const a = r.actor;
  if (a && typeof a === 'object') return [a.username ?? a.name ?? `account ${a.id ?? a.accountId}`, a.role ? ` (${a.role})` : ''].join('');
  return String(r.actorUsername ?? a ?? r.actorId ?? '—') + (r.actorRole ? ` (${r.actorRole})` : '');
}

function targetText(r) {
  const t = r.target;
  const params = t && typeof t === 'object' ? Object.entries(t).map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : v}`).join(' · ') : (t ? String(t) : '');
  const route = [r.method, r.route].filter(Boolean).join(' ');
  return [route, params].filter(Boolean).join(' · ') || '—';
}

function outcomeBadge(r) {
  const o = r.outcome;
  const text = o && typeof o === 'object' ? (o.status ?? o.result ?? JSON.stringify(o)) : (o ?? r.status ?? '—');
  const good = /^(ok|success|succeeded|done|2\d\d)$/i.test(String(text));
  const bad = /^(fail|failed|failure|error|denied|refused|[45]\d\d)$/i.test(String(text));
  return h('span', { class: `badge ${good ? 'badge-ok' : bad ? 'badge-bad' : ''}`, text: String(text) });
}

function detailsOf(r) {
  const extra = r.arguments ?? r.args ?? r.details ?? null;
  if (extra === null || extra === undefined) return h('span', { class: 'muted', text: '—' });
  const text = typeof extra === 'string' ? extra : JSON.stringify(extra);
  if (text.length <= 80) return h('code', { class: 'args', text });
  // Long arguments open on demand (as recorded: secrets are redacted by the gateway).
  return h('details', { class: 'audit-args' }, h('summary', {}, h('code', { class: 'args', text: `${text.slice(0, 60)}…` })),
    h('pre', { class: 'code', text: typeof extra === 'string' ? extra : JSON.stringify(extra, null, 2) }));
}
