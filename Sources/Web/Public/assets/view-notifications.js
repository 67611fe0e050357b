// Notifications: this browser's Web Push subscription (service worker + VAPID key), what the
// devices receive (categories, quiet hours, budget), seat alerts on classes and courses, grade
// alerts per gradebook account, every device with its delivery history, email addresses to
// confirm, and webhooks.
import { h, field, errorSlot, busy, append, replace, button } from './dom.js';
import * as api from './api.js';
import { DEVICE_KEY, devicesSection, emailSection, smsSection } from './notify-devices.js';
import { alertsSection } from './notify-alerts.js';
import { preferencesSection, gradebookAlertsSection } from './notify-preferences.js';

export async function renderNotifications(container, ctx) {
  // The devices and alerts are this page's core; preferences and terms degrade to a note.
  const [devices, alerts, preferences, gradebookAccounts, terms] = await Promise.all([
    api.get('/v1/me/devices').then((r) => r.items ?? []),
    api.get('/v1/me/seat-alerts').then((r) => r.items ?? []),
    api.get('/v1/me/push-preferences').catch(() => null),
    api.get('/v1/me/push-preferences/gradebook-accounts').then((r) => r.items ?? []).catch(() => null),
    api.get('/v1/terms').then((r) => r.items ?? []).catch(() => []),
  ]);
  if (!ctx.isCurrent()) return;
  append(container, [
    h('h1', { text: 'Notifications' }),
    h('div', { class: 'stack' },
      browserSection(devices, ctx),
      preferencesSection(preferences),
      alertsSection(alerts, terms, ctx),
      gradebookAlertsSection(gradebookAccounts),
      devicesSection(devices, ctx),
      emailSection(devices, ctx),
      smsSection(devices, ctx),
      addWebhookForm(ctx)),
  ]);
}

function base64urlToBytes(text) {
  const padded = text.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.length / 4) * 4, '=');
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

// Whether a subscription was made with the server's current VAPID key. A browser that doesn't
// say which key it used is taken at its word.
function madeWithKey(subscription, publicKey) {
  const used = subscription?.options?.applicationServerKey;
  if (!used) return true;
  const mine = new Uint8Array(used), theirs = base64urlToBytes(publicKey);
  return mine.length === theirs.length && mine.every((byte, i) => byte === theirs[i]);
}

// This browser's subscription with the server's current key (a new one when the server's key
// changed since the last: push services refuse the old key's deliveries), registered as a
// device; the device it replaces, if any, is removed. Answers the new device.
async function subscribeThisBrowser(replacing) {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new Error('Notifications are blocked for this site. Allow them in the browser settings and try again.');
  const registration = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  await navigator.serviceWorker.ready;
  const { publicKey } = await api.get('/v1/push/vapid-public-key', {}, { auth: false });
  let subscription = await registration.pushManager.getSubscription();
  if (subscription && !madeWithKey(subscription, publicKey)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  if (!subscription) {
    subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64urlToBytes(publicKey) });
  }
  const json = subscription.toJSON();
  const created = await api.post('/v1/me/devices', {
    channel: 'webpush', name: browserName(), endpoint: json.endpoint, p256dh: json.keys.p256dh, auth: json.keys.auth,
  });
  localStorage.setItem(DEVICE_KEY, String(created.device.id));
  if (replacing && replacing.id !== created.device.id) await api.del(`/v1/me/devices/${replacing.id}`);
  return created.device;
}

// Whether the registered device still reaches this browser: its subscription is there, made
// with the server's current key, and the gateway hasn't given up on it.
async function stillReaches(device) {
  if (!device.active) return false;
  const registration = await navigator.serviceWorker.getRegistration('/');
  const subscription = await registration?.pushManager.getSubscription();
  if (!subscription) return false;
  const { publicKey } = await api.get('/v1/push/vapid-public-key', {}, { auth: false });
  return madeWithKey(subscription, publicKey);
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
    await subscribeThisBrowser(null);
    ctx.toast('This browser will get notifications.');
    ctx.go('notifications');
  }), 'primary');
  const renew = button('Renew this browser\u2019s notifications', (e) => busy(e.currentTarget, slot, async () => {
    await subscribeThisBrowser(registered);
    ctx.toast('This browser will get notifications again.');
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
  const actions = h('div', { class: 'actions' }, registered ? unsubscribe : subscribe);
  append(section, [
    h('p', { text: registered ? `This browser is registered as “${registered.name || 'Web Push'}”.` : 'Get seat openings, waitlist offers and grade changes as notifications here.' }),
    actions, status, slot,
  ]);
  if (registered) {
    // After the server's key changed (or the browser dropped the subscription), notifications
    // no longer arrive: say so and offer to subscribe again.
    stillReaches(registered).then((reaches) => {
      if (reaches || !ctx.isCurrent()) return;
      status.textContent = 'Notifications no longer reach this browser: the server\u2019s notification key changed or the browser ended the subscription. Renew to get them again.';
      status.className = 'warning';
      replace(actions, renew, unsubscribe);
    }).catch(() => {});
  }
  return section;
}

function browserName() {
  const ua = navigator.userAgent;
  const name = /Firefox\//.test(ua) ? 'Firefox' : /Edg\//.test(ua) ? 'Edge' : /Chrom/.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  return `${name} (web app)`;
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
