// Notifications: this browser's Web Push subscription (service worker + VAPID key), every
// device with its delivery history, and seat alerts.
import { h, field, errorSlot, busy, append, replace, button, when, showNote, showError } from './dom.js';
import * as api from './api.js';

const DEVICE_KEY = 'campus-gateway.webpush-device';

export async function renderNotifications(container, ctx) {
  const [devices, alerts] = await Promise.all([
    api.get('/v1/me/devices').then((r) => r.items),
    api.get('/v1/me/seat-alerts').then((r) => r.items),
  ]);
  if (!ctx.isCurrent()) return;
  append(container, [
    h('h1', { text: 'Notifications' }),
    h('div', { class: 'stack' },
      browserSection(devices, ctx),
      devicesSection(devices, ctx),
      addWebhookForm(ctx),
      await alertsSection(alerts, ctx)),
  ]);
}

function base64urlToBytes(text) {
  const padded = text.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.length / 4) * 4, '=');
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function browserSection(devices, ctx) {
  const slot = errorSlot();
  const status = h('p', { class: 'note', role: 'status' });
  const section = h('section', { class: 'card', 'aria-labelledby': 'browser-title' },
    h('h2', { id: 'browser-title', text: 'This browser' }));
  const supported = 'serviceWorker' in navigator && 'PushManager' in window && window.isSecureContext;
  if (!supported) {
    append(section, [h('p', { class: 'muted', text: 'This browser (or an address without HTTPS) cannot receive Web Push notifications.' })]);
    return section;
  }
  const storedId = Number(localStorage.getItem(DEVICE_KEY)) || null;
  const registered = devices.find((d) => d.id === storedId && d.channel === 'webpush');
  const subscribe = button('Notify me in this browser', (e) => busy(e.currentTarget, slot, async () => {
    const permission = await Notification.requestPermission();
    if (permission !== 'granted') throw new Error('Notifications are blocked for this site. Allow them in the browser settings and try again.');
    const registration = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
    await navigator.serviceWorker.ready;
    const { publicKey } = await api.get('/v1/push/vapid-public-key', {}, { auth: false });
    let subscription = await registration.pushManager.getSubscription();
    if (!subscription) {
      subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64urlToBytes(publicKey) });
    }
    const json = subscription.toJSON();
    const created = await api.post('/v1/me/devices', {
      channel: 'webpush', name: browserName(), endpoint: json.endpoint, p256dh: json.keys.p256dh, auth: json.keys.auth,
    });
    localStorage.setItem(DEVICE_KEY, String(created.device.id));
    ctx.toast('This browser will get notifications.');
    ctx.go('notifications');
  }), 'primary');
  const unsubscribe = button('Stop notifying this browser', (e) => busy(e.currentTarget, slot, async () => {
    const registration = await navigator.serviceWorker.getRegistration('/');
    const subscription = await registration?.pushManager.getSubscription();
    await subscription?.unsubscribe();
    if (registered) await api.del(`/v1/me/devices/${registered.id}`);
    localStorage.removeItem(DEVICE_KEY);
    ctx.go('notifications');
  }), 'secondary');
  append(section, [
    h('p', { text: registered ? `This browser is registered as “${registered.name || 'Web Push'}”.` : 'Get seat openings, waitlist offers and grade changes as notifications here.' }),
    h('div', { class: 'actions' }, registered ? unsubscribe : subscribe),
    status, slot,
  ]);
  return section;
}

function browserName() {
  const ua = navigator.userAgent;
  const name = /Firefox\//.test(ua) ? 'Firefox' : /Edg\//.test(ua) ? 'Edge' : /Chrom/.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  return `${name} (web app)`;
}

