// Sizes each servecost widget on this page from the height it reports (docs/EMBED.md).
//
// The widget sends exactly one kind of message, {type: "servecost:height", height}, to its
// parent. Accept it only from our own origin (the widget is served from this site) and only
// from the frame it claims to size: event.source must be that iframe's window. The height is
// clamped, so a misbehaving frame cannot blow up the page.
'use strict';

const MIN_HEIGHT_PX = 200;
const MAX_HEIGHT_PX = 2000;

window.addEventListener('message', (event) => {
  if (event.origin !== window.location.origin) return;
  const data = event.data;
  if (!data || typeof data !== 'object' || data.type !== 'servecost:height') return;
  const height = Number(data.height);
  if (!Number.isFinite(height)) return;
  for (const frame of document.querySelectorAll('iframe.servecost-embed')) {
    if (frame.contentWindow !== event.source) continue;
    const clamped = Math.min(MAX_HEIGHT_PX, Math.max(MIN_HEIGHT_PX, Math.ceil(height)));
    frame.height = String(clamped);
    frame.dataset.reportedHeight = String(clamped);
  }
});
