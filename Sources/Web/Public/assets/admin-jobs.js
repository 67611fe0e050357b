// The console's Jobs page: filters as removable chips (state, queue, kind, args.<path>=value,
// ids, scheduled since/until, last error, minimum attempts), the total matching, a checkbox per
// row with "select all on this page" and "select all N matching" (the bulk route's filter form),
// bulk Retry / Cancel / Delete / Run now behind a confirmation dialog that states the count and
// then the outcome, and keyboard shortcuts. Arguments are shown as the API gives them (redacted).
import { h, replace, append, field, errorSlot, busy, button, when, ago, showError } from './dom.js';
import * as api from './api.js';
import { JOB_STATES, count, plural, refill, badge, table, panelHeading, rfc3339 } from './admin-common.js';

const RETRYABLE = new Set(['scheduled', 'retryable', 'completed', 'discarded', 'cancelled']);
const CANCELLABLE = new Set(['available', 'scheduled', 'running', 'retryable']);
const BULK_LIMIT = 1000;
const SHORTCUTS_KEY = 'campus-gateway.console.shortcuts';

// The filters the list route takes, in the order the chips show them.
const FILTERS = [
  { key: 'state', label: 'State', hint: `one of ${JOB_STATES.join(', ')}` },
  { key: 'queue', label: 'Queue', hint: 'a queue name, e.g. default' },
  { key: 'kind', label: 'Kind', hint: 'e.g. diagnostics.fail' },
  { key: 'args', label: 'Argument', hint: 'the argument at a path equals the value, e.g. gradebookAccountId = 42' },
  { key: 'ids', label: 'IDs', hint: 'job ids separated by commas or spaces' },
  { key: 'since', label: 'Scheduled since', hint: 'scheduled at or after this time' },
  { key: 'until', label: 'Scheduled until', hint: 'scheduled before this time' },
  { key: 'error', label: 'Last error contains', hint: 'a piece of the last error, any case' },
  { key: 'minAttempt', label: 'Attempts at least', hint: 'a whole number' },
];
const FILTER_LABEL = Object.fromEntries(FILTERS.map((f) => [f.key, f.label]));

const ACTIONS = {
  retry: { label: 'Retry', verb: 'Retry', done: 'retried', kind: 'secondary',
    explain: 'Each becomes available to run now; a job that used up its attempts gets one more. Running jobs are skipped.' },
  cancel: { label: 'Cancel', verb: 'Cancel', done: 'cancelled', kind: 'danger',
    explain: 'Jobs that have not finished are cancelled; a running one through its lease. Finished jobs are skipped.' },
  delete: { label: 'Delete', verb: 'Delete', done: 'deleted', kind: 'danger',
    explain: 'Each is deleted with its history. Running jobs are skipped.' },
  'run-now': { label: 'Run now', verb: 'Run now', done: 'moved to now', kind: 'secondary',
    explain: 'Scheduled and retryable jobs become due now; others are skipped.' },
};

const REASONS = {
  'not-found': 'not found (deleted meanwhile)',
  running: 'running now',
  finished: 'already finished',
  'already-available': 'already waiting to run',
  'not-waiting': 'neither scheduled nor retryable',
  'unique-key-taken': 'another live job holds its unique key',
};

function emptyFilters() {
  return { state: [], queue: '', kind: '', args: [], ids: [], since: '', until: '', error: '', minAttempt: '' };
}

/** The list route's query for these filters. */
export function listQuery(f) {
  const q = {};
  if (f.state.length) q.state = f.state.join(',');
  if (f.queue) q.queue = f.queue;
  if (f.kind) q.kind = f.kind;
  if (f.ids.length) q.ids = f.ids.join(',');
  if (f.since) q.since = f.since;
  if (f.until) q.until = f.until;
  if (f.error) q.error = f.error;
  if (f.minAttempt !== '') q.minAttempt = f.minAttempt;
  for (const { path, value } of f.args) q[`args.${path}`] = value;
  return q;
}

/** The bulk route's `filter` object for these filters. */
function bulkFilter(f) {
  const filter = {};
  if (f.state.length) filter.state = f.state.join(',');
  if (f.queue) filter.queue = f.queue;
  if (f.kind) filter.kind = f.kind;
  if (f.ids.length) filter.ids = f.ids.map(Number);
  if (f.since) filter.since = f.since;
  if (f.until) filter.until = f.until;
  if (f.error) filter.error = f.error;
  if (f.minAttempt !== '') filter.minAttempt = Number(f.minAttempt);
  if (f.args.length) filter.args = Object.fromEntries(f.args.map(({ path, value }) => [path, value]));
  return filter;
}

