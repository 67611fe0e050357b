// The schedule builder: courses, pinned and excluded classes, blocked times, unit limits and
// options (signed in: only classes the student may take) in; ranked schedules out, each with its
// score breakdown and week grid (and a warning when it holds more classes than registration
// allows), or the explanation when nothing fits, and the classes left out as not open to the
// student; save one.
import { h, field, errorSlot, busy, append, replace, button, meetingText, showNote, uid } from './dom.js';
import * as api from './api.js';
import * as session from './session.js';
import * as builderState from './builder-state.js';
import { friendsWeek } from './friends-overlay.js';
import { sectionLists } from './builder-sections.js';
import { classLimitWarning, registrationSettings } from './registration-settings.js';

const WEIGHTS = [
  ['gpa', 'Course GPA', 1], ['rating', 'Instructor rating', 1], ['gaps', 'Few gaps', 0.5],
  ['days', 'Few days on campus', 0.5], ['laterStart', 'Later start', 0.25], ['earlierEnd', 'Earlier end', 0.25],
];

export async function renderBuilder(container, ctx) {
  const [terms, settings] = await Promise.all([
    api.get('/v1/terms').then((r) => r.items).catch(() => []),
    registrationSettings(),
  ]);
  const state = builderState.load();
  if (!state.term && terms.length) state.term = terms[terms.length - 1].id;
  const results = h('section', { class: 'build-results', id: 'build-results', 'aria-labelledby': 'build-results-title' },
    h('h2', { id: 'build-results-title', text: 'Schedules' }),
    h('p', { class: 'muted', text: 'Add courses and build to see ranked schedules here.' }));
  append(container, [
    h('h1', { text: 'Schedule builder' }),
    h('div', { class: 'builder-layout' }, builderForm(state, terms, results, { ...ctx, settings }), results),
  ]);
}