function devicesSection(devices, ctx) {
  const storedId = Number(localStorage.getItem(DEVICE_KEY)) || null;
  return h('section', { class: 'card', 'aria-labelledby': 'devices-title' },
    h('h2', { id: 'devices-title', text: 'Devices' }),
    devices.length ? h('ul', { class: 'plain-list' }, devices.map((d) => {
      const slot = errorSlot();
      const history = h('div', { class: 'history' });
      const where = d.endpointHost || d.topic || '';
      return h('li', { dataset: { deviceId: d.id } },
        h('p', {}, h('strong', { text: d.name || d.channel }), ` · ${d.channel}${where ? ` · ${where}` : ''}`,
          d.id === storedId ? h('span', { class: 'badge', text: 'this browser' }) : null,
          h('span', { class: d.active ? 'badge badge-ok' : 'badge badge-bad', text: d.active ? 'active' : 'inactive' })),
        h('p', { class: 'muted', text: `Added ${when(d.createdAt)} · last delivery ${when(d.lastSuccessAt)} · ${d.failureCount} failures${d.lastError ? ` · last error: ${d.lastError}` : ''}` }),
        h('div', { class: 'actions' },
          button('Send a test', (e) => busy(e.currentTarget, slot, async () => {
            const result = await api.post(`/v1/me/devices/${d.id}/test`);
            showNote(slot, result.queued ? 'A test notification is on its way.' : 'Not sent: the device is inactive.');
          }), 'secondary'),
          button('Deliveries', (e) => busy(e.currentTarget, slot, async () => {
            const list = (await api.get(`/v1/me/devices/${d.id}/notifications`)).items;
            replace(history, list.length ? h('ul', { class: 'plain-list compact' }, list.map((n) =>
              h('li', { text: `${when(n.createdAt)} · ${n.title} — ${n.state}${n.attempts ? ` after ${n.attempts} attempts` : ''}${n.lastError ? ` (${n.lastError})` : ''}` })))
              : h('p', { class: 'muted', text: 'Nothing sent to this device yet.' }));
          }), 'secondary', { 'aria-expanded': 'false' }),
          button('Remove', (e) => busy(e.currentTarget, slot, async () => {
            await api.del(`/v1/me/devices/${d.id}`);
            if (d.id === storedId) localStorage.removeItem(DEVICE_KEY);
            ctx.go('notifications');
          }), 'danger', { 'aria-label': `Remove ${d.name || d.channel}` })),
        history, slot);
    })) : h('p', { class: 'muted', text: 'No device yet.' }));
}

function addWebhookForm(ctx) {
  const url = field('Webhook URL', h('input', { name: 'url', type: 'url', placeholder: 'https://', required: true }));
  const name = field('Name (optional)', h('input', { name: 'name', maxlength: 100 }));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-secondary' }, 'Add webhook');
  const form = h('form', { novalidate: true }, h('div', { class: 'row' }, url.wrap, name.wrap), slot, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const created = await busy(submit, slot, () => api.post('/v1/me/devices', { channel: 'webhook', url: url.input.value.trim(), name: name.input.value.trim() }), form);
    if (created) {
      replace(slot, h('div', { class: 'note' },
        h('p', { text: 'Webhook added. Its signing secret is shown only now:' }),
        h('code', { class: 'secret', text: created.webhookSecret ?? '' })));
    }
  });
  return h('details', { class: 'card' }, h('summary', { text: 'Add a webhook (for your own server)' }), form);
}

async function alertsSection(alerts, ctx) {
  const labels = new Map(await Promise.all(alerts.map(async (a) => {
    try {
      const c = await api.get(`/v1/registration/classes/${a.classId}`);
      return [a.classId, `${c.course}-${c.section} ${c.title} (${c.openSeats} open)`];
    } catch {
      return [a.classId, `Class ${a.classId}`];
    }
  })));
  const classId = field('Class id', h('input', { name: 'classId', inputmode: 'numeric', required: true }), 'The class number the catalog shows (“class 7047”).');
  const rearm = field('Tell me every time, not only once', h('input', { name: 'rearm', type: 'checkbox' }));
  const slot = errorSlot();
  const submit = h('button', { type: 'submit', class: 'btn btn-secondary' }, 'Watch class');
  const form = h('form', { novalidate: true }, h('div', { class: 'row row-end' }, classId.wrap, rearm.wrap, submit), slot);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const created = await busy(submit, slot, () => api.post('/v1/me/seat-alerts', { classId: Number(classId.input.value), rearm: rearm.input.checked }), form);
    if (created) ctx.go('notifications');
  });
  return h('section', { class: 'card', 'aria-labelledby': 'alerts-title' },
    h('h2', { id: 'alerts-title', text: 'Seat alerts' }),
    alerts.length ? h('ul', { class: 'plain-list' }, alerts.map((a) => {
      const itemSlot = errorSlot();
      return h('li', {},
        h('p', {}, h('strong', { text: labels.get(a.classId) }),
          ` · ${a.armed ? 'watching' : 'notified; not watching'}${a.rearm ? ' · every time' : ''}${a.lastNotifiedAt ? ` · last told ${when(a.lastNotifiedAt)}` : ''}`),
        h('div', { class: 'actions' }, button('Stop watching', (e) => busy(e.currentTarget, itemSlot, async () => {
          await api.del(`/v1/me/seat-alerts/${a.id}`);
          ctx.go('notifications');
        }), 'secondary')),
        itemSlot);
    })) : h('p', { class: 'muted', text: 'You watch no class. Use “Alert me when a seat opens” in the catalog, or add a class here.' }),
    form);
}
