// Every relative link in the project's Markdown files resolves: the file or folder exists, and
// a "#anchor" is a heading of the file it points at, by GitHub's anchor rules.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../support/paths.js';
import { brokenLinks, markdownFiles } from './links.js';
import { headingAnchors, markdownLinks } from './markdown.js';

describe('Markdown links', () => {
  it("gives headings GitHub's anchors", () => {
    const anchors = headingAnchors(
      [
        '# Vigil',
        '## Watching: motion starts the clips, with the seconds before it',
        '### The result: choices where the specification says "not shown"',
        '### error_code values',
        '## `vehicule`, the specification\'s spelling',
        '## Labels and risk',
        '## Labels and risk',
        '```md',
        '## Not a heading (in a code block)',
        '```',
      ].join('\n'),
    );
    expect([...anchors]).to.have.members([
      'vigil',
      'watching-motion-starts-the-clips-with-the-seconds-before-it',
      'the-result-choices-where-the-specification-says-not-shown',
      'error_code-values',
      'vehicule-the-specifications-spelling',
      'labels-and-risk',
      'labels-and-risk-1',
    ]);
  });

  it('finds links and images, but not inside code', () => {
    const links = markdownLinks(
      [
        'See [the labels](runtime/pipeline/README.md#labels-and-risk) and ![a card](screenshots/card.png "Card").',
        'Not `[this](nowhere.md)`, nor:',
        '```',
        '[that](nowhere.md)',
        '```',
        '[spec]: <docs/spec file.md>',
        '[Koa](https://koajs.com)',
      ].join('\n'),
    );
    expect(links.map((l) => l.target)).to.deep.equal([
      'runtime/pipeline/README.md#labels-and-risk',
      'screenshots/card.png',
      'docs/spec file.md',
      'https://koajs.com',
    ]);
    expect(links[2].line).to.equal(6);
  });

  it('reports a missing file, a missing heading and a link out of the project, and passes the rest', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-links-'));
    try {
      fs.mkdirSync(path.join(root, 'room'));
      fs.writeFileSync(path.join(root, 'room', 'README.md'), '# Room\n\n## A part\n\nBack to [the entry](../README.md#entry).\n');
      fs.writeFileSync(
        path.join(root, 'README.md'),
        [
          '# Entry',
          '[room](room/README.md#a-part), [folder](room/), [here](#entry), [web](https://example.org/x)',
          '[gone](room/GONE.md), [no part](room/README.md#no-such-part), [out](../elsewhere.md)',
        ].join('\n'),
      );
      expect(brokenLinks(root, ['README.md', 'room/README.md'])).to.deep.equal([
        'README.md:3: room/GONE.md: no such file',
        'README.md:3: room/README.md#no-such-part: no heading with this anchor',
        'README.md:3: ../elsewhere.md: points outside the project',
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('resolves every relative link of every Markdown file of the project', () => {
    const files = markdownFiles(PROJECT_ROOT);
    expect(files).to.include.members(['README.md', 'runtime/pipeline/README.md', 'runtime/release/README.md', 'test/bench/README.md']);
    const tracked = execFileSync('git', ['ls-files', '--', '*.md'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(files).to.include.members(tracked);
    const relative = files.flatMap((file) => markdownLinks(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8')));
    expect(relative.length, 'links found in the Markdown files').to.be.above(20);
    expect(brokenLinks(PROJECT_ROOT, files)).to.deep.equal([]);
  });
});
