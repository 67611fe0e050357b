// Registration eligibility for the student: a card per term with the holds in force, the
// registration window, standing, units against the limit and overrides
// (GET /v1/me/registration/eligibility), and the catalog's dry run for one class
// (POST /v1/me/registration/check).
import { h, append, when, showNote, showError } from './dom.js';
import * as api from './api.js';

// The newest few terms get a card each.
const MAX_TERMS = 3;
const STANDINGS = { freshman: 'Freshman', sophomore: 'Sophomore', junior: 'Junior', senior: 'Senior', graduate: 'Graduate' };
const APPLIES_BY = {
  account: 'the window set for your account',
  standing: 'the window for your standing',
  everyone: 'the window for every student',
};

/** The cards, one per term (at most the newest three); a short muted note when they cannot be read. */
export async function eligibilitySection() {
  try {
    const terms = (await api.get('/v1/terms')).items ?? [];
    const shown = terms.slice(-MAX_TERMS);
    const statuses = await Promise.all(shown.map((t) => api.get('/v1/me/registration/eligibility', { term: t.id })));
    return statuses.map((status, i) => eligibilityCard(status, shown[i], i));
  } catch {
    return h('p', { class: 'muted', id: 'eligibility-unavailable', text: 'Registration eligibility cannot be shown right now.' });
  }
}

function eligibilityCard(status, term, index) {
  const titleId = `eligibility-title-${index}`;
  const holds = status.holds ?? [];
  const overrides = status.overrides ?? [];
  return h('section', { class: 'card eligibility', 'aria-labelledby': titleId, dataset: { term: status.term } },
    h('h2', { id: titleId, text: `Registration eligibility · ${term?.name || status.term}` }),
    h('dl', { class: 'facts' },
      h('dt', { text: 'Window' }), h('dd', { class: 'eligibility-window' }, windowBadge(status.window), ' ', windowText(status.window)),
      h('dt', { text: 'Standing' }), h('dd', { class: 'eligibility-standing', text: standingText(status) }),
      h('dt', { text: 'Units' }), h('dd', { class: 'eligibility-units', text: unitsText(status.units) })),
    h('h3', { text: 'Holds' }),
    holds.length
      ? h('ul', { class: 'plain-list compact eligibility-holds' }, holds.map((hold) => h('li', { dataset: { code: hold.code } },
        h('strong', { text: hold.code }), `: ${hold.reason} — ${blocksText(hold.blocks)}${hold.until ? `, until ${when(hold.until)}` : ''}`)))
      : h('p', { class: 'muted eligibility-holds', text: 'No hold on your registration.' }),
    overrides.length ? [
      h('h3', { text: 'Overrides' }),
      h('ul', { class: 'plain-list compact eligibility-overrides' }, overrides.map((o) => h('li', { dataset: { classId: o.classId } },
        `Class ${o.classId}: let past ${(o.rules ?? []).join(', ')} (granted ${when(o.createdAt)})`))),
    ] : null);
}

function windowBadge(window) {
  return window?.open
    ? h('span', { class: 'badge badge-ok', text: 'open' })
    : h('span', { class: 'badge badge-warn', text: 'closed' });
}

/** The window in words: open or when it opens (or closed), and which window it is. */
export function windowText(window) {
  if (!window) return '';
  if (window.appliesBy === 'unrestricted') return 'This term has no registration windows: you may register at any time.';
  if (window.appliesBy === 'none') return 'No registration window applies to you this term: you may not add classes.';
  const whose = APPLIES_BY[window.appliesBy] ? ` (${APPLIES_BY[window.appliesBy]})` : '';
  const closes = window.closesAt ? ` until ${when(window.closesAt)}` : '';
  if (window.open) return `Registration is open${window.opensAt ? ` since ${when(window.opensAt)}` : ''}${closes}${whose}.`;
  const now = Date.now();
  if (window.closesAt && new Date(window.closesAt).getTime() <= now) return `Registration closed ${when(window.closesAt)}${whose}.`;
  if (window.opensAt) return `Registration opens ${when(window.opensAt)}${closes}${whose}.`;
  return `Registration is closed${whose}.`;
}

function standingText(status) {
  if (!status.standing && !status.level) return 'No academic record on file.';
  const parts = [STANDINGS[status.standing] ?? status.standing, status.level].filter(Boolean);
  const majors = status.majors?.length ? ` · major ${status.majors.join(', ')}` : '';
  return `${parts.join(', ')}${majors}`;
}

function unitsText(units) {
  const registered = Number(units?.registered ?? 0);
  return units?.limit != null
    ? `${registered} registered of ${units.limit} allowed`
    : `${registered} registered (no unit limit)`;
}

function blocksText(blocks) {
  const set = new Set(blocks ?? []);
  if (set.has('add') && set.has('drop')) return 'blocks adding and dropping classes';
  if (set.has('add')) return 'blocks adding classes';
  if (set.has('drop')) return 'blocks dropping classes';
  return 'blocks nothing';
}

/** Asks whether the student may register for `item` (a catalog class) and shows the answer in `slot`. */
export async function checkClass(item, slot) {
  const label = `${item.course}-${item.section}`;
  const answer = await api.post('/v1/me/registration/check', { classIds: [item.id] });
  const result = answer.items?.[0];
  switch (result?.status) {
    case 'eligible':
      showNote(slot, `You can register for ${label}.`);
      break;
    case 'enrolled':
      showNote(slot, `You are registered for ${label}.`);
      break;
    case 'at-registrar':
      showNote(slot, `${label} takes its seats from the registrar: register there.`);
      break;
    case 'not-found':
      showNote(slot, `${label} is no longer in the catalog.`);
      break;
    default:
      // Ineligible: every reason, as a refusal would show them.
      showError(slot, { problem: { title: `You cannot register for ${label} now`, reasons: result?.reasons ?? [] } });
      append(slot.lastElementChild, [h('small', { class: 'muted', text: 'Nothing was changed: this was only a check.' })]);
  }
}