/** Every active filter as a chip: {key, label, text, remove()}. */
function chips(f) {
  const list = [];
  for (const s of f.state) list.push({ id: `state:${s}`, text: `State: ${s}`, remove: () => { f.state = f.state.filter((x) => x !== s); } });
  if (f.queue) list.push({ id: 'queue', text: `Queue: ${f.queue}`, remove: () => { f.queue = ''; } });
  if (f.kind) list.push({ id: 'kind', text: `Kind: ${f.kind}`, remove: () => { f.kind = ''; } });
  for (const a of f.args) list.push({ id: `args.${a.path}`, text: `args.${a.path} = ${a.value}`, remove: () => { f.args = f.args.filter((x) => x !== a); } });
  if (f.ids.length) list.push({ id: 'ids', text: `IDs: ${f.ids.join(', ')}`, remove: () => { f.ids = []; } });
  if (f.since) list.push({ id: 'since', text: `Scheduled since ${when(f.since)}`, remove: () => { f.since = ''; } });
  if (f.until) list.push({ id: 'until', text: `Scheduled until ${when(f.until)}`, remove: () => { f.until = ''; } });
  if (f.error) list.push({ id: 'error', text: `Last error contains “${f.error}”`, remove: () => { f.error = ''; } });
  if (f.minAttempt !== '') list.push({ id: 'minAttempt', text: `Attempts ≥ ${f.minAttempt}`, remove: () => { f.minAttempt = ''; } });
  return list;
}

/** Adds one filter from the builder's fields; answers an error message or null. */
function addFilter(f, key, rawValue, rawPath) {
  const value = String(rawValue ?? '').trim();
  const path = String(rawPath ?? '').trim().replace(/^args\./, '');
  if (!value && key !== 'args') return `Enter a value for ${FILTER_LABEL[key].toLowerCase()}.`;
  switch (key) {
    case 'state': {
      const states = value.split(/[\s,]+/).filter(Boolean).map((s) => s.toLowerCase());
      const unknown = states.filter((s) => !JOB_STATES.includes(s));
      if (unknown.length) return `No state “${unknown[0]}”: the states are ${JOB_STATES.join(', ')}.`;
      for (const s of states) if (!f.state.includes(s)) f.state.push(s);
      return null;
    }
    case 'queue': f.queue = value; return null;
    case 'kind': f.kind = value; return null;
    case 'args': {
      if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(path)) return 'Enter the argument’s path, such as gradebookAccountId or target.id.';
      if (!value) return 'Enter the value the argument must equal.';
      if (f.args.length >= 10 && !f.args.some((a) => a.path === path)) return 'At most 10 argument filters.';
      f.args = [...f.args.filter((a) => a.path !== path), { path, value }];
      return null;
    }
    case 'ids': {
      const ids = value.split(/[\s,]+/).filter(Boolean);
      if (ids.some((id) => !/^[1-9][0-9]{0,18}$/.test(id))) return 'Job ids are whole numbers, separated by commas.';
      f.ids = [...new Set([...f.ids, ...ids])];
      if (f.ids.length > 1000) return 'At most 1,000 ids.';
      return null;
    }
    case 'since':
    case 'until': {
      const date = new Date(value);
      if (Number.isNaN(date.getTime())) return 'Enter a date and time.';
      f[key] = rfc3339(date);
      return null;
    }
    case 'error':
      if (value.length > 200) return 'At most 200 characters.';
      f.error = value;
      return null;
    case 'minAttempt':
      if (!/^[0-9]{1,4}$/.test(value) || Number(value) > 1000) return 'Attempts: a whole number from 0 to 1,000.';
      f.minAttempt = String(Number(value));
      return null;
    default:
      return 'Choose what to filter by.';
  }
}

