// The schedule builder's pinned classes (every schedule must hold them) and excluded classes
// (never placed): class ids typed in, or sent from a schedule's "Pin" and "Exclude" buttons.
import { h, field, replace, button } from './dom.js';

const KINDS = {
  pinned: { legend: 'Always include these classes', none: 'No pinned class.', other: 'excluded' },
  excluded: { legend: 'Never include these classes', none: 'No excluded class.', other: 'pinned' },
};

/** The fieldset; `state.pinned` and `state.excluded` are arrays of class ids. Answers
 * { element, add(kind, id, label) } so results can pin and exclude. */
export function sectionLists(state, persist) {
  const lists = {};
  const render = (kind) => {
    const ids = state[kind];
    replace(lists[kind], ids.length ? ids.map((entry, i) => h('li', { class: 'chip', dataset: { classId: entry.id } },
      h('span', { text: entry.label ? `${entry.label} (class ${entry.id})` : `class ${entry.id}` }),
      button('Remove', () => { ids.splice(i, 1); persist(); render(kind); }, 'link', { 'aria-label': `Remove class ${entry.id} from the ${kind} classes` })))
      : h('li', { class: 'muted', text: KINDS[kind].none }));
  };
  const add = (kind, id, label) => {
    const number = Number(id);
    if (!Number.isInteger(number) || number <= 0) return false;
    // A class is pinned or excluded, never both.
    const other = KINDS[kind].other;
    state[other] = state[other].filter((entry) => entry.id !== number);
    if (!state[kind].some((entry) => entry.id === number)) state[kind].push({ id: number, label: label || '' });
    persist();
    render('pinned');
    render('excluded');
    return true;
  };
  const blocks = Object.keys(KINDS).map((kind) => {
    lists[kind] = h('ul', { class: 'chip-list', id: `builder-${kind}`, 'aria-label': KINDS[kind].legend });
    render(kind);
    const input = h('input', { name: kind, inputmode: 'numeric', autocomplete: 'off', placeholder: 'class id, e.g. 7036' });
    const addOne = () => {
      if (add(kind, input.value.trim())) input.value = '';
      input.focus();
    };
    input.addEventListener('keydown', (event) => { if (event.key === 'Enter') { event.preventDefault(); addOne(); } });
    const entry = field(kind === 'pinned' ? 'Pin a class' : 'Exclude a class', input);
    return h('div', { class: 'sub-card' }, h('p', { class: 'muted', text: KINDS[kind].legend }), lists[kind],
      h('div', { class: 'row row-end' }, entry.wrap, button(kind === 'pinned' ? 'Pin' : 'Exclude', addOne, 'secondary', { id: `add-${kind}` })));
  });
  const element = h('fieldset', { id: 'builder-sections' }, h('legend', { text: 'Sections' }),
    h('small', { class: 'hint', text: 'A pinned class is in every schedule (its course’s other sections are left out); an excluded one in none. Use the buttons next to a schedule’s classes, or type a class id.' }),
    blocks);
  return { element, add };
}