function builderForm(state, terms, results, ctx) {
  const persist = () => builderState.save(state);
  const termInput = terms.length
    ? h('select', { name: 'term' }, terms.map((t) => h('option', { value: t.id, selected: t.id === state.term }, t.name || t.id)))
    : h('input', { name: 'term', value: state.term, required: true });
  termInput.addEventListener('change', () => { state.term = termInput.value; persist(); });
  const term = field('Term', termInput);

  // Courses
  const courseList = h('ul', { class: 'chip-list', id: 'builder-courses', 'aria-label': 'Courses to place' });
  const renderCourses = () => {
    replace(courseList, state.courses.length ? state.courses.map((c, i) => {
      const optId = uid('opt');
      const optional = h('input', { type: 'checkbox', id: optId, checked: c.optional });
      optional.addEventListener('change', () => { c.optional = optional.checked; persist(); });
      return h('li', { class: 'chip' },
        h('span', { class: 'course', text: c.course }),
        h('span', { class: 'field-check' }, optional, h('label', { for: optId, text: 'optional' })),
        button('Remove', () => { state.courses.splice(i, 1); persist(); renderCourses(); }, 'link', { 'aria-label': `Remove ${c.course}` }));
    }) : h('li', { class: 'muted', text: 'No course yet.' }));
  };
  renderCourses();
  const courseInput = h('input', { name: 'courses', placeholder: 'e.g. CS 540', autocomplete: 'off' });
  const addCourse = () => {
    const value = courseInput.value.trim().replace(/\s+/g, ' ');
    if (!value) return;
    if (!state.courses.some((c) => c.course.toUpperCase() === value.toUpperCase())) state.courses.push({ course: value, optional: false });
    courseInput.value = '';
    persist();
    renderCourses();
    courseInput.focus();
  };
  courseInput.addEventListener('keydown', (event) => { if (event.key === 'Enter') { event.preventDefault(); addCourse(); } });
  const courseField = field('Add a course', courseInput, 'Subject and number; press Enter to add. Or use “Add course to builder” in the catalog.');
  const addCourseButton = button('Add course', addCourse, 'secondary', { id: 'add-course' });

  // Blocked times
  const blockedList = h('ul', { class: 'plain-list', id: 'builder-blocked', 'aria-label': 'Blocked times' });
  const renderBlocked = () => {
    replace(blockedList, state.blocked.map((b, i) => {
      const days = field('Days', h('input', { name: `blocked`, value: b.days, placeholder: 'MWF', size: 6 }));
      const start = field('From', h('input', { type: 'time', value: b.start ?? '' }));
      const end = field('To', h('input', { type: 'time', value: b.end ?? '' }));
      days.input.addEventListener('change', () => { b.days = days.input.value.trim(); persist(); });
      start.input.addEventListener('change', () => { b.start = start.input.value; persist(); });
      end.input.addEventListener('change', () => { b.end = end.input.value; persist(); });
      return h('li', { class: 'row blocked-row' }, days.wrap, start.wrap, end.wrap,
        button('Remove', () => { state.blocked.splice(i, 1); persist(); renderBlocked(); }, 'link', { 'aria-label': `Remove blocked time ${i + 1}` }));
    }));
  };
  renderBlocked();

  const openOnly = field('Only sections with an open seat', h('input', { type: 'checkbox', name: 'openSeatsOnly', checked: state.openSeatsOnly }));
  openOnly.input.addEventListener('change', () => { state.openSeatsOnly = openOnly.input.checked; persist(); });
  // Signed in only: the build asks the registration's rules about this student.
  const eligibleOnly = session.token()
    ? field('Only classes I can take', h('input', { type: 'checkbox', name: 'eligibleOnly', id: 'builder-eligible-only', checked: Boolean(state.eligibleOnly) }),
      'Leaves out sections your holds, window, prerequisites or restrictions keep you from.')
    : null;
  eligibleOnly?.input.addEventListener('change', () => { state.eligibleOnly = eligibleOnly.input.checked; persist(); });
  const sections = sectionLists(state, persist);
  ctx = { ...ctx, pinOrExclude: sections.add };
  const unitInput = (name) => {
    const input = h('input', { type: 'number', name, min: 0, max: 100, step: 0.5, inputmode: 'decimal', value: state[name] ?? '' });
    input.addEventListener('change', () => { state[name] = input.value; persist(); });
    return input;
  };
  const minUnits = field('At least this many units', unitInput('minUnits'));
  const maxUnits = field('At most this many units', unitInput('maxUnits'));
  const limitHint = ctx.settings?.classLimit
    ? h('p', { class: 'hint', id: 'builder-class-limit', text: `Registration allows ${ctx.settings.classLimit} classes per term; schedules holding more are marked.` })
    : null;
  const maxCourses = field('At most this many courses', h('input', { type: 'number', name: 'maxCourses', min: 1, max: 15, inputmode: 'numeric' }), 'Leave empty to place every course.');
  const limit = field('Schedules to show', h('input', { type: 'number', name: 'limit', min: 1, max: 50, value: 5, inputmode: 'numeric' }));
  const weightInputs = WEIGHTS.map(([key, label, value]) => field(label, h('input', { type: 'number', name: `weights.${key}`, min: 0, max: 100, step: 0.25, value, dataset: { weight: key } })));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: 'build-submit' }, 'Build schedules');
  const form = h('form', { class: 'card', id: 'builder-form', novalidate: true, 'aria-label': 'Schedule request' },
    term.wrap,
    h('fieldset', {}, h('legend', { text: 'Courses' }), courseList, h('div', { class: 'row row-end' }, courseField.wrap, addCourseButton)),
    sections.element,
    h('fieldset', {}, h('legend', { text: 'Keep these times free' }), blockedList,
      button('Add blocked time', () => { state.blocked.push({ days: '', start: '', end: '' }); persist(); renderBlocked(); blockedList.querySelector('li:last-child input')?.focus(); }, 'secondary')),
    h('fieldset', {}, h('legend', { text: 'Options' }), openOnly.wrap, eligibleOnly?.wrap, h('div', { class: 'row' }, minUnits.wrap, maxUnits.wrap),
      h('div', { class: 'row' }, maxCourses.wrap, limit.wrap), limitHint),
    h('details', {}, h('summary', { text: 'Ranking weights' }), h('div', { class: 'weights' }, weightInputs.map((w) => w.wrap))),
    slot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (courseInput.value.trim()) addCourse();
    state.term = termInput.value.trim();
    persist();
    const request = {
      term: state.term,
      courses: state.courses.map((c) => (c.optional ? { course: c.course, optional: true } : c.course)),
      // A row with days only blocks whole days; a time given alone is sent as it is, so the
      // API names what is missing rather than the page guessing.
      blocked: state.blocked.filter((b) => b.days || b.start || b.end).map((b) => {
        const block = { days: b.days };
        if (b.start) block.start = b.start;
        if (b.end) block.end = b.end;
        return block;
      }),
      openSeatsOnly: state.openSeatsOnly,
      limit: Number(limit.input.value) || 5,
    };
    if (state.pinned.length) request.pinned = state.pinned.map((entry) => entry.id);
    if (state.excluded.length) request.excluded = state.excluded.map((entry) => entry.id);
    if (minUnits.input.value !== '') request.minUnits = Number(minUnits.input.value);
    if (maxUnits.input.value !== '') request.maxUnits = Number(maxUnits.input.value);
    if (maxCourses.input.value) request.maxCourses = Number(maxCourses.input.value);
    const weights = {};
    for (const w of weightInputs) if (w.input.value !== '') weights[w.input.dataset.weight] = Number(w.input.value);
    request.weights = weights;
    // Only a build that asks about the student's eligibility carries the session's token.
    const asStudent = Boolean(eligibleOnly?.input.checked && session.token());
    if (asStudent) request.eligibleOnly = true;
    const build = await busy(submit, slot, () => api.post('/v1/scheduling/builds', request, asStudent ? {} : { auth: false }), form);
    if (build) showResults(results, build, ctx);
  });
  return form;
}

