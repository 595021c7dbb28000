import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderInline, renderMarkdown } from '../src/markdown';

test('renderMarkdown escapes every piece of HTML from the input', () => {
  const html = renderMarkdown('<script>alert(1)</script>\n\n# <img src=x onerror=y>\n\n- <b>x</b>\n\n`<i>`\n\n```html\n<div>\n```');
  assert.doesNotMatch(html, /<script|<img|<b>|<i>|<div>/);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /<h1>&lt;img src=x onerror=y&gt;<\/h1>/);
  assert.match(html, /<pre><code class="language-html">&lt;div&gt;<\/code><\/pre>/);
});

test('renderMarkdown renders headings, paragraphs, emphasis and code', () => {
  assert.equal(renderMarkdown('## Plan\n\nSome **bold** and *it* and `x < y`.'), '<h2>Plan</h2>\n<p>Some <strong>bold</strong> and <em>it</em> and <code>x &lt; y</code>.</p>');
  assert.equal(renderMarkdown('line one\nline two'), '<p>line one<br>\nline two</p>');
  assert.equal(renderInline('snake_case_name stays'), 'snake_case_name stays');
  assert.equal(renderInline('2 * 3 * 4'), '2 * 3 * 4');
});

test('renderMarkdown keeps only http(s) and mailto links', () => {
  assert.equal(renderInline('[doc](https://x.dev/a?b=1&c=2)'), '<a href="https://x.dev/a?b=1&amp;c=2">doc</a>');
  assert.equal(renderInline('[bad](javascript:alert)'), 'bad');
  assert.doesNotMatch(renderInline('[q](https://x"onmouseover="y)'), /"onmouseover/);
});

test('renderMarkdown renders lists, nested lists and task items', () => {
  assert.equal(renderMarkdown('- a\n- b\n  - c\n- d'), '<ul><li>a</li><li>b\n<ul><li>c</li></ul></li><li>d</li></ul>');
  assert.equal(renderMarkdown('1. one\n2. two'), '<ol><li>one</li><li>two</li></ol>');
  assert.equal(renderMarkdown('3. three'), '<ol start="3"><li>three</li></ol>');
  assert.equal(renderMarkdown('- [x] done\n- [ ] todo'), '<ul><li>☑ done</li><li>☐ todo</li></ul>');
});

test('renderMarkdown renders quotes, rules and tables', () => {
  assert.equal(renderMarkdown('> quoted'), '<blockquote><p>quoted</p></blockquote>');
  assert.equal(renderMarkdown('a\n\n---\n\nb'), '<p>a</p>\n<hr>\n<p>b</p>');
  assert.equal(
    renderMarkdown('| a | b |\n|---|---|\n| 1 | <2> |'),
    '<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>&lt;2&gt;</td></tr></tbody></table>',
  );
});

test('renderMarkdown keeps an unclosed fence as code to the end', () => {
  assert.equal(renderMarkdown('```\nx\ny'), '<pre><code>x\ny</code></pre>');
});
