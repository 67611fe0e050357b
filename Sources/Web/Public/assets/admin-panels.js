// The operator console's panels. Each mounts once (its controls) and refreshes its data region
// in place; focus inside a refreshed region returns to the control with the same key.
import { h, replace, append, field, errorSlot, busy, button, when, ago, showError, uid, scrollRegion } from './dom.js';
import * as api from './api.js';
import { eligibilityPanel } from './admin-eligibility.js';

const JOB_STATES = ['available', 'scheduled', 'running', 'retryable', 'completed', 'discarded', 'cancelled'];
const RETRYABLE = new Set(['scheduled', 'retryable', 'completed', 'discarded', 'cancelled']);
const CANCELLABLE = new Set(['available', 'scheduled', 'running', 'retryable']);

/** Replaces `region`'s children, keeping keyboard focus on the element with the same data-key. */
function refill(region, ...children) {
  const active = document.activeElement;
  const key = region.contains(active) ? active?.dataset?.key : null;
  const scrolled = key ? active.scrollLeft : 0;
  replace(region, ...children);
  if (!key) return;
  const again = region.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (!again) return;
  again.focus({ preventScroll: true });
  // A table's scroll region keeps where the keyboard had scrolled it.
  if (scrolled) again.scrollLeft = scrolled;
}

function badge(state) {
  return h('span', { class: `badge state-${state}`, text: state });
}

