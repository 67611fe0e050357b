// The operator console's panels. Each mounts once (its controls) and refreshes its data region
// in place; focus inside a refreshed region returns to the control with the same key.
import { h, append, errorSlot, busy, button, when, ago } from './dom.js';
import { JOB_STATES, refill, badge, table, panelHeading } from './admin-common.js';
import * as api from './api.js';
import { eligibilityPanel } from './admin-eligibility.js';

// Queues -----------------------------------------------------------------------------------------
// Each queue's concurrency (jobs one instance runs at once, set for every instance) is a number
// field with Save; what is being typed survives the refresh every few seconds (`drafts`).
const queuesPanel = {
  id: 'queues',
  title: 'Queues',
  drafts: new Map(),
  mount(el, ctx) {
    el.region = h('div', { class: 'region' });
    el.errors = errorSlot();
    append(el, [panelHeading(this.id, this.title, ctx), el.errors, el.region]);
  },
  async refresh(el, ctx) {
    const queues = (await api.get('/v1/admin/queues')).items;
    const rows = queues.map((q) => {
      // The states with jobs in them (every state has 0 otherwise).
      const counts = JOB_STATES.filter((s) => q.counts?.[s]).map((s) => `${s} ${q.counts[s]}`).join(' · ') || 'no job';
      const toggle = !ctx.canAct ? null : q.paused
        ? button('Resume', (e) => busy(e.currentTarget, el.errors, async () => { await api.post(`/v1/admin/queues/${encodeURIComponent(q.name)}/resume`); ctx.toast(`Queue ${q.name} resumed.`); ctx.refresh(); }), 'secondary', { dataset: { key: `queue-${q.name}` }, 'aria-label': `Resume queue ${q.name}` })
        : button('Pause', (e) => busy(e.currentTarget, el.errors, async () => { await api.post(`/v1/admin/queues/${encodeURIComponent(q.name)}/pause`); ctx.toast(`Queue ${q.name} paused.`); ctx.refresh(); }), 'secondary', { dataset: { key: `queue-${q.name}` }, 'aria-label': `Pause queue ${q.name}` });
      const instances = q.instances ?? [];
      return h('tr', { dataset: { queue: q.name } },
        h('th', { scope: 'row' }, q.name, q.paused ? h('span', { class: 'badge badge-warn', text: 'paused' }) : h('span', { class: 'badge badge-ok', text: 'running' }),
          q.unworked ? h('span', { class: 'badge badge-bad', text: 'unworked' }) : null),
        h('td', { text: `${q.running} / ${q.limit ?? '—'}` }),
        h('td', { class: 'concurrency' }, this.concurrencyControl(q, el, ctx)),
        h('td', { class: 'per-instance' }, instances.length
          ? h('ul', { class: 'plain-list compact' }, instances.map((i) => h('li', { dataset: { instance: i.instance } },
            h('span', { class: 'break', text: `${i.host}:${i.pid}` }), ` · ${i.concurrency} at once · ${i.running} running`)))
          : h('span', { class: 'muted', text: 'no live instance' })),
        h('td', { class: 'counts', text: counts }),
        h('td', { text: `${Number(q.latencySeconds ?? 0).toFixed(1)} s` }),
        h('td', { text: `${q.completedLastHour} ok · ${q.failedLastHour} failed` }),
        h('td', { text: `${q.completedLastDay} ok · ${q.failedLastDay} failed` }),
        h('td', {}, toggle));
    });
    refill(el.region, queues.length
      ? table('Queues', ['Queue', 'Running / limit', 'Concurrency', 'Per instance', 'Jobs by state', 'Latency', 'Last hour', 'Last day', { text: 'Actions', hidden: true }], rows, { id: 'queues-table' })
      : h('p', { class: 'muted', text: 'No queue yet.' }));
  },
  concurrencyControl(q, el, ctx) {
    const setting = q.concurrency === null || q.concurrency === undefined
      ? 'Each instance runs its configured number.' : `Set to ${q.concurrency} on every instance.`;
    if (!ctx.canAct) return h('span', { text: q.concurrency ?? `${q.limit ?? '—'} (configured)` });
    const id = `concurrency-${q.name}`;
    const current = q.concurrency ?? q.limit ?? '';
    const input = h('input', { type: 'number', id, name: 'concurrency', min: 1, max: 256, step: 1, required: true, inputmode: 'numeric',
      value: this.drafts.has(q.name) ? this.drafts.get(q.name) : String(current), 'aria-describedby': `${id}-hint`, dataset: { key: `concurrency-${q.name}` } });
    input.addEventListener('input', () => this.drafts.set(q.name, input.value));
    const slot = errorSlot();
    const save = h('button', { type: 'submit', class: 'btn btn-secondary', dataset: { key: `concurrency-save-${q.name}` }, 'aria-label': `Save the concurrency of queue ${q.name}` }, 'Save');
    const form = h('form', { class: 'concurrency-form', dataset: { queue: q.name }, novalidate: true },
      h('div', { class: 'row row-end' },
        h('div', { class: 'field' }, h('label', { for: id }, 'Jobs at once', h('span', { class: 'visually-hidden', text: ` per instance in queue ${q.name}` })), input),
        h('div', { class: 'field' }, save)),
      h('small', { class: 'hint', id: `${id}-hint`, text: `1 to 256. ${setting}` }),
      q.concurrency !== null && q.concurrency !== undefined
        ? button('Use each instance’s own', (e) => this.saveConcurrency(q, null, e.currentTarget, slot, el, ctx), 'link', { dataset: { key: `concurrency-reset-${q.name}` }, 'aria-label': `Give each instance its configured concurrency in queue ${q.name}` })
        : null,
      slot);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = Number(input.value);
      if (!Number.isInteger(value) || value < 1 || value > 256) {
        input.setAttribute('aria-invalid', 'true');
        slot.replaceChildren(h('p', { class: 'problem', text: 'Enter a whole number from 1 to 256.' }));
        input.focus();
        return;
      }
      this.saveConcurrency(q, value, save, slot, el, ctx);
    });
    return form;
  },
  async saveConcurrency(q, value, control, slot, el, ctx) {
    const updated = await busy(control, slot, () => api.patch(`/v1/admin/queues/${encodeURIComponent(q.name)}`, { concurrency: value }));
    if (!updated) return;
    this.drafts.delete(q.name);
    ctx.toast(value === null ? `Queue ${q.name}: each instance runs its configured number again.` : `Queue ${q.name}: ${value} jobs at once on every instance.`);
    await this.refresh(el, ctx).catch(() => {});
  },
};

