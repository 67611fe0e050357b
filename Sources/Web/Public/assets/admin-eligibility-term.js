// The eligibility panel's term part: a term's registration windows (view, replace), a course's
// requirements in it (load, save) and the prerequisite exceptions a posted grade left. JSON text
// areas hold what the API takes, in its own shape.
import { h, replace, field, errorSlot, busy, button, when, scrollRegion } from './dom.js';
import * as api from './api.js';

/** An error shown like the API's problems: `title`, `detail`, and the form field it names (marked invalid). */
export function fieldProblem(title, detail, name) {
  return Object.assign(new Error(detail), { problem: { title, detail, invalidFields: [name] } });
}

/** Parses the JSON in `input` (a textarea); throws a problem naming it when it is not JSON. */
export function parseJSON(input, what) {
  try {
    return JSON.parse(input.value.trim() || 'null');
  } catch (error) {
    throw fieldProblem('Not valid JSON', `${what} is not valid JSON: ${error.message}`, input.name);
  }
}

/** A datetime-local value as RFC 3339 in UTC, whole seconds (the API reads no fractions). */
export function rfc3339(localValue) {
  const date = new Date(localValue);
  if (Number.isNaN(date.getTime())) return localValue;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Who changed something last and when, or `none`. */
export function changedText(value, none) {
  return value?.updatedAt ? `Last changed by account ${value.updatedBy ?? '—'}, ${when(value.updatedAt)}.` : none;
}

/** A prerequisite expression in words: "CS 440 (C or better) and (MATH 245 or MATH 254)". */
export function requisiteText(requisite) {
  if (!requisite || typeof requisite !== 'object') return String(requisite ?? '—');
  const part = (r) => (r && (r.all || r.any) ? `(${requisiteText(r)})` : requisiteText(r));
  if (requisite.course) return requisite.minGrade ? `${requisite.course} (${requisite.minGrade} or better)` : requisite.course;
  if (Array.isArray(requisite.all)) return requisite.all.map(part).join(' and ');
  if (Array.isArray(requisite.any)) return requisite.any.map(part).join(' or ');
  return JSON.stringify(requisite);
}

/** The term part of the panel: a term chooser, then windows, requirements and exceptions. */
export function termSection(ctx) {
  const terms = h('datalist', { id: 'elig-terms' });
  const term = field('Term', h('input', { name: 'term', id: 'elig-term', list: 'elig-terms', autocomplete: 'off', required: true, maxlength: 64 }),
    'A term id, e.g. 2018-fall.');
  api.get('/v1/terms').then((page) => {
    const items = page.items ?? [];
    replace(terms, items.map((t) => h('option', { value: t.id }, t.name || t.id)));
    if (!term.input.value && items.length) term.input.value = items[items.length - 1].id;
  }).catch(() => {});
  const chosenTerm = () => {
    const value = term.input.value.trim();
    if (!value) {
      term.input.setAttribute('aria-invalid', 'true');
      throw new Error('Enter a term first.');
    }
    term.input.removeAttribute('aria-invalid');
    return value;
  };
  return h('section', { class: 'sub-card', id: 'elig-term-section', 'aria-labelledby': 'elig-term-heading' },
    h('h3', { id: 'elig-term-heading', text: 'A term' }),
    h('div', { class: 'row row-end' }, term.wrap), terms,
    windowsForm(chosenTerm, ctx),
    requirementsForm(chosenTerm, ctx),
    exceptionsBlock(chosenTerm));
}

function windowsForm(chosenTerm, ctx) {
  const windows = field('Registration windows (JSON array)', h('textarea', { name: 'windows', rows: 6, spellcheck: 'false' }),
    'Each {"standing": "senior"} or {"accountIds": [12]} or neither (everyone else), with "opensAt" and an optional "closesAt" (RFC 3339). [] opens the term to every student.');
  const meta = h('p', { class: 'muted', id: 'elig-windows-meta' });
  const slot = errorSlot();
  const show = (answer) => {
    windows.input.value = JSON.stringify(answer.windows ?? [], null, 2);
    meta.textContent = `${answer.windows?.length ?? 0} window${answer.windows?.length === 1 ? '' : 's'} in ${answer.term}. ${changedText(answer, 'Never set: the term is open to every student.')}`;
  };
  const load = button('Load windows', (e) => busy(e.currentTarget, slot, async () => {
    show(await api.get(`/v1/admin/terms/${encodeURIComponent(chosenTerm())}/registration-windows`));
  }, form), 'secondary', { id: 'elig-windows-load' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: 'elig-windows-save' }, 'Replace windows');
  const form = h('form', { id: 'elig-windows-form', novalidate: true, 'aria-labelledby': 'elig-windows-title' },
    h('h4', { id: 'elig-windows-title', text: 'Registration windows' }), windows.wrap, meta, slot, h('div', { class: 'actions' }, load, submit));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const saved = await busy(submit, slot, () => {
      const termId = chosenTerm();
      const value = parseJSON(windows.input, 'The windows');
      if (!Array.isArray(value)) throw fieldProblem('Not a list of windows', 'The windows must be a JSON array (an empty one opens the term to every student).', 'windows');
      return api.put(`/v1/admin/terms/${encodeURIComponent(termId)}/registration-windows`, { windows: value });
    }, form);
    if (saved) {
      show(saved);
      ctx.toast(`Registration windows of ${saved.term} replaced.`);
    }
  });
  return form;
}

