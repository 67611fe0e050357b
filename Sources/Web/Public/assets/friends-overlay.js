// "Show friends" on a week grid: what the student's friends share for the grid's term (their
// friends-visible schedules and, where shared, their enrolled classes) drawn over the student's
// own week as translucent blocks, each naming its friends on hover and on keyboard focus.
// Fetched when the box is ticked, every time (an unfriend shows at once); nothing is cached.
import { h, errorSlot, showError, clearError, uid } from './dom.js';
import * as api from './api.js';
import * as session from './session.js';
import { weekGrid, weekGridWith } from './weekgrid.js';

/**
 * The week grid of `entries` (as weekGrid) for the term `term`, with a "Show friends" checkbox
 * when a student is signed in. `idPrefix` names the controls, for tests and labels.
 */
export function friendsWeek(entries, caption, term, idPrefix = 'week') {
  const figure = weekGrid(entries, caption);
  if (!session.token() || !term) return figure;
  const id = uid(`${idPrefix}-friends`);
  const box = h('input', { type: 'checkbox', id, class: 'show-friends', 'aria-describedby': `${id}-status` });
  const status = h('span', { class: 'muted friends-status', id: `${id}-status`, role: 'status' });
  const slot = errorSlot();
  const region = figure.querySelector('.week-scroll');
  box.addEventListener('change', async () => {
    clearError(slot);
    if (!box.checked) {
      region.replaceChildren(weekGridWith(entries, []));
      status.textContent = '';
      return;
    }
    box.disabled = true;
    status.textContent = 'Loading friends’ classes…';
    try {
      const answer = await api.get('/v1/me/friends/schedules', { term });
      if (!box.checked) return;
      const overlay = friendClasses(answer.items ?? []);
      region.replaceChildren(weekGridWith(entries, overlay));
      status.textContent = overlay.length
        ? `${overlay.length} ${overlay.length === 1 ? 'class' : 'classes'} of friends shown on the right of each day; focus or hover one for names.`
        : 'No friend shares a schedule or classes for this term.';
    } catch (error) {
      box.checked = false;
      status.textContent = '';
      showError(slot, error);
    } finally {
      box.disabled = false;
    }
  });
  const toggle = h('div', { class: 'field field-check friends-toggle' },
    box, h('label', { for: id, text: 'Show friends' }), status);
  figure.prepend(toggle, slot);
  return figure;
}

/**
 * One overlay entry per class a friend takes (by class id), with every friend who takes it by
 * display name: from their friends-visible schedules and their shared enrollments.
 */
export function friendClasses(friends) {
  const byClass = new Map();
  for (const friend of friends) {
    const classes = [...(friend.schedules ?? []).flatMap((s) => s.classes ?? []), ...(friend.enrolled ?? [])];
    for (const item of classes) {
      if (!item || item.id === undefined) continue;
      let entry = byClass.get(item.id);
      if (!entry) {
        entry = { label: `${item.course}-${item.section}`, meetings: item.meetings ?? [], names: [] };
        byClass.set(item.id, entry);
      }
      const name = friend.displayName || friend.username;
      if (!entry.names.includes(name)) entry.names.push(name);
    }
  }
  return [...byClass.values()];
}
