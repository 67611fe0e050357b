// The web app's service worker: shows Web Push notifications from the gateway and opens the app
// when one is clicked. The gateway's payload is JSON with a title and a body.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  const title = typeof data.title === 'string' && data.title ? data.title : 'Campus Gateway';
  const options = {
    body: typeof data.body === 'string' ? data.body : '',
    icon: '/assets/icon.svg',
    tag: typeof data.category === 'string' ? data.category : undefined,
    data: { url: '/#/notifications' },
  };
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url || '/', self.location.origin).href;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    for (const client of windows) {
      if (new URL(client.url).origin === self.location.origin) {
        await client.focus();
        return client.navigate ? client.navigate(target) : undefined;
      }
    }
    return self.clients.openWindow(target);
  })());
});
