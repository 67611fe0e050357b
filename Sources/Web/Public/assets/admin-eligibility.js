// The operator console's registration eligibility panel: a student picked by account id, with
// their academic record (edit), holds (place, lift) and overrides (grant, remove); then a term's
// windows, a course's requirements and the prerequisite exceptions (admin-eligibility-term.js).
// Everything loads when asked: the console's refresh every few seconds leaves what is being
// edited alone.
import { h, append, replace, field, errorSlot, busy, button, when, showError, uid } from './dom.js';
import * as api from './api.js';
import { termSection, parseJSON, changedText, fieldProblem, rfc3339 } from './admin-eligibility-term.js';

const LEVELS = ['undergraduate', 'graduate'];
const STANDINGS = ['freshman', 'sophomore', 'junior', 'senior', 'graduate'];
const BLOCKS = ['add', 'drop'];
const OVERRIDABLE = ['prerequisite', 'corequisite', 'restriction', 'max-units', 'window', 'closed', 'time-conflict'];

export const eligibilityPanel = {
  id: 'eligibility',
  title: 'Registration eligibility',
  mount(el, ctx) {
    append(el, [h('div', { class: 'panel-head' }, h('h2', { id: `${this.id}-title`, text: this.title })),
      studentSection(ctx), termSection(ctx)]);
  },
  async refresh() {},
};

function select(name, values, chosen) {
  return h('select', { name }, values.map((v) => h('option', { value: v, selected: v === chosen }, v)));
}

/** Checkboxes named `name`, one per value, in a fieldset with `legend`. */
function checks(legend, name, values, checked = []) {
  return h('fieldset', { class: 'states' }, h('legend', { text: legend }), values.map((value) => {
    const id = uid(name);
    return h('span', { class: 'day-check' }, h('input', { type: 'checkbox', id, name, value, checked: checked.includes(value) }), h('label', { for: id, text: value }));
  }));
}

// The student -------------------------------------------------------------------------------------

function studentSection(ctx) {
  const accounts = h('datalist', { id: 'elig-accounts' });
  const names = new Map();
  // Suggestions: the first accounts (the demo's come first); any id may be typed.
  api.get('/v1/admin/accounts', { limit: 200 }).then((page) => {
    const students = (page.items ?? []).filter((a) => a.role === 'student');
    for (const a of students) names.set(a.id, a.username);
    replace(accounts, students.map((a) => h('option', { value: a.id }, a.username)));
  }).catch(() => {});
  const accountId = field('Student account id', h('input', { name: 'accountId', type: 'number', min: 1, step: 1, inputmode: 'numeric', list: 'elig-accounts', required: true }),
    'Type an account id or pick a student from the suggestions.');
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: 'elig-student-load' }, 'Load student');
  const region = h('div', { class: 'region', id: 'elig-student' });
  const form = h('form', { id: 'elig-student-form', novalidate: true, 'aria-label': 'Choose a student' },
    h('div', { class: 'row row-end' }, accountId.wrap, submit), accounts, slot);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const raw = accountId.input.value.trim();
    if (!/^[0-9]{1,18}$/.test(raw) || Number(raw) <= 0) {
      showError(slot, fieldProblem('No account id', 'Enter the student’s account id (a number).', 'accountId'), form);
      return;
    }
    const student = { id: Number(raw), name: names.get(Number(raw)), region, slot, ctx };
    await busy(submit, slot, () => loadStudent(student), form);
  });
  return h('section', { class: 'sub-card', id: 'elig-student-section', 'aria-labelledby': 'elig-student-heading' },
    h('h3', { id: 'elig-student-heading', text: 'A student' }), form, region);
}