function argsText(args) {
  const text = JSON.stringify(args ?? {});
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

// The confirmation dialog -------------------------------------------------------------------------

let dialog = null;

/** The one <dialog> (modal: the page behind it is inert), built on first use. */
function bulkDialog() {
  if (dialog) return dialog;
  const title = h('h2', { id: 'bulk-dialog-title' });
  const body = h('div', { class: 'dialog-body', id: 'bulk-dialog-body' });
  const outcome = h('div', { class: 'dialog-outcome', id: 'bulk-outcome', role: 'status', 'aria-live': 'polite' });
  const errors = errorSlot();
  const confirm = h('button', { type: 'button', class: 'btn btn-primary', id: 'bulk-confirm' });
  const again = h('button', { type: 'button', class: 'btn btn-primary', id: 'bulk-again', hidden: true }, 'Run again for the rest');
  const close = h('button', { type: 'button', class: 'btn btn-secondary', id: 'bulk-close' }, 'Go back');
  const el = h('dialog', { class: 'card dialog', id: 'bulk-dialog', 'aria-labelledby': title.id, 'aria-describedby': body.id },
    title, body, outcome, errors, h('div', { class: 'actions' }, confirm, again, close));
  // Tab and Shift+Tab stay inside the dialog (showModal makes the page inert; this also keeps
  // focus off the browser's own controls).
  el.addEventListener('keydown', (event) => {
    if (event.key !== 'Tab') return;
    const focusable = [...el.querySelectorAll('button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])')]
      .filter((x) => !x.disabled && !x.hidden && x.offsetParent !== null);
    if (!focusable.length) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
    else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
  });
  close.addEventListener('click', () => el.close());
  document.body.append(el);
  dialog = { el, title, body, outcome, errors, confirm, again, close };
  return dialog;
}

/**
 * Asks before a bulk action, runs it and shows what happened. `target`: {ids} or {filter};
 * `size`: the count the title states; `onDone` runs when the dialog closes after an action.
 */
function confirmBulk({ action, target, sizeText, describe, onDone, opener }) {
  const d = bulkDialog();
  const a = ACTIONS[action];
  let acted = false;
  d.title.textContent = `${a.verb} ${sizeText}?`;
  replace(d.body, h('p', { text: a.explain }), describe ?? null,
    target.filter ? h('p', { class: 'muted', text: `The gateway acts on at most ${count(BULK_LIMIT)} jobs a run; when more match, you can run it again for the rest.` }) : null);
  d.outcome.replaceChildren();
  d.errors.replaceChildren();
  d.confirm.textContent = `${a.verb} ${sizeText}`;
  d.confirm.className = `btn ${a.kind === 'danger' ? 'btn-danger-solid' : 'btn-primary'}`;
  d.confirm.hidden = false;
  d.confirm.dataset.action = action;
  d.again.hidden = true;
  d.close.textContent = 'Go back';

  const run = async (control) => {
    const outcome = await busy(control, d.errors, () => runBulk(action, target));
    if (!outcome) return;
    acted = true;
    d.confirm.hidden = true;
    d.close.textContent = 'Close';
    showOutcome(d, a, outcome);
    d.again.hidden = !(outcome.more && target.filter);
    (d.again.hidden ? d.close : d.again).focus();
  };
  d.confirm.onclick = () => run(d.confirm);
  d.again.onclick = () => run(d.again);
  d.el.onclose = () => {
    d.confirm.onclick = null;
    d.again.onclick = null;
    // The button that opened the dialog, or the one that replaced it in a refresh.
    const key = opener?.dataset?.key;
    const again = opener?.isConnected ? opener : key ? document.querySelector(`[data-key="${CSS.escape(key)}"]`) : null;
    (again ?? document.getElementById('jobs-title'))?.focus();
    if (acted) onDone?.();
  };
  d.el.showModal();
  d.confirm.focus();
}

/** Runs a bulk action by ids (in calls of at most 1,000) or by filter (one call). */
async function runBulk(action, target) {
  if (target.filter) return api.post('/v1/admin/jobs/bulk', { action, filter: target.filter });
  const total = { affected: 0, skipped: [], more: false };
  for (let i = 0; i < target.ids.length; i += BULK_LIMIT) {
    const part = await api.post('/v1/admin/jobs/bulk', { action, ids: target.ids.slice(i, i + BULK_LIMIT) });
    total.affected += part.affected;
    total.skipped.push(...(part.skipped ?? []));
    if (part.failure) {
      total.failure = part.failure;
      break;
    }
  }
  return total;
}

function showOutcome(d, a, outcome) {
  const skipped = outcome.skipped ?? [];
  const byReason = new Map();
  for (const s of skipped) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.id]);
  append(d.outcome, [h('div', { class: 'outcome-run' },
    h('p', { class: 'note', id: 'bulk-affected', text: `${plural(outcome.affected, 'job')} ${a.done}.` }),
    skipped.length ? h('div', { class: 'skipped', id: 'bulk-skipped' },
      h('p', {}, h('strong', { text: `${plural(skipped.length, 'job')} skipped:` })),
      h('ul', { class: 'reasons' }, [...byReason].map(([reason, ids]) => h('li', { dataset: { reason } },
        h('span', { class: 'reason', text: REASONS[reason] ?? reason }), ` (${plural(ids.length, 'job')}): `,
        h('span', { class: 'ids', text: ids.slice(0, 20).join(', ') + (ids.length > 20 ? `, and ${count(ids.length - 20)} more` : '') }))))) : null,
    outcome.more ? h('p', { class: 'warning', id: 'bulk-more', text: `More jobs match than this run took (at most ${count(BULK_LIMIT)}). Run it again for the rest.` }) : null,
    outcome.failure ? h('div', { class: 'problem', id: 'bulk-failure' }, h('strong', { text: 'Stopped part-way' }),
      h('p', { text: `${outcome.failure} What was done before it stays done.` })) : null)]);
}

