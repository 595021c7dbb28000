// Markdown for the side panel, rendered by markdown-it and sanitised:
// raw HTML in the input is escaped (html: false), links keep only the
// http, https and mailto schemes (others render as their text), images are
// not loaded (their alt text shows), and task items show ☐/☑.
import MarkdownIt from 'markdown-it';

const safeLink = /^(https?:|mailto:)/i;

const md = new MarkdownIt('default', { html: false, linkify: false, breaks: true, typographer: false });

// Every link is parsed, then one with another scheme keeps only its text:
// [label](javascript:x) → label.
md.validateLink = () => true;
md.core.ruler.after('inline', 'safe-links', (state) => {
  for (const block of state.tokens) {
    const children = block.children ?? [];
    for (let i = 0; i < children.length; i++) {
      const t = children[i];
      if (t.type !== 'link_open' || safeLink.test(String(t.attrGet('href') ?? '').trim())) continue;
      let depth = 0;
      for (let j = i; j < children.length; j++) {
        if (children[j].type === 'link_open') depth++;
        if (children[j].type === 'link_close' && --depth === 0) {
          children.splice(j, 1);
          break;
        }
      }
      children.splice(i, 1);
      i--;
    }
  }
  return true;
});

md.renderer.rules.image = (tokens, idx) => md.utils.escapeHtml(tokens[idx].content);

// "[ ] x" / "[x] x" at the start of a list item: a box before the text.
md.core.ruler.after('inline', 'task-items', (state) => {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    if (tokens[i].type !== 'inline' || tokens[i - 1].type !== 'paragraph_open' || tokens[i - 2].type !== 'list_item_open') continue;
    const first = tokens[i].children?.[0];
    const m = first?.type === 'text' ? /^\[([ xX])\]\s+/.exec(first.content) : null;
    if (first && m) first.content = (m[1] === ' ' ? '☐ ' : '☑ ') + first.content.slice(m[0].length);
  }
  return true;
});

/** Renders Markdown to HTML that contains no markup of the input. */
export function renderMarkdown(text: string): string {
  return md.render(text).trimEnd();
}

/** Renders inline Markdown (code, emphasis, links) of one line. */
export function renderInline(text: string): string {
  return md.renderInline(text);
}