function table(caption, headers, rows, extra = {}) {
  return scrollRegion(h('table', { class: 'data', ...extra },
    h('caption', { class: 'visually-hidden', text: caption }),
    h('thead', {}, h('tr', {}, headers.map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, rows)), caption, { className: 'table-scroll', key: `table-${caption}` });
}

function panelHeading(id, title, ...extra) {
  return h('div', { class: 'panel-head' }, h('h2', { id: `${id}-title`, text: title }), ...extra);
}

// Queues -----------------------------------------------------------------------------------------
const queuesPanel = {
  id: 'queues',
  title: 'Queues',
  mount(el) {
    el.region = h('div', { class: 'region' });
    el.errors = errorSlot();
    append(el, [panelHeading(this.id, this.title), el.errors, el.region]);
  },
  async refresh(el, ctx) {
    const queues = (await api.get('/v1/admin/queues')).items;
    const rows = queues.map((q) => {
      const counts = JOB_STATES.map((s) => `${s} ${q.counts?.[s] ?? 0}`).join(' · ');
      const toggle = q.paused
        ? button('Resume', (e) => busy(e.currentTarget, el.errors, async () => { await api.post(`/v1/admin/queues/${encodeURIComponent(q.name)}/resume`); ctx.toast(`Queue ${q.name} resumed.`); ctx.refresh(); }), 'secondary', { dataset: { key: `queue-${q.name}` }, 'aria-label': `Resume queue ${q.name}` })
        : button('Pause', (e) => busy(e.currentTarget, el.errors, async () => { await api.post(`/v1/admin/queues/${encodeURIComponent(q.name)}/pause`); ctx.toast(`Queue ${q.name} paused.`); ctx.refresh(); }), 'secondary', { dataset: { key: `queue-${q.name}` }, 'aria-label': `Pause queue ${q.name}` });
      return h('tr', { dataset: { queue: q.name } },
        h('th', { scope: 'row' }, q.name, q.paused ? h('span', { class: 'badge badge-warn', text: 'paused' }) : null,
          q.unworked ? h('span', { class: 'badge badge-bad', text: 'unworked' }) : null),
        h('td', { text: `${q.running} / ${q.limit ?? '—'}` }),
        h('td', { class: 'counts', text: counts }),
        h('td', { text: `${Number(q.latencySeconds ?? 0).toFixed(1)} s` }),
        h('td', { text: `${q.completedLastHour} ok · ${q.failedLastHour} failed` }),
        h('td', { text: `${q.completedLastDay} ok · ${q.failedLastDay} failed` }),
        h('td', {}, toggle));
    });
    refill(el.region, queues.length
      ? table('Queues', ['Queue', 'Running / limit', 'Jobs by state', 'Latency', 'Last hour', 'Last day', ''], rows)
      : h('p', { class: 'muted', text: 'No queue yet.' }));
  },
};

// Jobs -------------------------------------------------------------------------------------------
const jobsPanel = {
  id: 'jobs',
  title: 'Jobs',
  filters: { state: [], kind: '', queue: '', limit: '25' },
  expanded: new Set(),
  mount(el, ctx) {
    const f = this.filters;
    const states = h('fieldset', { class: 'states' }, h('legend', { text: 'State' }), JOB_STATES.map((s) => {
      const id = uid('state');
      return h('span', { class: 'day-check' }, h('input', { type: 'checkbox', id, name: 'state', value: s, checked: f.state.includes(s) }), h('label', { for: id, text: s }));
    }));
    const kind = field('Kind', h('input', { name: 'kind', value: f.kind, placeholder: 'e.g. diagnostics.fail', list: 'job-kinds', autocomplete: 'off' }));
    const queue = field('Queue', h('input', { name: 'queue', value: f.queue, placeholder: 'any', autocomplete: 'off' }));
    const limit = field('Show', h('select', { name: 'limit' }, ['25', '50', '100', '200'].map((n) => h('option', { value: n, selected: n === f.limit }, n))));
    const filterSlot = errorSlot();
    const form = h('form', { class: 'filters-inline', id: 'job-filters', 'aria-label': 'Job filters' },
      states, h('div', { class: 'row row-end' }, kind.wrap, queue.wrap, limit.wrap, h('button', { type: 'submit', class: 'btn btn-primary' }, 'Filter')), filterSlot,
      h('datalist', { id: 'job-kinds' }));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const data = new FormData(form);
      this.filters = { state: data.getAll('state'), kind: String(data.get('kind') || '').trim(), queue: String(data.get('queue') || '').trim(), limit: String(data.get('limit')) };
      this.refresh(el, ctx).catch((error) => showError(filterSlot, error, form));
    });
    el.filterSlot = filterSlot;
    el.filterForm = form;
    el.errors = errorSlot();
    el.region = h('div', { class: 'region', id: 'jobs-region' });
    append(el, [panelHeading(this.id, this.title), form, enqueueForm(ctx), el.errors, el.region]);
  },
  async refresh(el, ctx) {
    const f = this.filters;
    let page;
    try {
      page = await api.get('/v1/admin/jobs', { state: f.state.join(','), kind: f.kind, queue: f.queue, limit: f.limit });
      el.filterSlot.replaceChildren();
    } catch (error) {
      showError(el.filterSlot, error, el.filterForm);
      throw error;
    }
    const kinds = new Set(page.items.map((j) => j.kind));
    replace(el.filterForm.querySelector('datalist'), [...kinds].sort().map((k) => h('option', { value: k })));
    const rows = [];
    for (const job of page.items) {
      const open = this.expanded.has(job.id);
      const actions = h('div', { class: 'actions tight' },
        button(open ? 'Hide' : 'Details', () => { if (open) this.expanded.delete(job.id); else this.expanded.add(job.id); this.refresh(el, ctx); }, 'link',
          { 'aria-expanded': String(open), dataset: { key: `details-${job.id}` }, 'aria-label': `${open ? 'Hide' : 'Show'} details of job ${job.id}` }),
        RETRYABLE.has(job.state) ? button('Retry', (e) => busy(e.currentTarget, el.errors, async () => {
          const retried = await api.post(`/v1/admin/jobs/${job.id}/retry`);
          ctx.toast(`Job ${job.id} is ${retried.state} again.`);
          await this.refresh(el, ctx);
        }), 'secondary', { dataset: { key: `retry-${job.id}`, action: 'retry' }, 'aria-label': `Retry job ${job.id}` }) : null,
        CANCELLABLE.has(job.state) ? button('Cancel', (e) => busy(e.currentTarget, el.errors, async () => {
          await api.post(`/v1/admin/jobs/${job.id}/cancel`);
          ctx.toast(`Job ${job.id} cancelled.`);
          await this.refresh(el, ctx);
        }), 'danger', { dataset: { key: `cancel-${job.id}`, action: 'cancel' }, 'aria-label': `Cancel job ${job.id}` }) : null,
        job.state !== 'running' ? button('Delete', (e) => busy(e.currentTarget, el.errors, async () => {
          if (!window.confirm(`Delete job ${job.id} (${job.kind})? Its history goes with it.`)) return;
          await api.del(`/v1/admin/jobs/${job.id}`);
          this.expanded.delete(job.id);
          ctx.toast(`Job ${job.id} deleted.`);
          await this.refresh(el, ctx);
        }), 'link', { dataset: { key: `delete-${job.id}`, action: 'delete' }, 'aria-label': `Delete job ${job.id}` }) : null);
      rows.push(h('tr', { dataset: { jobId: job.id, state: job.state } },
        h('th', { scope: 'row', text: String(job.id) }),
        h('td', { text: job.kind }),
        h('td', { text: job.queue }),
        h('td', {}, badge(job.state)),
        h('td', { class: 'attempts', text: `${job.attempt} / ${job.maxAttempts}` }),
        h('td', { class: 'error-count', text: String(job.errors?.length ?? 0) }),
        h('td', { text: job.finalizedAt ? `done ${ago(job.finalizedAt)}` : `due ${ago(job.scheduledAt)}` }),
        h('td', {}, actions)));
      if (open) rows.push(h('tr', { class: 'expanded' }, h('td', { colspan: 8 }, jobDetails(job))));
    }
    refill(el.region, page.items.length
      ? table('Jobs', ['ID', 'Kind', 'Queue', 'State', 'Attempt', 'Errors', 'When', ''], rows, { id: 'jobs-table' })
      : h('p', { class: 'muted', text: 'No job matches.' }),
    page.nextCursor ? h('p', { class: 'muted', text: `Showing the newest ${page.items.length}; more match.` }) : null);
  },
};