// The page ----------------------------------------------------------------------------------------

export const jobsPanel = {
  id: 'jobs',
  title: 'Jobs',
  filters: emptyFilters(),
  limit: '25',
  cursors: [null],
  selected: new Set(),
  allMatching: false,
  expanded: new Set(),
  page: null,
  mount(el, ctx) {
    this.el = el;
    this.ctx = ctx;
    const key = h('select', { name: 'filterKey', id: 'job-filter-key' }, FILTERS.map((f) => h('option', { value: f.key }, f.label)));
    const keyField = field('Filter by', key);
    const path = field('Argument path', h('input', { name: 'argPath', id: 'job-filter-path', placeholder: 'gradebookAccountId', autocomplete: 'off', spellcheck: 'false' }));
    const value = field('Value', h('input', { name: 'filterValue', id: 'job-filter-value', autocomplete: 'off', list: 'job-filter-suggestions' }));
    keyField.wrap.classList.add('filter-key');
    path.wrap.classList.add('filter-path');
    value.wrap.classList.add('filter-value');
    const hint = h('small', { class: 'hint', id: 'job-filter-hint' });
    value.input.setAttribute('aria-describedby', hint.id);
    const suggestions = h('datalist', { id: 'job-filter-suggestions' });
    const slot = errorSlot();
    const form = h('form', { class: 'filter-builder', id: 'job-filters', 'aria-label': 'Add a job filter', novalidate: true },
      h('div', { class: 'row row-end' }, keyField.wrap, path.wrap, value.wrap,
        h('div', { class: 'field' }, h('button', { type: 'submit', class: 'btn btn-primary', id: 'job-filter-add' }, 'Add filter'))),
      hint, suggestions, slot);
    const setKey = () => {
      const k = key.value;
      path.wrap.hidden = k !== 'args';
      value.input.type = k === 'since' || k === 'until' ? 'datetime-local' : k === 'minAttempt' ? 'number' : 'text';
      if (k === 'minAttempt') { value.input.min = '0'; value.input.max = '1000'; }
      value.input.placeholder = { state: 'discarded', queue: 'default', kind: 'diagnostics.fail', args: '42', ids: '12, 13, 20', error: 'timeout' }[k] ?? '';
      hint.textContent = FILTERS.find((f) => f.key === k).hint;
      replace(suggestions, (k === 'state' ? JOB_STATES : k === 'kind' ? [...(this.kinds ?? [])] : k === 'queue' ? [...(this.queues ?? [])] : [])
        .map((s) => h('option', { value: s })));
    };
    key.addEventListener('change', setKey);
    value.input.addEventListener('input', () => value.input.removeAttribute('aria-invalid'));
    setKey();
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      slot.replaceChildren();
      value.input.removeAttribute('aria-invalid');
      const next = structuredClone(this.filters);
      const problem = addFilter(next, key.value, value.input.value, path.input.value);
      if (problem) {
        showError(slot, new Error(problem));
        value.input.setAttribute('aria-invalid', 'true');
        value.input.focus();
        return;
      }
      value.input.value = '';
      this.setFilters(next);
      value.input.focus();
    });
    el.filterSlot = slot;
    el.filterForm = form;
    el.chips = h('div', { class: 'chips-bar', id: 'job-chips' });
    el.errors = errorSlot();
    el.toolbar = h('div', { class: 'bulk-bar', id: 'bulk-bar', role: 'group', 'aria-label': 'Selection and bulk actions' });
    el.region = h('div', { class: 'region', id: 'jobs-region' });
    const shortcutsOn = h('input', { type: 'checkbox', id: 'job-shortcuts-on', checked: shortcutsEnabled() });
    shortcutsOn.addEventListener('change', () => localStorage.setItem(SHORTCUTS_KEY, shortcutsOn.checked ? 'on' : 'off'));
    const help = h('div', { class: 'shortcuts', id: 'job-shortcuts' },
      h('span', { class: 'field-check' }, shortcutsOn, h('label', { for: 'job-shortcuts-on', text: 'Keyboard shortcuts' })),
      h('p', { class: 'hint', id: 'job-shortcuts-help' }, 'Keys: ', kbd('/'), ' add a filter · ', kbd('r'), ' refresh',
        ctx.canAct ? [' · ', kbd('a'), ' select all on this page · ', kbd('Shift'), '+', kbd('A'), ' select all matching · ', kbd('Esc'), ' close the dialog or clear the selection'] : null));
    append(el, [panelHeading(this.id, this.title, ctx), form, el.chips, help, ctx.canAct ? enqueueForm(ctx) : null, el.errors, el.toolbar, el.region]);
    this.renderChips();
  },
  setFilters(next) {
    this.filters = next;
    this.cursors = [null];
    this.clearSelection(false);
    this.renderChips();
    this.refresh(this.el, this.ctx).catch(() => {});
  },
  clearSelection(render = true) {
    this.selected = new Set();
    this.allMatching = false;
    if (render && this.page) this.render();
  },
  renderChips() {
    const list = chips(this.filters);
    const el = this.el;
    replace(el.chips, list.length
      ? [h('ul', { class: 'chip-list', 'aria-label': 'Active filters' }, list.map((c) => h('li', { class: 'chip', dataset: { filter: c.id } },
        h('span', { text: c.text }),
        h('button', { type: 'button', class: 'chip-remove', 'aria-label': `Remove filter ${c.text}`, dataset: { key: `chip-${c.id}` }, onClick: () => {
          const next = structuredClone(this.filters);
          const again = chips(next).find((x) => x.id === c.id);
          again?.remove();
          this.setFilters(next);
          (el.chips.querySelector('.chip-remove') ?? document.getElementById('job-filter-value'))?.focus();
        } }, '×')))),
      button('Clear all filters', () => { this.setFilters(emptyFilters()); document.getElementById('job-filter-value')?.focus(); }, 'link', { id: 'job-filters-clear' })]
      : h('p', { class: 'muted', text: 'No filter: every job, newest first.' }));
  },
  async refresh(el, ctx) {
    this.el = el;
    this.ctx = ctx;
    const cursor = this.cursors[this.cursors.length - 1];
    try {
      this.page = await api.get('/v1/admin/jobs', { ...listQuery(this.filters), limit: this.limit, cursor });
      el.filterSlot.replaceChildren();
    } catch (error) {
      showError(el.filterSlot, error, el.filterForm);
      throw error;
    }
    this.kinds = new Set([...(this.kinds ?? []), ...this.page.items.map((j) => j.kind)]);
    this.queues = new Set([...(this.queues ?? []), ...this.page.items.map((j) => j.queue)]);
    this.render();
  },
  totalText() {
    const p = this.page;
    if (!p) return '';
    return p.totalIsLowerBound ? `more than ${count(p.total)} jobs` : plural(p.total, 'job');
  },
  selectionSize() {
    if (this.allMatching) return this.page?.totalIsLowerBound ? `all of more than ${count(this.page.total)} matching jobs` : `all ${this.totalText()} matching`;
    return plural(this.selected.size, 'job');
  },
  render() {
    const { el, ctx, page } = this;
    const pageIds = page.items.map((j) => j.id);
    const everyOnPage = pageIds.length > 0 && pageIds.every((id) => this.allMatching || this.selected.has(id));
    // Toolbar: total, selection and bulk buttons.
    const pageBox = h('input', { type: 'checkbox', id: 'select-page', checked: everyOnPage, disabled: !pageIds.length, dataset: { key: 'select-page' } });
    pageBox.indeterminate = !everyOnPage && pageIds.some((id) => this.selected.has(id));
    pageBox.addEventListener('change', () => this.selectPage(pageBox.checked));
    const selectedText = this.allMatching ? `All ${this.totalText()} matching are selected.`
      : this.selected.size ? `${plural(this.selected.size, 'job')} selected.` : 'Nothing selected.';
    const bulk = ctx.canAct ? h('div', { class: 'actions tight bulk-actions' }, Object.entries(ACTIONS).map(([action, a]) => button(a.label, (e) => this.askBulk(action, e.currentTarget), a.kind,
      { disabled: !this.allMatching && !this.selected.size, dataset: { bulk: action, key: `bulk-${action}` }, 'aria-describedby': 'selected-count' }))) : null;
    const total = h('p', { class: 'jobs-total', id: 'jobs-total' }, h('strong', { text: this.totalText() }), page.totalIsLowerBound ? ' match (counted up to 10,000)' : ' match');
    if (!ctx.canAct) refill(el.toolbar, total);
    else refill(el.toolbar, total,
      h('span', { class: 'field-check' }, pageBox, h('label', { for: 'select-page', text: 'Select all on this page' })),
      !this.allMatching && page.total > 0 ? button(`Select all ${page.totalIsLowerBound ? `${count(page.total)}+` : count(page.total)} matching`, () => this.selectMatching(), 'link', { id: 'select-matching', dataset: { key: 'select-matching' } }) : null,
      h('span', { class: 'selected-count', id: 'selected-count', text: selectedText }),
      this.allMatching || this.selected.size ? button('Clear selection', () => this.clearSelection(), 'link', { id: 'select-clear', dataset: { key: 'select-clear' } }) : null,
      bulk);

    const rows = [];
    for (const job of page.items) {
      const open = this.expanded.has(job.id);
      const checked = this.allMatching || this.selected.has(job.id);
      const box = h('input', { type: 'checkbox', checked, 'aria-label': `Select job ${job.id}`, dataset: { selectId: job.id, key: `select-${job.id}` } });
      box.addEventListener('change', () => this.toggle(job.id, box.checked));
      const actions = h('div', { class: 'actions tight' },
        button(open ? 'Hide' : 'Details', () => { if (open) this.expanded.delete(job.id); else this.expanded.add(job.id); this.render(); }, 'link',
          { 'aria-expanded': String(open), dataset: { key: `details-${job.id}` }, 'aria-label': `${open ? 'Hide' : 'Show'} details of job ${job.id}` }),
        ctx.canAct && RETRYABLE.has(job.state) ? button('Retry', (e) => busy(e.currentTarget, el.errors, async () => {
          const retried = await api.post(`/v1/admin/jobs/${job.id}/retry`);
          ctx.toast(`Job ${job.id} is ${retried.state} again.`);
          await this.refresh(el, ctx);
        }), 'secondary', { dataset: { key: `retry-${job.id}`, action: 'retry' }, 'aria-label': `Retry job ${job.id}` }) : null,
        ctx.canAct && CANCELLABLE.has(job.state) ? button('Cancel', (e) => busy(e.currentTarget, el.errors, async () => {
          await api.post(`/v1/admin/jobs/${job.id}/cancel`);
          ctx.toast(`Job ${job.id} cancelled.`);
          await this.refresh(el, ctx);
        }), 'danger', { dataset: { key: `cancel-${job.id}`, action: 'cancel' }, 'aria-label': `Cancel job ${job.id}` }) : null,
        ctx.canAct && job.state !== 'running' ? button('Delete', (e) => confirmBulk({ action: 'delete', target: { ids: [job.id] }, sizeText: `job ${job.id} (${job.kind})`,
          opener: e.currentTarget, onDone: () => { this.expanded.delete(job.id); this.selected.delete(job.id); this.refresh(el, ctx).catch(() => {}); } }),
        'link', { dataset: { key: `delete-${job.id}`, action: 'delete' }, 'aria-label': `Delete job ${job.id}` }) : null);
      rows.push(h('tr', { dataset: { jobId: job.id, state: job.state }, class: checked ? 'selected' : null },
        ctx.canAct ? h('td', { class: 'select' }, box) : null,
        h('th', { scope: 'row', text: String(job.id) }),
        h('td', { text: job.kind }),
        h('td', { text: job.queue }),
        h('td', {}, badge(job.state)),
        h('td', { class: 'attempts', text: `${job.attempt} / ${job.maxAttempts}` }),
        h('td', { class: 'error-count', text: String(job.errors?.length ?? 0) }),
        h('td', { text: job.finalizedAt ? `done ${ago(job.finalizedAt)}` : `due ${ago(job.scheduledAt)}` }),
        h('td', {}, h('code', { class: 'args', text: argsText(job.args) })),
        h('td', {}, actions)));
      if (open) rows.push(h('tr', { class: 'expanded' }, h('td', { colspan: ctx.canAct ? 10 : 9 }, jobDetails(job))));
    }
    const pager = h('div', { class: 'pager' },
      this.cursors.length > 1 ? button('Previous page', () => { this.cursors.pop(); this.refresh(el, ctx).catch(() => {}); }, 'secondary', { id: 'jobs-prev', dataset: { key: 'jobs-prev' } }) : null,
      h('span', { class: 'muted', text: `Page ${this.cursors.length}: ${plural(page.items.length, 'job')}` }),
      page.nextCursor ? button('Next page', () => { this.cursors.push(page.nextCursor); this.refresh(el, ctx).catch(() => {}); }, 'secondary', { id: 'jobs-next', dataset: { key: 'jobs-next' } }) : null,
      pageSize(this));
    refill(el.region, page.items.length
      ? table('Jobs', [ctx.canAct ? { text: 'Select', hidden: true } : null, 'ID', 'Kind', 'Queue', 'State', 'Attempt', 'Errors', 'When', 'Arguments', { text: 'Actions', hidden: true }], rows, { id: 'jobs-table' })
      : h('p', { class: 'muted', id: 'jobs-none', text: 'No job matches.' }), pager);
  },
  toggle(id, on) {
    if (this.allMatching) {
      // Leaving "all matching": what stays selected is this page but the one unticked.
      this.allMatching = false;
      this.selected = new Set(this.page.items.map((j) => j.id));
    }
    if (on) this.selected.add(id);
    else this.selected.delete(id);
    this.render();
  },
  selectPage(on) {
    if (this.allMatching) this.allMatching = false;
    for (const job of this.page?.items ?? []) {
      if (on) this.selected.add(job.id);
      else this.selected.delete(job.id);
    }
    this.render();
  },
  selectMatching() {
    if (!this.page?.total) return;
    this.allMatching = true;
    this.selected = new Set();
    this.render();
    this.ctx.toast(`All ${this.totalText()} matching are selected.`);
  },
  askBulk(action, opener) {
    if (!this.ctx.canAct) return;
    const filters = this.filters;
    const target = this.allMatching ? { filter: bulkFilter(filters) } : { ids: [...this.selected] };
    if (!this.allMatching && !target.ids.length) return;
    const matching = chips(filters).map((c) => c.text);
    const sizeText = this.allMatching
      ? (this.page.totalIsLowerBound ? `more than ${count(this.page.total)} jobs` : plural(this.page.total, 'job'))
      : plural(target.ids.length, 'job');
    const describe = this.allMatching
      ? h('p', {}, 'Every job matching ', matching.length ? h('strong', { text: matching.join(' · ') }) : h('strong', { text: 'no filter (every job)' }), '.')
      : h('p', { class: 'muted', text: `${target.ids.length === 1 ? 'Job' : 'Jobs'} ${target.ids.slice(0, 12).join(', ')}${target.ids.length > 12 ? ` and ${count(target.ids.length - 12)} more` : ''}.` });
    confirmBulk({ action, target, sizeText, describe, opener, onDone: () => {
      this.clearSelection(false);
      this.refresh(this.el, this.ctx).catch(() => {});
    } });
  },
  /** The page's keyboard shortcuts (only while the Jobs page shows). */
  key(event) {
    if (!this.ctx?.canAct && (event.key === 'a' || event.key === 'A')) return false;
    if (!shortcutsEnabled() || event.ctrlKey || event.metaKey || event.altKey) return false;
    if (dialog?.el.open) return false;
    const target = event.target;
    const typing = target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    if (event.key === 'Escape') {
      if (typing) return false;
      if (this.allMatching || this.selected.size) { this.clearSelection(); this.ctx.toast('Selection cleared.'); return true; }
      return false;
    }
    if (typing) return false;
    if (event.key === '/') { document.getElementById('job-filter-value')?.focus(); return true; }
    if (event.key === 'r') { this.ctx.refresh(); this.ctx.toast('Refreshing.'); return true; }
    if (event.key === 'a') { const box = document.getElementById('select-page'); if (box && !box.disabled) this.selectPage(!box.checked); return true; }
    if (event.key === 'A') { this.selectMatching(); return true; }
    return false;
  },
};