async function loadStudent(student) {
  const base = `/v1/admin/registration/students/${student.id}`;
  const [record, holds, overrides] = await Promise.all([
    api.get(`${base}/record`).catch((error) => {
      if (error.status === 404) return null;
      throw error;
    }),
    api.get(`${base}/holds`).then((r) => r.items ?? []),
    api.get(`${base}/overrides`).then((r) => r.items ?? []),
  ]);
  // After a change the student is shown again; a failure to read them shows under the chooser.
  const reload = () => loadStudent(student).catch((error) => showError(student.slot, error));
  const context = { base, reload, toast: student.ctx.toast };
  replace(student.region,
    h('p', { class: 'lead', id: 'elig-student-name', dataset: { accountId: student.id } },
      h('strong', { text: `Account ${student.id}` }), student.name ? ` · ${student.name}` : ''),
    recordForm(record, context),
    holdsBlock(holds, context),
    overridesBlock(overrides, context));
}

function recordForm(record, { base, reload, toast }) {
  const level = field('Level', select('level', LEVELS, record?.level ?? 'undergraduate'));
  const standing = field('Standing', select('standing', STANDINGS, record?.standing ?? 'freshman'));
  const majors = field('Majors', h('input', { name: 'majors', value: (record?.majors ?? []).join(', '), autocomplete: 'off' }), 'Comma-separated, e.g. CS, MATH.');
  const maxUnits = field('Unit limit', h('input', { name: 'maxUnits', type: 'number', min: 0.5, max: 100, step: 0.5, inputmode: 'decimal', value: record?.maxUnits ?? '' }),
    'Empty: the term’s limit.');
  const history = field('Course history (JSON)', h('textarea', { name: 'history', rows: 5, spellcheck: 'false' }),
    'An array of {"course": "CS 310", "term": "2018-spring", "grade": "B+"}; grade IP is in progress.');
  history.input.value = JSON.stringify(record?.history ?? [], null, 2);
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: 'elig-record-save' }, record ? 'Save record' : 'Create record');
  const form = h('form', { id: 'elig-record-form', novalidate: true, 'aria-labelledby': 'elig-record-title' },
    h('h4', { id: 'elig-record-title', text: 'Academic record' }),
    h('p', { class: 'muted', id: 'elig-record-meta', text: record ? changedText(record, '') : 'No academic record yet: the student fails any course restriction until one is set.' }),
    h('div', { class: 'row' }, level.wrap, standing.wrap), h('div', { class: 'row' }, majors.wrap, maxUnits.wrap), history.wrap, slot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const saved = await busy(submit, slot, () => {
      const courses = parseJSON(history.input, 'The course history') ?? [];
      if (!Array.isArray(courses)) throw fieldProblem('Not a course history', 'The course history must be a JSON array ([] for none).', 'history');
      const body = {
        level: level.input.value, standing: standing.input.value,
        majors: majors.input.value.split(',').map((m) => m.trim()).filter(Boolean), history: courses,
      };
      if (maxUnits.input.value !== '') body.maxUnits = Number(maxUnits.input.value);
      return api.put(`${base}/record`, body);
    }, form);
    if (saved) {
      toast(`Record of account ${saved.accountId} saved.`);
      await reload();
    }
  });
  return form;
}

