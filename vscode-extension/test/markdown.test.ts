import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderInline, renderMarkdown } from '../src/markdown';

/** markdown-it's block output without the newlines between tags. */
const flat = (html: string) => html.replace(/>\n</g, '><').replace(/\n</g, '<');

test('renderMarkdown escapes every piece of HTML from the input', () => {
  const html = renderMarkdown('<script>alert(1)</script>\n\n# <img src=x onerror=y>\n\n- <b>x</b>\n\n`<i>`\n\n```html\n<div>\n```\n\n<div onclick="x">block</div>');
  assert.doesNotMatch(html, /<script|<img|<b>|<i>|<div/);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /<h1>&lt;img src=x onerror=y&gt;<\/h1>/);
  assert.match(html, /<pre><code class="language-html">&lt;div&gt;\n<\/code><\/pre>/);
});

test('renderMarkdown renders headings, paragraphs, emphasis and code', () => {
  assert.equal(flat(renderMarkdown('## Plan\n\nSome **bold** and *it* and `x < y`.')), '<h2>Plan</h2><p>Some <strong>bold</strong> and <em>it</em> and <code>x &lt; y</code>.</p>');
  assert.equal(renderMarkdown('line one\nline two'), '<p>line one<br>\nline two</p>');
  assert.equal(renderInline('snake_case_name stays'), 'snake_case_name stays');
  assert.equal(renderInline('2 * 3 * 4'), '2 * 3 * 4');
});

test('renderMarkdown is CommonMark (markdown-it): setext headings, autolinks, ~~~ fences, escapes', () => {
  assert.equal(flat(renderMarkdown('Title\n=====\n\n~~~\ncode\n~~~')), '<h1>Title</h1><pre><code>code</code></pre>');
  assert.equal(renderInline('<https://x.dev>'), '<a href="https://x.dev">https://x.dev</a>');
  assert.equal(renderInline('\\*not emphasis\\*'), '*not emphasis*');
});

test('renderMarkdown keeps only http(s) and mailto links, and loads no image', () => {
  assert.equal(renderInline('[doc](https://x.dev/a?b=1&c=2)'), '<a href="https://x.dev/a?b=1&amp;c=2">doc</a>');
  assert.equal(renderInline('[mail](mailto:a@b.c)'), '<a href="mailto:a@b.c">mail</a>');
  for (const bad of ['javascript:alert(1)', 'JAVASCRIPT:x', 'data:text/html,x', 'vscode:command/x', 'file:///etc/passwd', '/relative']) {
    assert.equal(renderInline(`[bad **one**](${bad})`), 'bad <strong>one</strong>', bad);
  }
  assert.doesNotMatch(renderInline('[q](https://x"onmouseover="y)'), /"onmouseover/);
  assert.equal(renderInline('![alt <b>](https://x.dev/t.png)'), 'alt &lt;b&gt;');
});

test('renderMarkdown renders lists, nested lists and task items', () => {
  assert.equal(flat(renderMarkdown('- a\n- b\n  - c\n- d')), '<ul><li>a</li><li>b<ul><li>c</li></ul></li><li>d</li></ul>');
  assert.equal(flat(renderMarkdown('1. one\n2. two')), '<ol><li>one</li><li>two</li></ol>');
  assert.equal(flat(renderMarkdown('3. three')), '<ol start="3"><li>three</li></ol>');
  assert.equal(flat(renderMarkdown('- [x] done\n- [ ] todo')), '<ul><li>☑ done</li><li>☐ todo</li></ul>');
});

test('renderMarkdown renders quotes, rules and tables', () => {
  assert.equal(flat(renderMarkdown('> quoted')), '<blockquote><p>quoted</p></blockquote>');
  assert.equal(flat(renderMarkdown('a\n\n---\n\nb')), '<p>a</p><hr><p>b</p>');
  assert.equal(
    flat(renderMarkdown('| a | b |\n|---|---|\n| 1 | <2> |')),
    '<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>&lt;2&gt;</td></tr></tbody></table>',
  );
});

test('renderMarkdown keeps an unclosed fence as code to the end', () => {
  assert.equal(renderMarkdown('```\nx\ny'), '<pre><code>x\ny</code></pre>');
});
