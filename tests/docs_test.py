#!/usr/bin/env python3
"""The documentation's links: README.md is a front door, the reference is
in docs/ and SECURITY.md, and a link that leads nowhere leaves a reader at
3 AM with nothing.

    docs_test.py SRCDIR

Fails when a relative link of README.md, SECURITY.md, BENCHMARKS.md or
docs/*.md names a file that does not exist or an anchor that no heading of
that file makes (GitHub's rule: lower case, punctuation but '-' and '_'
dropped, spaces made '-'), and when a page of docs/ or SECURITY.md is not
linked from README.md (it would be reachable from nowhere).
"""
import os
import re
import sys

LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')


def anchors(path):
    """The anchors the headings of a Markdown file make, outside code."""
    out, fence = set(), False
    seen = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('```'):
                fence = not fence
                continue
            m = re.match(r'#{1,6} (.*)', line)
            if fence or not m:
                continue
            a = re.sub(r'[^\w\- ]', '', m.group(1).strip().lower()).replace(' ', '-')
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else f'{a}-{n}')
    return out


def links(path):
    """(line number, target) of each link outside code blocks."""
    fence = False
    with open(path, encoding='utf-8') as f:
        for no, line in enumerate(f, 1):
            if line.startswith('```'):
                fence = not fence
                continue
            if fence:
                continue
            for m in LINK.finditer(re.sub(r'`[^`]*`', '', line)):
                yield no, m.group(1)


def main():
    src = sys.argv[1]
    pages = ['README.md', 'SECURITY.md', 'BENCHMARKS.md'] + \
        sorted('docs/' + f for f in os.listdir(os.path.join(src, 'docs')) if f.endswith('.md'))
    errors = []
    for page in pages:
        path = os.path.join(src, page)
        if not os.path.exists(path):
            continue
        for no, target in links(path):
            if re.match(r'[a-z]+:', target):
                continue  # https:, mailto:
            file, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                errors.append(f'{page}:{no}: {target}: no such file')
            elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
                errors.append(f'{page}:{no}: {target}: no heading makes #{anchor}')
    readme = {os.path.normpath(t.partition('#')[0]) for _, t in links(os.path.join(src, 'README.md'))}
    for page in pages[1:]:
        if page not in readme:
            errors.append(f'README.md does not link {page}')
    for e in errors:
        print('FAIL:', e)
    if errors:
        return 1
    print(f'ok: {len(pages)} pages')
    return 0


if __name__ == '__main__':
    sys.exit(main())