const REQUIREMENT_KEYS = ['prerequisites', 'corequisites', 'restrictions'];

function requirementsForm(chosenTerm, ctx) {
  const course = field('Course', h('input', { name: 'course', maxlength: 40, autocomplete: 'off', placeholder: 'e.g. CS 596' }));
  const requirements = field('Requirements (JSON)', h('textarea', { name: 'requirements', rows: 6, spellcheck: 'false' }),
    '{"prerequisites": {"all": [{"course": "CS 440", "minGrade": "C"}, {"any": [{"course": "MATH 245"}]}]}, "corequisites": ["CS 540L"], "restrictions": {"levels": [...], "standings": ["senior"], "majors": ["CS"]}}; {} clears them.');
  const meta = h('p', { class: 'muted', id: 'elig-req-meta' });
  const slot = errorSlot();
  const chosenCourse = () => {
    const value = course.input.value.trim().replace(/\s+/g, ' ');
    if (!value) throw fieldProblem('No course', 'Enter a course, e.g. CS 596.', 'course');
    return value;
  };
  const show = (answer) => {
    const shown = {};
    for (const key of REQUIREMENT_KEYS) if (answer[key] !== undefined && answer[key] !== null) shown[key] = answer[key];
    requirements.input.value = JSON.stringify(shown, null, 2);
    const summary = answer.prerequisites ? ` Prerequisites: ${requisiteText(answer.prerequisites)}.` : '';
    meta.textContent = `${answer.course} in ${answer.term}.${summary} ${changedText(answer, 'No requirements set.')}`;
  };
  const load = button('Load requirements', (e) => busy(e.currentTarget, slot, async () => {
    show(await api.get('/v1/admin/registration/requirements', { term: chosenTerm(), course: chosenCourse() }));
  }, form), 'secondary', { id: 'elig-req-load' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: 'elig-req-save' }, 'Save requirements');
  const form = h('form', { id: 'elig-req-form', novalidate: true, 'aria-labelledby': 'elig-req-title' },
    h('h4', { id: 'elig-req-title', text: 'Course requirements' }), course.wrap, requirements.wrap, meta, slot, h('div', { class: 'actions' }, load, submit));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const saved = await busy(submit, slot, () => {
      const body = { term: chosenTerm(), course: chosenCourse() };
      const value = parseJSON(requirements.input, 'The requirements') ?? {};
      if (typeof value !== 'object' || Array.isArray(value)) throw fieldProblem('Not requirements', 'The requirements must be a JSON object ({} clears them).', 'requirements');
      for (const key of REQUIREMENT_KEYS) if (value[key] !== undefined) body[key] = value[key];
      return api.put('/v1/admin/registration/requirements', body);
    }, form);
    if (saved) {
      show(saved);
      ctx.toast(`Requirements of ${saved.course} in ${saved.term} saved.`);
    }
  });
  return form;
}

function exceptionsBlock(chosenTerm) {
  const slot = errorSlot();
  const region = h('div', { class: 'region', id: 'elig-exceptions' });
  const show = button('Show prerequisite exceptions', (e) => busy(e.currentTarget, slot, async () => {
    const termId = chosenTerm();
    const items = (await api.get('/v1/admin/registration/prerequisite-exceptions', { term: termId })).items ?? [];
    const caption = `Prerequisite exceptions in ${termId}`;
    replace(region, items.length
      ? scrollRegion(h('table', { class: 'data' },
        h('caption', { class: 'visually-hidden', text: caption }),
        h('thead', {}, h('tr', {}, ['Account', 'Class', 'Course', 'Missing', 'Detected'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, items.map((x) => h('tr', { dataset: { accountId: x.accountId, classId: x.classId } },
          h('th', { scope: 'row', text: String(x.accountId) }), h('td', { text: String(x.classId) }), h('td', { text: x.course }),
          h('td', { text: requisiteText(x.missing) }), h('td', { text: when(x.detectedAt) }))))), caption, { className: 'table-scroll' })
      : h('p', { class: 'muted', text: `No prerequisite exception in ${termId}: every enrolled student still meets their classes’ prerequisites.` }));
  }), 'secondary', { id: 'elig-exceptions-show' });
  return h('div', { class: 'elig-block' },
    h('h4', { id: 'elig-exceptions-title', text: 'Prerequisite exceptions' }),
    h('p', { class: 'muted', text: 'Students enrolled in a class whose prerequisite a grade posted since left unmet.' }),
    h('div', { class: 'actions' }, show), slot, region);
}