function pageSize(panel) {
  const select = h('select', { id: 'jobs-limit', name: 'limit', dataset: { key: 'jobs-limit' } }, ['25', '50', '100', '200'].map((n) => h('option', { value: n, selected: n === panel.limit }, n)));
  select.addEventListener('change', () => { panel.limit = select.value; panel.cursors = [null]; panel.refresh(panel.el, panel.ctx).catch(() => {}); });
  return h('span', { class: 'field inline' }, h('label', { for: 'jobs-limit', text: 'Per page' }), select);
}

function kbd(text) {
  return h('kbd', { text });
}

function shortcutsEnabled() {
  return localStorage.getItem(SHORTCUTS_KEY) !== 'off';
}

function jobDetails(job) {
  return h('div', { class: 'job-details' },
    h('dl', { class: 'facts' },
      [['Created', when(job.createdAt)], ['Scheduled', when(job.scheduledAt)], ['Last attempt', when(job.attemptedAt)],
        ['Worker', job.attemptedBy ?? '—'], ['Finished', when(job.finalizedAt)], ['Priority', String(job.priority)],
        ['Unique key', job.uniqueKey ?? '—']].flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: v })])),
    h('h3', { text: 'Arguments' }),
    h('p', { class: 'hint', text: 'As the gateway shows them: secrets are redacted.' }),
    h('pre', { class: 'code', text: JSON.stringify(job.args ?? {}, null, 2) }),
    h('h3', { text: `Error history (${job.errors?.length ?? 0})` }),
    job.errors?.length ? h('ol', { class: 'errors' }, job.errors.map((e) => h('li', {}, h('strong', { text: `Attempt ${e.attempt}` }), ` · ${when(e.at)} · `, h('code', { text: e.error }))))
      : h('p', { class: 'muted', text: 'No error.' }));
}

