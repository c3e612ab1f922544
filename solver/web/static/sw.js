// mille-sabords: the service worker. It keeps the page's own files (the HTML, the scripts, the
// style, the icons, the manifest) so that the page opens without the server, and it never
// keeps an answer of the API: every /api/ request goes to the network, and fails when the
// server cannot be reached (the page then says that answers need the server).
// VERSION is the digest of the page's files, written in by the server (solver/web/application.py):
// new files make a new worker, which replaces the old cache.

const VERSION = "__ASSETS_DIGEST__";
const CACHE = `mille-sabords-${VERSION}`;
const FILES = __ASSET_PATHS__;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});
self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith("mille-sabords-") && n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/")) return;  // the network's, never a cached answer
  const path = url.pathname;
  if (!FILES.includes(path)) return;
  // the page's files: the network first (a server that answers serves its current files),
  // the cache when the server cannot be reached
  event.respondWith(fetch(event.request).then((response) => {
    if (response.ok) { const copy = response.clone(); caches.open(CACHE).then((cache) => cache.put(path, copy)); }
    return response;
  }).catch(() => caches.open(CACHE).then((cache) => cache.match(path)).then((hit) => hit || Response.error())));
});