function holdsBlock(holds, { base, reload, toast }) {
  const slot = errorSlot();
  const now = Date.now();
  const list = holds.length
    ? h('ul', { class: 'plain-list compact', id: 'elig-holds' }, holds.map((hold) => {
      const expired = hold.until && new Date(hold.until).getTime() <= now;
      return h('li', { dataset: { holdId: hold.id, code: hold.code } },
        h('strong', { text: hold.code }), `: ${hold.reason} · blocks ${(hold.blocks ?? []).join(' and ')}`,
        hold.until ? ` · until ${when(hold.until)}` : '', expired ? h('span', { class: 'badge', text: 'expired' }) : null,
        h('small', { class: 'muted', text: ` · placed ${when(hold.createdAt)} by account ${hold.createdBy ?? '—'}` }), ' ',
        button('Lift', (e) => busy(e.currentTarget, slot, async () => {
          await api.del(`${base}/holds/${hold.id}`);
          toast(`Hold ${hold.code} lifted.`);
          await reload();
        }), 'danger', { 'aria-label': `Lift hold ${hold.code} (hold ${hold.id})`, dataset: { action: 'lift-hold' } }));
    }))
    : h('p', { class: 'muted', id: 'elig-holds', text: 'No hold.' });
  const code = field('Code', h('input', { name: 'code', maxlength: 40, required: true, autocomplete: 'off', placeholder: 'e.g. BURSAR' }));
  const reason = field('Reason', h('input', { name: 'reason', maxlength: 200, required: true, autocomplete: 'off', placeholder: 'shown to the student' }));
  const until = field('Until', h('input', { name: 'until', type: 'datetime-local' }), 'Optional; in your time zone.');
  const formSlot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-secondary', id: 'elig-hold-place' }, 'Place hold');
  const form = h('form', { id: 'elig-hold-form', novalidate: true, 'aria-label': 'Place a hold' },
    h('div', { class: 'row' }, code.wrap, reason.wrap, until.wrap), checks('Blocks', 'blocks', BLOCKS, ['add']), formSlot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const placed = await busy(submit, formSlot, () => {
      const body = { code: code.input.value.trim(), reason: reason.input.value.trim(), blocks: new FormData(form).getAll('blocks') };
      if (until.input.value) body.until = rfc3339(until.input.value);
      return api.post(`${base}/holds`, body);
    }, form);
    if (placed) {
      toast(`Hold ${placed.code} placed.`);
      await reload();
    }
  });
  return h('div', { class: 'elig-block' }, h('h4', { text: 'Holds' }), list, slot,
    h('details', { class: 'elig-add' }, h('summary', { text: 'Place a hold' }), form));
}

function overridesBlock(overrides, { base, reload, toast }) {
  const slot = errorSlot();
  const list = overrides.length
    ? h('ul', { class: 'plain-list compact', id: 'elig-overrides' }, overrides.map((o) => h('li', { dataset: { overrideId: o.id, classId: o.classId } },
      h('strong', { text: `Class ${o.classId}` }), `: past ${(o.rules ?? []).join(', ')}`,
      h('small', { class: 'muted', text: ` · granted ${when(o.createdAt)} by account ${o.createdBy ?? '—'}` }), ' ',
      button('Remove', (e) => busy(e.currentTarget, slot, async () => {
        await api.del(`${base}/overrides/${o.id}`);
        toast(`Override for class ${o.classId} removed.`);
        await reload();
      }), 'danger', { 'aria-label': `Remove the override for class ${o.classId} (override ${o.id})`, dataset: { action: 'remove-override' } }))))
    : h('p', { class: 'muted', id: 'elig-overrides', text: 'No override.' });
  const classId = field('Class id', h('input', { name: 'classId', type: 'number', min: 1, step: 1, inputmode: 'numeric', required: true, placeholder: 'e.g. 7055' }));
  const formSlot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-secondary', id: 'elig-override-grant' }, 'Grant override');
  const form = h('form', { id: 'elig-override-form', novalidate: true, 'aria-label': 'Grant an override' },
    h('div', { class: 'row' }, classId.wrap), checks('Let the student past', 'rules', OVERRIDABLE), formSlot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const granted = await busy(submit, formSlot, () => api.post(`${base}/overrides`, {
      classId: Number(classId.input.value), rules: new FormData(form).getAll('rules'),
    }), form);
    if (granted) {
      toast(`Override for class ${granted.classId} granted.`);
      await reload();
    }
  });
  return h('div', { class: 'elig-block' }, h('h4', { text: 'Overrides' }),
    h('p', { class: 'muted', text: 'Instructor or department permission for one class. Holds cannot be overridden: lift them.' }), list, slot,
    h('details', { class: 'elig-add' }, h('summary', { text: 'Grant an override' }), form));
}
