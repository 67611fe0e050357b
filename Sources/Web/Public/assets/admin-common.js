// What the console's pages share: refilling a region in place (keeping focus), state badges,
// tables with a caption and column headers, panel headings, counts as people read them.
import { h, replace, scrollRegion } from './dom.js';

export const JOB_STATES = ['available', 'scheduled', 'running', 'retryable', 'completed', 'discarded', 'cancelled'];

const numbers = new Intl.NumberFormat('en-US');
/** 1234 as "1,234". */
export function count(n) {
  return numbers.format(Number(n) || 0);
}

/** "1 job", "1,234 jobs". */
export function plural(n, one, many = `${one}s`) {
  return `${count(n)} ${Number(n) === 1 ? one : many}`;
}

/** Replaces `region`'s children, keeping keyboard focus on the element with the same data-key. */
export function refill(region, ...children) {
  const active = document.activeElement;
  const key = region.contains(active) ? active?.dataset?.key : null;
  const scrolled = key ? active.scrollLeft : 0;
  const selection = key && typeof active.selectionStart === 'number' ? [active.selectionStart, active.selectionEnd] : null;
  replace(region, ...children);
  if (!key) return;
  const again = region.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (!again) return;
  again.focus({ preventScroll: true });
  // A table's scroll region keeps where the keyboard had scrolled it; a text field its caret.
  if (scrolled) again.scrollLeft = scrolled;
  if (selection && typeof again.setSelectionRange === 'function') {
    try {
      again.setSelectionRange(...selection);
    } catch {
      // Number inputs have no selection.
    }
  }
}

export function badge(state) {
  return h('span', { class: `badge state-${state}`, text: state });
}

/** A table in a scroll region. `headers` are strings or {text, hidden} (a visually hidden header). */
export function table(caption, headers, rows, extra = {}, { visibleCaption = false } = {}) {
  return scrollRegion(h('table', { class: 'data', ...extra },
    h('caption', { class: visibleCaption ? null : 'visually-hidden', text: caption }),
    h('thead', {}, h('tr', {}, headers.filter(Boolean).map((t) => (typeof t === 'string'
      ? h('th', { scope: 'col', text: t })
      : h('th', { scope: 'col', class: t.class }, t.hidden ? h('span', { class: 'visually-hidden', text: t.text }) : t.text, t.extra ?? null))))),
    h('tbody', {}, rows)), caption, { className: 'table-scroll', key: `table-${caption}` });
}

/** A panel's heading: an h1 when the panel is its page's only one, else an h2. */
export function panelHeading(id, title, ctx, ...extra) {
  return h('div', { class: 'panel-head' }, h(ctx?.single ? 'h1' : 'h2', { id: `${id}-title`, text: title }), ...extra);
}

/** Milliseconds as "850 ms", "1.2 s", "3 min"; "—" for none. */
export function ms(value) {
  if (value === null || value === undefined || Number.isNaN(Number(value))) return '—';
  const v = Number(value);
  if (v < 1) return '< 1 ms';
  if (v < 1000) return `${Math.round(v)} ms`;
  if (v < 60_000) return `${(v / 1000).toFixed(v < 10_000 ? 1 : 0)} s`;
  return `${(v / 60_000).toFixed(1)} min`;
}

/** A date as RFC 3339 in UTC without fractions of a second (2026-12-01T09:00:00Z), as the API parses it. */
export function rfc3339(date) {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Whether the signed-in account may act (not only read) in the console. */
export function canAct(me) {
  if (!me) return false;
  if (me.role === 'admin') return true;
  // GET /v1/me says whether an operator may act here (GATEWAY_OPERATOR_CAN_ACT).
  return me.role === 'operator' && me.consoleCanAct === true;
}
