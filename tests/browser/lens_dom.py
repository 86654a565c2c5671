"""What the page's DOM holds that content could have put there.

``probe(page)`` counts the elements and attributes through which recording
text would run or load something if it were inserted as HTML; ``problems``
compares a probe with a clean baseline of the same app and says what is off.
"""

from __future__ import annotations

PROBE_JS = r"""
() => {
  const isLocal = (value) => {
    try {
      const url = new URL(value, location.href);
      if (['data:', 'blob:', 'about:'].includes(url.protocol)) return true;
      return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    } catch (e) { return true; }
  };
  const all = [...document.querySelectorAll('*')];
  const onAttributes = [];
  for (const el of all) {
    for (const attr of el.attributes) {
      if (attr.name.toLowerCase().startsWith('on')) onAttributes.push(`${el.tagName} ${attr.name}`);
    }
  }
  const remote = [];
  const refs = 'img,script,iframe,frame,object,embed,link,source,video,audio,track,image,use,a,area,form,input,base';
  for (const el of document.querySelectorAll(refs)) {
    for (const name of ['src', 'href', 'xlink:href', 'data', 'poster', 'action', 'formaction']) {
      const value = el.getAttribute(name);
      if (value && !isLocal(value)) {
        remote.push(`${el.tagName} ${name}=${value.slice(0, 160)}`);
      }
    }
    const srcset = el.getAttribute('srcset');
    if (srcset) remote.push(`${el.tagName} srcset=${srcset.slice(0, 160)}`);
  }
  const styleImports = [...document.querySelectorAll('style')]
    .filter((s) => /@import|lens-test\.invalid|attacker\.example/.test(s.textContent)).length;
  const headings = [...document.querySelectorAll('h1,h2,h3,h4,h5,h6')]
    .map((h) => h.textContent)
    .filter((t) => /PWNED|BREAKOUT|alert\(|<script|Summary|Heading/.test(t));
  const count = (selector) => document.querySelectorAll(selector).length;
  return {
    script: count('script'),
    script_from_content: [...document.querySelectorAll('script')]
      .filter((s) => /alert\(/.test(s.textContent) || /alert\(/.test(s.getAttribute('src') || '')).length,
    img: count('img'),
    img_src_x: count('img[src="x"]'),
    svg_onload: count('svg[onload]'),
    iframe: count('iframe, frame'),
    object_embed: count('object, embed'),
    base: count('base'),
    meta_refresh: count('meta[http-equiv]'),
    javascript_urls: count('[href^="javascript:" i], [src^="javascript:" i], [action^="javascript:" i]')
      + [...document.querySelectorAll('a, use, image')]
          .filter((e) => /^\s*javascript:/i.test(e.getAttributeNS('http://www.w3.org/1999/xlink', 'href') || '')).length,
    details_open_from_content: count('details[ontoggle]'),
    autofocus: count('[autofocus]'),
    on_attributes: onAttributes.slice(0, 10),
    on_attribute_count: onAttributes.length,
    remote_references: remote.slice(0, 10),
    style_imports: styleImports,
    hostile_headings: headings.slice(0, 5),
    text_chars: document.body.innerText.length,
    app_exceptions: [...document.querySelectorAll('[data-testid=stException]')]
      .map((e) => e.innerText.slice(0, 400)),
  };
}
"""

# Counts that must equal the clean baseline of the same app.
SAME_AS_BASELINE = ("script", "iframe", "object_embed", "base", "meta_refresh", "autofocus")
# Counts that must be zero whatever the baseline.
ZERO = ("script_from_content", "img_src_x", "svg_onload", "javascript_urls",
        "details_open_from_content", "on_attribute_count", "style_imports")


def probe(page) -> dict:
    return page.evaluate(PROBE_JS)


def problems(found: dict, baseline: dict) -> list[str]:
    """What the probed page has that no content may cause; empty when inert."""
    out = []
    if found["app_exceptions"]:
        out.append(f"the app raised: {found['app_exceptions']}")
    for name in ZERO:
        if found[name]:
            detail = found["on_attributes"] if name == "on_attribute_count" else ""
            out.append(f"{name} = {found[name]} {detail}".rstrip())
    for name in SAME_AS_BASELINE:
        if found[name] != baseline[name]:
            out.append(f"{name} = {found[name]}, clean baseline {baseline[name]}")
    if found["img"] > baseline["img"]:
        out.append(f"img = {found['img']}, clean baseline {baseline['img']}")
    if found["remote_references"]:
        out.append(f"remote references: {found['remote_references']}")
    if found["hostile_headings"]:
        out.append(f"headings made from content: {found['hostile_headings']}")
    return out
