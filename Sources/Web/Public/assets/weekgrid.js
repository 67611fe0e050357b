// A week grid (days × hours) of classes: each meeting is a block placed by CSS grid lines.
// Positions are set through the CSSOM (element.style), which the Content-Security-Policy allows.
// An overlay (friends' classes, friends-overlay.js) is drawn as translucent blocks in a strip on
// the right of each day, the student's own blocks narrowed to leave it free.
import { h, dayNames, scrollRegion } from './dom.js';

const ORDER = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const SLOT = 15; // minutes per grid row

function minutes(text) {
  const match = /^(\d{1,2}):?(\d{2})$/.exec(String(text ?? '').trim());
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

function clock(total) {
  return `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;
}

/** Each meeting of `entries` with a time, one per day; the others' labels go to `unplaced`. */
function placeMeetings(entries, unplaced) {
  const placed = [];
  entries.forEach((entry, index) => {
    for (const meeting of entry.meetings || []) {
      const start = minutes(meeting.start);
      const end = minutes(meeting.end);
      if (meeting.tba || start === null || end === null || end <= start || !meeting.days?.length) {
        if (unplaced) unplaced.push(`${entry.label}: ${meeting.tba ? 'TBA' : 'no set time'}`);
        continue;
      }
      for (const day of meeting.days) placed.push({ entry, index, day, start, end, meeting });
    }
  });
  return placed;
}

/**
 * `entries`: [{ label, detail, meetings: [Meeting] }]. Answers a figure holding the grid and, under
 * it, the meetings that have no time (TBA, online).
 */
export function weekGrid(entries, caption = 'Week') {
  const unplaced = [];
  const grid = drawGrid(placeMeetings(entries, unplaced), []);
  return h('figure', { class: 'week' },
    h('figcaption', { class: 'visually-hidden', text: caption }),
    // Wider than a phone: the keyboard scrolls it once it has focus.
    scrollRegion(grid, caption, { className: 'week-scroll' }),
    unplaced.length ? h('p', { class: 'muted', text: `Not on the grid: ${unplaced.join('; ')}` }) : null);
}

/**
 * The grid alone, with `overlay` ([{ label, names: [string], meetings }]: friends' classes) drawn
 * over it: each overlay block takes keyboard focus and names its class, time and friends (its
 * title shows them on hover). Meetings of the overlay without a time are left out.
 */
export function weekGridWith(entries, overlay) {
  return drawGrid(placeMeetings(entries, null), placeMeetings(overlay, null));
}

function drawGrid(placed, over) {
  const all = placed.concat(over);
  const days = ORDER.filter((d, i) => i < 5 || all.some((p) => p.day === d));
  // At least 8:00 to 17:00, so a short day still reads as a day; wider when classes are.
  const first = Math.min(8 * 60, ...all.map((p) => Math.floor(p.start / 60) * 60));
  const last = Math.max(17 * 60, ...all.map((p) => Math.ceil(p.end / 60) * 60));
  const rows = (last - first) / SLOT;

  const grid = h('div', { class: over.length ? 'week-grid with-overlay' : 'week-grid' });
  grid.style.gridTemplateColumns = `3.2rem repeat(${days.length}, minmax(0, 1fr))`;
  grid.style.gridTemplateRows = `auto repeat(${rows}, minmax(0.7rem, auto))`;
  const corner = h('div', { class: 'wg-corner', 'aria-hidden': 'true' });
  grid.append(corner);
  days.forEach((day, i) => {
    const head = h('div', { class: 'wg-day', text: dayNames[day], 'aria-hidden': 'true' });
    head.style.gridColumn = String(i + 2);
    head.style.gridRow = '1';
    grid.append(head);
  });
  for (let t = first; t < last; t += 60) {
    const row = 2 + (t - first) / SLOT;
    const label = h('div', { class: 'wg-hour', text: clock(t), 'aria-hidden': 'true' });
    label.style.gridColumn = '1';
    label.style.gridRow = `${row} / span ${60 / SLOT}`;
    grid.append(label);
    days.forEach((_, i) => {
      const cell = h('div', { class: 'wg-cell', 'aria-hidden': 'true' });
      cell.style.gridColumn = String(i + 2);
      cell.style.gridRow = `${row} / span ${60 / SLOT}`;
      grid.append(cell);
    });
  }
  for (const p of placed) {
    const place = [p.meeting.building, p.meeting.room].filter(Boolean).join(' ');
    const block = h('div', { class: `wg-block c${p.index % 8}`, title: `${p.entry.label} ${clock(p.start)}–${clock(p.end)}` },
      h('strong', { text: p.entry.label }),
      h('span', { text: ` ${dayNames[p.day]} ${clock(p.start)}–${clock(p.end)}` }),
      place ? h('span', { class: 'wg-place', text: ` ${place}` }) : null);
    block.style.gridColumn = String(days.indexOf(p.day) + 2);
    block.style.gridRow = `${2 + Math.round((p.start - first) / SLOT)} / ${2 + Math.round((p.end - first) / SLOT)}`;
    grid.append(block);
  }
  for (const p of over) {
    const names = (p.entry.names || []).join(', ');
    const text = `${p.entry.label} ${dayNames[p.day]} ${clock(p.start)}–${clock(p.end)}: ${names}`;
    // A note that takes focus: its name (the same as its title, shown on hover) says whose class it is.
    const block = h('div', { class: 'wg-friend', tabindex: '0', role: 'note', 'aria-label': `Friends' class ${text}`, title: text },
      h('strong', { text: p.entry.label }),
      h('span', { class: 'wg-friend-names', text: names }));
    block.style.gridColumn = String(days.indexOf(p.day) + 2);
    block.style.gridRow = `${2 + Math.round((p.start - first) / SLOT)} / ${2 + Math.round((p.end - first) / SLOT)}`;
    grid.append(block);
  }
  return grid;
}
