// DOM helpers. Every string is inserted as text (createElement / textContent), never as HTML,
// so nothing the API answers can become markup.

/** Creates an element. `props`: class, text, on{Event}: handler, dataset: {}, other attributes. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
    else if (key === 'text') el.textContent = String(value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'value') el.value = value;
    else if (key === 'checked' || key === 'selected' || key === 'disabled' || key === 'hidden' || key === 'multiple' || key === 'required') el[key] = Boolean(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Appends children: strings and numbers become text nodes; null, undefined and false are skipped. */
export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Removes every child, then appends these. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

let idCounter = 0;
/** A fresh id for label/input pairs. */
export function uid(prefix = 'f') {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** A labelled form field: returns {wrap, input}. `input` may be an element or created from `type`. */
export function field(label, input, hint) {
  const id = input.id || uid(input.name || 'f');
  input.id = id;
  const hintEl = hint ? h('small', { class: 'hint', id: `${id}-hint`, text: hint }) : null;
  if (hintEl) input.setAttribute('aria-describedby', hintEl.id);
  const wrap = h('div', { class: input.type === 'checkbox' ? 'field field-check' : 'field' });
  if (input.type === 'checkbox') append(wrap, [input, h('label', { for: id, text: label }), hintEl]);
  else append(wrap, [h('label', { for: id, text: label }), input, hintEl]);
  return { wrap, input };
}

/**
 * A box that scrolls sideways when its content (a wide table, the week grid) is wider than the
 * screen: it takes keyboard focus (Tab, then the arrow keys scroll it), shows it, and is a region
 * named `label` so that a screen reader says what it holds. `key` keeps focus across a refresh.
 */
export function scrollRegion(child, label, { className, key } = {}) {
  return h('div', { class: ['scroll-region', className], tabindex: '0', role: 'region', 'aria-label': label,
    dataset: key ? { key } : undefined }, child);
}

/** A button; `kind` is a style (primary, secondary, danger, link). */
export function button(text, onClick, kind = 'secondary', extra = {}) {
  return h('button', { type: 'button', class: `btn btn-${kind}`, onClick, ...extra }, text);
}

/** The slot under a form (or next to any control) where its errors show. */
export function errorSlot() {
  return h('div', { class: 'error-slot', role: 'alert', 'aria-live': 'assertive' });
}

/** Every reason of an eligibility refusal (`reasons: [{rule, message}]`) as a list, each its message. */
export function reasonList(reasons) {
  const items = (Array.isArray(reasons) ? reasons : []).filter((r) => r && r.message);
  if (!items.length) return null;
  return h('ul', { class: 'reasons' }, items.map((r) => h('li', { text: r.message, dataset: { rule: r.rule ?? '' } })));
}

/**
 * Shows an error in `slot`: an API problem document's title, detail (or, for an eligibility
 * refusal, every reason), the fields it names and its request id; marks the named fields of
 * `form` invalid. Anything else shows its message.
 */
export function showError(slot, error, form) {
  if (!slot) return;
  clearError(slot, form);
  const problem = error?.problem;
  const box = h('div', { class: 'problem' });
  if (problem) {
    append(box, [h('strong', { text: problem.title || `Error ${error.status}` })]);
    // The detail of a refusal joins its reasons' messages: the list says the same, one a line.
    const reasons = reasonList(problem.reasons);
    if (reasons) append(box, [reasons]);
    else if (problem.detail) append(box, [h('p', { text: problem.detail })]);
    const fields = Array.isArray(problem.invalidFields) ? problem.invalidFields : [];
    if (fields.length) {
      append(box, [h('p', { text: `Check: ${fields.join(', ')}` })]);
      if (form) {
        for (const name of fields) {
          const root = String(name).split(/[.[]/)[0];
          const input = form.querySelector(`[name="${CSS.escape(root)}"]`);
          if (input) input.setAttribute('aria-invalid', 'true');
        }
      }
    }
    if (problem.retryAfterSeconds) append(box, [h('p', { class: 'retry-after', text: `Try again in ${duration(problem.retryAfterSeconds)}.` })]);
    if (problem.requestId) append(box, [h('small', { class: 'muted', text: `Request ${problem.requestId}` })]);
  } else {
    append(box, [h('strong', { text: 'Something went wrong' }), h('p', { text: error?.message || String(error) })]);
  }
  slot.append(box);
}

/** Seconds as people say them: "45 s", "12 min", "3 h 20 min". */
export function duration(seconds) {
  const s = Math.max(0, Math.round(Number(seconds) || 0));
  if (s < 60) return `${s} s`;
  const total = Math.ceil(s / 60);
  if (total < 60) return `${total} min`;
  const hours = Math.floor(total / 60);
  const minutes = total % 60;
  return minutes ? `${hours} h ${minutes} min` : `${hours} h`;
}

export function clearError(slot, form) {
  if (slot) slot.replaceChildren();
  if (form) for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

/** Shows a short success note in `slot` (a polite live region). */
export function showNote(slot, text) {
  if (!slot) return;
  slot.replaceChildren(h('p', { class: 'note', text }));
}

/** Runs `work` with the button disabled and errors shown in `slot`. Returns work's result or undefined. */
export async function busy(control, slot, work, form) {
  if (control) control.disabled = true;
  clearError(slot, form);
  try {
    return await work();
  } catch (error) {
    showError(slot, error, form);
    return undefined;
  } finally {
    if (control) control.disabled = false;
  }
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
/** A date-time string as the reader's local date and time; '—' for none. */
export function when(value) {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : dateTime.format(date);
}

/** "3 min ago" style for recent times; falls back to `when`. */
export function ago(value) {
  if (!value) return '—';
  const date = new Date(value);
  const seconds = Math.round((Date.now() - date.getTime()) / 1000);
  if (Number.isNaN(seconds)) return String(value);
  const future = seconds < 0;
  const s = Math.abs(seconds);
  let text;
  if (s < 60) text = `${s} s`;
  else if (s < 3600) text = `${Math.round(s / 60)} min`;
  else if (s < 86400) text = `${Math.round(s / 3600)} h`;
  else return when(value);
  return future ? `in ${text}` : `${text} ago`;
}

export const dayNames = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };

/** A meeting as "Mon Wed 10:00–10:50 · GMCS 101", or "TBA". */
export function meetingText(meeting) {
  if (!meeting || meeting.tba) return 'TBA';
  const days = (meeting.days || []).map((d) => dayNames[d] || d).join(' ');
  const place = [meeting.building, meeting.room].filter(Boolean).join(' ');
  return `${days} ${meeting.start ?? ''}–${meeting.end ?? ''}${place ? ` · ${place}` : ''}`;
}

/** Moves keyboard focus to a heading or region after a view change. */
export function focusFirst(container) {
  const target = container.querySelector('h1, h2') || container;
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: false });
}

/** Saves `blob` as a file named `name` (an object URL on a temporary link). */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, class: 'visually-hidden' }, name);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Copies text to the clipboard; falls back to selecting `input` for a manual copy. */
export async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (input) {
      input.focus();
      input.select();
    }
    return false;
  }
}