// Schedules --------------------------------------------------------------------------------------
const schedulesPanel = {
  id: 'schedules',
  title: 'Recurring schedules',
  mount(el, ctx) {
    el.errors = errorSlot();
    el.region = h('div', { class: 'region' });
    append(el, [panelHeading(this.id, this.title, ctx), el.errors, el.region]);
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
        h('td', {}, ctx.canAct ? h('div', { class: 'actions tight' }, act(s, 'run', 'Run now'), s.enabled ? act(s, 'disable', 'Disable') : act(s, 'enable', 'Enable')) : null)))) :
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
  mount(el, ctx) {
    el.region = h('div', { class: 'region' });
    append(el, [panelHeading(this.id, this.title, ctx), el.region]);
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
    append(el, [panelHeading(this.id, this.title, ctx, h('span', { class: 'field inline' }, h('label', { for: 'delivery-state', text: 'Show' }), select)), el.region]);
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
  mount(el, ctx) {
    const slot = errorSlot();
    const result = h('pre', { class: 'code', id: 'deep-result', hidden: true });
    append(el, [panelHeading(this.id, this.title, ctx),
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
// `adminOnly`: panels with student data or admin routes, which an operator does not see.
sourcesPanel.adminOnly = true;
deliveriesPanel.adminOnly = true;
eligibilityPanel.adminOnly = true;
export { queuesPanel, schedulesPanel, sourcesPanel, deliveriesPanel, eligibilityPanel, healthPanel };
