// uiautomator's dump format: the node tree as one line of XML, attributes in
// the order Android 10+ writes them.

function esc(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function nodeXml(n, index) {
  const [[x0, y0], [x1, y1]] = n.bounds;
  const attrs = [
    ['index', index], ['text', n.text], ['resource-id', n.id], ['class', n.cls], ['package', n.pkg],
    ['content-desc', n.desc], ['checkable', n.checkable], ['checked', n.checked], ['clickable', n.clickable],
    ['enabled', n.enabled], ['focusable', n.focusable], ['focused', n.focused], ['scrollable', n.scrollable],
    ['long-clickable', false], ['password', n.password], ['selected', n.selected],
    ['bounds', `[${x0},${y0}][${x1},${y1}]`],
  ];
  const open = `<node ${attrs.map(([k, v]) => `${k}="${esc(v)}"`).join(' ')}`;
  if (!n.children.length) return `${open} />`;
  return `${open}>${n.children.map((c, i) => nodeXml(c, i)).join('')}</node>`;
}

export function dumpXml(root, rotation) {
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="${rotation}">` +
    `${nodeXml(root, 0)}</hierarchy>`;
}
