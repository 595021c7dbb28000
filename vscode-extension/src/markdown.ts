// A small, safe Markdown renderer for the side panel. Everything from the
// server is HTML-escaped first; only the markup this file writes is HTML.
// Supported: ATX headings, paragraphs, fenced code, inline code, bold,
// italics, links (http, https and mailto only), block quotes, ordered and
// unordered lists (nested by indentation), tables and horizontal rules.
import { escapeHtml } from './status';

/** Renders Markdown to HTML that contains no markup of the input. */
export function renderMarkdown(md: string): string {
  return renderBlocks(md.replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n'));
}

const fenceRe = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*).*$/;
const headingRe = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const hrRe = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const quoteRe = /^ {0,3}> ?(.*)$/;
const itemRe = /^( *)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const tableSepRe = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function renderBlocks(lines: string[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = fenceRe.exec(line);
    if (fence) {
      const marker = fence[1];
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i].trim().startsWith(marker[0].repeat(marker.length)) && /^[`~]+$/.test(lines[i].trim()))) {
        body.push(lines[i]);
        i++;
      }
      i++; // the closing fence (or the end)
      const lang = fence[2] ? ` class="language-${escapeHtml(fence[2])}"` : '';
      out.push(`<pre><code${lang}>${escapeHtml(body.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = headingRe.exec(line);
    if (heading) {
      const n = heading[1].length;
      out.push(`<h${n}>${renderInline(heading[2])}</h${n}>`);
      i++;
      continue;
    }
    if (hrRe.test(line)) {
      out.push('<hr>');
      i++;
      continue;
    }
    if (quoteRe.test(line)) {
      const body: string[] = [];
      while (i < lines.length && lines[i].trim()) {
        const q = quoteRe.exec(lines[i]);
        body.push(q ? q[1] : lines[i]);
        i++;
      }
      out.push(`<blockquote>${renderBlocks(body)}</blockquote>`);
      continue;
    }
    const item = itemRe.exec(line);
    if (item) {
      i = renderList(lines, i, out);
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && tableSepRe.test(lines[i + 1]) && lines[i + 1].includes('-')) {
      i = renderTable(lines, i, out);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) {
      para.push(lines[i].trim());
      i++;
    }
    if (para.length === 0) {
      // A line that looks like a block start but was not one: keep it as text.
      para.push(lines[i].trim());
      i++;
    }
    out.push(`<p>${para.map(renderInline).join('<br>\n')}</p>`);
  }
  return out.join('\n');
}

function startsBlock(line: string): boolean {
  return fenceRe.test(line) || headingRe.test(line) || hrRe.test(line) || quoteRe.test(line) || itemRe.test(line);
}

/** Renders the list that starts at lines[start]; returns the next line index. */
function renderList(lines: string[], start: number, out: string[]): number {
  const first = itemRe.exec(lines[start]) as RegExpExecArray;
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const items: string[][] = [];
  let i = start;
  while (i < lines.length) {
    const line = lines[i];
    const m = itemRe.exec(line);
    if (m && m[1].length === indent && /\d/.test(m[2]) === ordered) {
      items.push([m[3]]);
      i++;
      continue;
    }
    if (m && m[1].length < indent) break;
    const leading = line.length - line.trimStart().length;
    if (line.trim() && leading > indent) {
      // A continuation or a nested list: strip the item's indentation.
      items[items.length - 1].push(line.slice(Math.min(leading, indent + 2)));
      i++;
      continue;
    }
    if (!line.trim() && i + 1 < lines.length) {
      const next = lines[i + 1];
      const nm = itemRe.exec(next);
      const nextLeading = next.length - next.trimStart().length;
      if ((nm && nm[1].length === indent && /\d/.test(nm[2]) === ordered) || (next.trim() && nextLeading > indent)) {
        items[items.length - 1].push('');
        i++;
        continue;
      }
    }
    break;
  }
  const startAttr = ordered && parseInt(first[2], 10) !== 1 ? ` start="${parseInt(first[2], 10)}"` : '';
  const tag = ordered ? 'ol' : 'ul';
  const lis = items.map((body) => {
    const task = /^\[([ xX])\]\s+(.*)$/.exec(body[0]);
    let prefix = '';
    if (task) {
      prefix = task[1] === ' ' ? '☐ ' : '☑ ';
      body = [task[2], ...body.slice(1)];
    }
    if (body.length === 1) return `<li>${prefix}${renderInline(body[0])}</li>`;
    const inner = renderBlocks(body);
    // A tight item renders its first paragraph without <p>.
    return `<li>${prefix}${inner.replace(/^<p>([\s\S]*?)<\/p>/, '$1')}</li>`;
  });
  out.push(`<${tag}${startAttr}>${lis.join('')}</${tag}>`);
  return i;
}

function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

function renderTable(lines: string[], start: number, out: string[]): number {
  const head = splitRow(lines[start]);
  let i = start + 2;
  const rows: string[][] = [];
  while (i < lines.length && lines[i].trim() && lines[i].includes('|')) {
    rows.push(splitRow(lines[i]));
    i++;
  }
  const th = head.map((c) => `<th>${renderInline(c)}</th>`).join('');
  const trs = rows.map((r) => `<tr>${head.map((_, k) => `<td>${renderInline(r[k] ?? '')}</td>`).join('')}</tr>`).join('');
  out.push(`<table><thead><tr>${th}</tr></thead><tbody>${trs}</tbody></table>`);
  return i;
}

/** Renders inline Markdown (code, bold, italics, links) of one line. */
export function renderInline(text: string): string {
  const parts: string[] = [];
  const re = /(`+)([\s\S]*?[^`])\1(?!`)/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    parts.push(formatText(text.slice(last, m.index)));
    parts.push(`<code>${escapeHtml(m[2].trim() || m[2])}</code>`);
    last = m.index + m[0].length;
  }
  parts.push(formatText(text.slice(last)));
  return parts.join('');
}

/** Escapes text, then turns emphasis and links into markup. */
function formatText(text: string): string {
  let s = escapeHtml(text);
  s = s.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_all, label: string, url: string) => {
    // url is escaped already: it cannot close the attribute.
    return /^(https?:|mailto:)/i.test(url) ? `<a href="${url}">${label}</a>` : label;
  });
  s = s.replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<strong>$1</strong>');
  s = s.replace(/__(?=\S)([\s\S]*?\S)__/g, '<strong>$1</strong>');
  s = s.replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?!\w)/g, '$1<em>$2</em>');
  s = s.replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1<em>$2</em>');
  s = s.replace(/~~(?=\S)([\s\S]*?\S)~~/g, '<del>$1</del>');
  return s;
}