function jobDetails(job) {
  return h('div', { class: 'job-details' },
    h('dl', { class: 'facts' },
      [['Created', when(job.createdAt)], ['Scheduled', when(job.scheduledAt)], ['Last attempt', when(job.attemptedAt)],
      ['Worker', job.attemptedBy ?? '—'], ['Finished', when(job.finalizedAt)], ['Priority', String(job.priority)],
      ['Unique key', job.uniqueKey ?? '—']].flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: v })])),
    h('h3', { text: 'Arguments' }),
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

// Schedules --------------------------------------------------------------------------------------
const schedulesPanel = {
  id: 'schedules',
  title: 'Recurring schedules',
  mount(el) {
    el.errors = errorSlot();
    el.region = h('div', { class: 'region' });
    append(el, [panelHeading(this.id, this.title), el.errors, el.region]);
  },
  async refresh(el, ctx) {
    const items = (await api.get('/v1/admin/schedules')).items;
    const act = (s, verb, label) => button(label, (e) => busy(e.currentTarget, el.errors, async () => {
      const result = await api.post(`/v1/admin/schedules/${encodeURIComponent(s.name)}/${verb}`);
      ctx.toast(verb === 'run' ? `Schedule ${s.name}: job ${result.id} enqueued.` : `Schedule ${s.name} ${verb}d.`);
      ctx.refresh();
    }), verb === 'disable' ? 'danger' : 'secondary', { dataset: { key: `${verb}-${s.name}` }, 'aria-label': `${label} ${s.name}` });
    refill(el.region, items.length ? table('Recurring schedules', ['Schedule', 'Kind', 'Rule', 'Last run', 'Next run', ''], items.map((s) =>
      h('tr', {},
        h('th', { scope: 'row' }, s.name, s.enabled ? null : h('span', { class: 'badge badge-warn', text: 'disabled' })),
        h('td', { text: `${s.kind} (${s.queue})` }),
        h('td', { text: s.cron ? `${s.cron} ${s.timeZone}` : `every ${s.intervalSeconds} s` }),
        h('td', {}, s.lastRunAt ? `${ago(s.lastRunAt)} ` : '—', s.lastJobState ? badge(s.lastJobState) : null,
          s.lastJobId ? h('small', { class: 'muted', text: ` job ${s.lastJobId}` }) : null,
          s.lastError ? h('div', { class: 'error-text', text: s.lastError }) : null),
        h('td', { text: s.enabled && s.nextRunAt ? `${ago(s.nextRunAt)} (${when(s.nextRunAt)})` : '—' }),
        h('td', {}, h('div', { class: 'actions tight' }, act(s, 'run', 'Run now'), s.enabled ? act(s, 'disable', 'Disable') : act(s, 'enable', 'Enable')))))) :
      h('p', { class: 'muted', text: 'No recurring schedule.' }));
  },
};

// Gradebook sources ------------------------------------------------------------------------------
const KNOWN_SOURCE_FIELDS = ['id', 'name', 'kind', 'baseUrl', 'authStyle', 'pollIntervalSeconds', 'maxConcurrency', 'requestsPerMinute', 'development'];

function describe(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') {
    return Object.entries(value).map(([k, v]) => `${k}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : /At$/.test(k) && v ? `${when(v)}` : String(v)}`).join(' · ');
  }
  return String(value);
}