function enqueueForm(ctx) {
  const kind = field('Kind', h('select', { name: 'kind' }, ['diagnostics.noop', 'diagnostics.sleep', 'diagnostics.fail'].map((k) => h('option', { value: k }, k))));
  const args = field('Arguments (JSON)', h('textarea', { name: 'args', rows: 2, spellcheck: 'false' }), 'sleep: {"seconds": 2}; fail: {"message": "…"}');
  args.input.value = '{}';
  const attempts = field('Max attempts', h('input', { name: 'maxAttempts', type: 'number', min: 1, max: 100, value: 1, inputmode: 'numeric' }));
  const queue = field('Queue', h('input', { name: 'queue', value: 'default' }));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-secondary' }, 'Enqueue');
  const form = h('form', { id: 'enqueue-form', novalidate: true }, h('div', { class: 'row row-end' }, kind.wrap, attempts.wrap, queue.wrap), args.wrap, slot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const job = await busy(submit, slot, async () => {
      let parsed;
      try {
        parsed = JSON.parse(args.input.value || '{}');
      } catch {
        args.input.setAttribute('aria-invalid', 'true');
        throw new Error('The arguments are not valid JSON.');
      }
      return api.post('/v1/admin/jobs', { kind: kind.input.value, args: parsed, maxAttempts: Number(attempts.input.value) || 1, queue: queue.input.value.trim() || 'default' });
    }, form);
    if (job) {
      ctx.toast(`Job ${job.id} (${job.kind}) enqueued.`);
      ctx.refresh();
    }
  });
  return h('details', { class: 'enqueue' }, h('summary', { text: 'Enqueue a diagnostic job' }), form);
}