function showResults(results, build, ctx) {
  const summary = build.schedules.length
    ? `${build.count}${build.countIsExact ? '' : '+'} schedules fit with ${build.courseCount} course${build.courseCount === 1 ? '' : 's'}; the best ${build.schedules.length} ${build.rankingIsExact ? '' : '(found within the search budget) '}are below.`
    : 'No schedule fits.';
  replace(results,
    h('h2', { id: 'build-results-title', tabindex: '-1', text: 'Schedules' }),
    h('p', { class: 'lead', id: 'build-summary', role: 'status', text: summary }),
    build.explanation ? explanation(build.explanation) : null,
    Array.isArray(build.excluded) ? excludedList(build.excluded) : null,
    h('ol', { class: 'schedule-list' }, build.schedules.map((s, i) => h('li', {}, scheduleCard(build.term, s, i === 0, ctx)))));
  results.querySelector('h2').focus();
}

function explanation(expl) {
  return h('div', { class: 'card explanation', id: 'build-explanation' },
    h('h3', { text: 'Why nothing fits' }),
    h('p', { text: expl.message }),
    expl.courses?.length ? h('p', { text: `Courses: ${expl.courses.join(', ')}` }) : null,
    expl.constraints?.length ? h('ul', {}, expl.constraints.map((c) => h('li', { text: c.description }))) : null,
    h('p', { class: 'muted', text: 'Remove a course, mark one optional, or relax a constraint and build again.' }));
}

/** The sections an "only classes I can take" build left out, each with the rules that refuse it. */
function excludedList(excluded) {
  return h('div', { class: 'card', id: 'build-excluded' },
    h('h3', { text: 'Left out: classes you cannot take' }),
    excluded.length
      ? h('ul', { class: 'plain-list compact' }, excluded.map((entry) => h('li', { dataset: { classId: entry.classId } },
        h('strong', { text: `Class ${entry.classId}` }), `: ${(entry.rules ?? []).join(', ') || 'not open to you'}`)))
      : h('p', { class: 'muted', text: 'No section was left out: the registration rules let you take each one.' }));
}