const sourcesPanel = {
  id: 'sources',
  title: 'Gradebook sources',
  mount(el) {
    el.region = h('div', { class: 'region' });
    append(el, [panelHeading(this.id, this.title), el.region]);
  },
  async refresh(el) {
    const items = (await api.get('/v1/admin/gradebook/sources')).items;
    refill(el.region, items.length ? h('ul', { class: 'plain-list sources' }, items.map((s) => {
      const extra = Object.keys(s).filter((k) => !KNOWN_SOURCE_FIELDS.includes(k));
      return h('li', {},
        h('p', {}, h('strong', { text: `${s.id} · ${s.name}` }), ` ${s.kind}`, s.development ? h('span', { class: 'badge badge-warn', text: 'development' }) : null),
        h('p', { class: 'muted break', text: s.baseUrl }),
        h('p', { text: `Polls every ${s.pollIntervalSeconds} s · at most ${s.maxConcurrency} at once · ${s.requestsPerMinute} requests a minute` }),
        extra.length ? h('dl', { class: 'facts' }, extra.flatMap((k) => [h('dt', { text: k }), h('dd', { text: describe(s[k]) })])) :
          h('p', { class: 'muted', text: 'No poll health reported for this source.' }));
    })) : h('p', { class: 'muted', text: 'No gradebook source.' }));
  },
};

// Deliveries -------------------------------------------------------------------------------------
const deliveriesPanel = {
  id: 'deliveries',
  title: 'Push deliveries',
  state: '',
  mount(el, ctx) {
    const select = h('select', { name: 'state', id: 'delivery-state' }, [['', 'Every state'], ['pending', 'Pending'], ['delivered', 'Delivered'], ['discarded', 'Discarded'], ['failed', 'Failed']]
      .map(([v, l]) => h('option', { value: v }, l)));
    select.addEventListener('change', () => { this.state = select.value; this.refresh(el, ctx); });
    el.region = h('div', { class: 'region' });
    append(el, [panelHeading(this.id, this.title, h('span', { class: 'field inline' }, h('label', { for: 'delivery-state', text: 'Show' }), select)), el.region]);
  },
  async refresh(el) {
    const outbox = await api.get('/v1/admin/push/notifications', { state: this.state, limit: 25 });
    const c = outbox.counts ?? {};
    refill(el.region,
      h('ul', { class: 'stats' }, ['pending', 'delivered', 'discarded', 'failed'].map((s) => h('li', { class: `stat state-${s}` }, h('span', { class: 'stat-value', text: String(c[s] ?? 0) }), h('span', { text: s })))),
      outbox.items.length ? table('Push deliveries', ['Created', 'Device', 'Category', 'Title', 'State', 'Attempts', 'Outcome'], outbox.items.map((n) =>
        h('tr', {},
          h('td', { text: when(n.createdAt) }), h('td', { text: String(n.deviceId) }), h('td', { text: n.category }), h('td', { text: n.title }),
          h('td', {}, badge(n.state)), h('td', { text: String(n.attempts) }),
          h('td', { text: n.deliveredAt ? `delivered ${when(n.deliveredAt)}` : (n.lastError ?? '—') })))) :
        h('p', { class: 'muted', text: 'No notification.' }));
  },
};

// Health -----------------------------------------------------------------------------------------
const healthPanel = {
  id: 'health',
  title: 'Health and metrics',
  mount(el) {
    const slot = errorSlot();
    const result = h('pre', { class: 'code', id: 'deep-result', hidden: true });
    append(el, [panelHeading(this.id, this.title),
      h('ul', { class: 'plain-list links' },
        h('li', {}, h('a', { href: '/metrics', target: '_blank', rel: 'noopener' }, 'Prometheus metrics (/metrics)'), h('small', { class: 'muted', text: ' needs the metrics token when one is set' })),
        h('li', {}, h('a', { href: '/readyz?deep=1', target: '_blank', rel: 'noopener' }, 'Deep readiness check (/readyz?deep=1)'), h('small', { class: 'muted', text: ' needs an admin token: use the button to run it signed in' })),
        h('li', {}, h('a', { href: '/healthz', target: '_blank', rel: 'noopener' }, 'Liveness (/healthz)')),
        h('li', {}, h('a', { href: '/openapi.yaml', target: '_blank', rel: 'noopener' }, 'API description (/openapi.yaml)'))),
      h('div', { class: 'actions' }, button('Run the deep readiness check', (e) => busy(e.currentTarget, slot, async () => {
        const response = await api.call('GET', '/readyz', { query: { deep: 1 }, raw: true }).catch((error) => {
          if (error.status === 503 && error.problem) return { json: async () => error.problem };
          throw error;
        });
        result.textContent = JSON.stringify(await response.json(), null, 2);
        result.hidden = false;
      }), 'secondary', { id: 'deep-check' })),
      result, slot]);
  },
  async refresh() {},
};

// The registration eligibility panel (admin-eligibility.js) loads on demand: its refresh is a no-op.
export const panels = [queuesPanel, jobsPanel, schedulesPanel, sourcesPanel, deliveriesPanel, eligibilityPanel, healthPanel];
