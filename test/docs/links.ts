// Checks the relative links of Markdown files: each names a file or folder that exists, and a
// "#anchor" names a heading of the file it points at (GitHub's anchors).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { headingAnchors, isExternal, markdownLinks } from './markdown.js';

/** The project's Markdown files, committed or new (not ignored), relative to root. */
export function markdownFiles(root: string): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'], { cwd: root, encoding: 'utf8' });
  return [...new Set(listed.split('\n').filter(Boolean))].filter((file) => fs.existsSync(path.join(root, file))).sort();
}

/** "file:line: problem" for every relative link among files (relative to root) that does not resolve. */
export function brokenLinks(root: string, files: string[]): string[] {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    let found = anchorsOf.get(file);
    if (!found) anchorsOf.set(file, (found = headingAnchors(fs.readFileSync(file, 'utf8'))));
    return found;
  };
  const problems: string[] = [];
  for (const file of files) {
    const absolute = path.join(root, file);
    for (const { target, line } of markdownLinks(fs.readFileSync(absolute, 'utf8'))) {
      if (isExternal(target)) continue;
      const where = `${file}:${line}: ${target}`;
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved = pathPart ? path.resolve(path.dirname(absolute), pathPart) : absolute;
      if (path.relative(root, resolved).startsWith('..')) {
        problems.push(`${where}: points outside the project`);
        continue;
      }
      if (!fs.existsSync(resolved)) {
        problems.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!/\.md$/i.test(resolved) || !fs.statSync(resolved).isFile()) {
        problems.push(`${where}: an anchor into a file that is not Markdown`);
        continue;
      }
      if (!anchors(resolved).has(anchor)) problems.push(`${where}: no heading with this anchor`);
    }
  }
  return problems;
}