function scheduleCard(term, schedule, open, ctx) {
  const label = (s) => `${s.course}${s.component ? ` ${s.component}` : ''}-${s.section}`;
  const components = schedule.breakdown?.components ?? {};
  const breakdown = h('table', { class: 'breakdown' },
    h('caption', { text: 'Score breakdown (points)' }),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Component' }), h('th', { scope: 'col', text: 'Points' }))),
    h('tbody', {}, WEIGHTS.map(([key, name]) => h('tr', {}, h('th', { scope: 'row', text: name }), h('td', { text: (components[key] ?? 0).toFixed(2) })))));
  const courses = (schedule.breakdown?.courses ?? []).map((c) =>
    h('li', { text: `${c.course}: GPA ${c.averageGPA.toFixed(2)}${c.averageGPAIsMedian ? ' (median)' : ''}, rating ${c.instructorRating.toFixed(2)}${c.instructorRatingIsMedian ? ' (median)' : ''} → ${c.points.toFixed(2)} points` }));
  const sections = h('ul', { class: 'plain-list sections' }, schedule.sections.map((s) =>
    h('li', { dataset: { classId: s.classId } },
      h('strong', { text: label(s) }), ` · class ${s.classId} · ${(s.instructors || []).join(', ') || 'Staff'} · ${s.openSeats} open`,
      ctx.pinOrExclude ? h('span', { class: 'section-actions' },
        button('Pin', () => { ctx.pinOrExclude('pinned', s.classId, label(s)); ctx.toast(`${label(s)} is pinned: build again to apply.`); }, 'secondary',
          { 'aria-label': `Pin ${label(s)} (class ${s.classId}) in every schedule`, dataset: { action: 'pin' } }),
        button('Exclude', () => { ctx.pinOrExclude('excluded', s.classId, label(s)); ctx.toast(`${label(s)} is excluded: build again to apply.`); }, 'secondary',
          { 'aria-label': `Exclude ${label(s)} (class ${s.classId}) from schedules`, dataset: { action: 'exclude' } })) : null,
      h('ul', { class: 'meetings' }, (s.meetings || []).map((m) => h('li', { text: meetingText(m) }))),
      s.alternatives?.length ? h('small', { class: 'muted', text: `Same times: ${s.alternatives.join(', ')}` }) : null)));
  const grid = friendsWeek(schedule.sections.map((s) => ({ label: label(s), meetings: s.meetings })), `Week grid of schedule ${schedule.rank}`, term, `builder-week-${schedule.rank}`);
  const overLimit = classLimitWarning(schedule.sections.length, ctx.settings);
  return h('details', { class: 'card schedule', open, dataset: { rank: schedule.rank } },
    h('summary', {}, h('span', { class: 'rank', text: `#${schedule.rank}` }), ` Score ${schedule.score.toFixed(1)} · ${schedule.units} units · ${schedule.sections.length} classes`,
      schedule.omitted?.length ? ` · leaves out ${schedule.omitted.join(', ')}` : '',
      overLimit ? h('span', { class: 'badge badge-warn', text: 'over the class limit' }) : null),
    overLimit,
    grid,
    h('div', { class: 'schedule-details' },
      h('div', {}, h('h3', { text: 'Classes' }), sections),
      h('div', {}, breakdown, courses.length ? h('ul', { class: 'course-scores' }, courses) : null)),
    saveForm(term, schedule, ctx));
}

function saveForm(term, schedule, ctx) {
  if (!session.token()) return h('p', {}, h('a', { href: '#/signin' }, 'Sign in'), ' to save this schedule.');
  const name = field('Name', h('input', { name: 'name', maxlength: 100, required: true, value: `Plan ${schedule.rank}` }));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Save schedule');
  const form = h('form', { class: 'save-form row row-end', novalidate: true, 'aria-label': `Save schedule ${schedule.rank}` }, name.wrap, submit, slot);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const saved = await busy(submit, slot, () => api.post('/v1/me/schedules', {
      name: name.input.value.trim(), term, classIds: schedule.sections.map((s) => s.classId),
    }), form);
    if (saved) {
      replace(slot, h('p', { class: 'note' }, `Saved as “${saved.name}”. `, h('a', { href: `#/schedules?id=${saved.id}`, id: 'saved-link' }, 'Open it')));
      ctx.toast('Schedule saved.');
    }
  });
  return form;
}
