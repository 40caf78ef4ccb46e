#!/usr/bin/env python3
"""The docs and `--help` agree: every option a page names exists, and every option is named.

    check_flags.py SIFT_BINARY REPO_ROOT

Reads the command tree from `sift --help` (subcommands, recursively; `sift train --help` is
sift-train's) and every page, README.md and docs/*.md. Checks:
1. every command has exactly one home page (`<!-- commands: ... -->`, tests/docs/doc_pages.py),
   the options of `sift` itself on the page that lists `(global options)`;
2. every long option in a command's `--help` is named on its home page;
3. every option a page names in code (inline code or a fenced block) exists: after
   `sift CMD` on the same line, in CMD's `--help` (or sift's own); alone, in the `--help` of
   the page's commands (of any command on a page that has none). Options of other programs
   (`curl --retry`, `cmake --preset`) are not sift's and are not checked;
4. README.md's table of commands names every command.
Each failure is one line saying which option, which command and which page.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doc_pages import read_page  # noqa: E402

GLOBAL = "(global options)"
OPTION = re.compile(r"(?<![\w-])--[a-z0-9][a-z0-9-]*")


def help_text(sift, path):
    run = subprocess.run([sift, *path.split(), "--help"], capture_output=True, text=True)
    if run.returncode != 0:
        return None
    return run.stdout


def parse_help(text):
    """(long options, subcommand names) of one `--help` text."""
    options, subcommands, section = set(), [], None
    for line in text.splitlines():
        if line.rstrip().endswith(":") and not line.startswith(" "):
            section = line.strip().rstrip(":")
            continue
        if section == "Options":
            m = re.match(r"\s+(?:-\w,)?(--[\w-]+)", line)
            if m:
                options.add(m.group(1))
        elif section == "Subcommands":
            m = re.match(r"  (\S+)\s", line)
            if m and not line.startswith("   "):
                subcommands.append(m.group(1))
    options.discard("--help")
    return options, subcommands


def command_tree(sift):
    """{command path: its long options}; "" is sift itself. Groups with no options of their
    own (`labels`, `tokenizer`) are left out: their subcommands carry the options."""
    tree, missing = {}, []
    pending = [""]
    while pending:
        path = pending.pop()
        text = help_text(sift, path)
        if text is None:
            missing.append(path)
            continue
        options, subcommands = parse_help(text)
        if options or not subcommands or path == "":
            tree[path] = options
        pending += [f"{path} {s}".strip() for s in subcommands]
    return tree, missing


def segments(code):
    """A shell line cut at `|`, `||`, `&&` and `;` outside quotes and brackets (a synopsis's
    `[--mode mis|prefix]` and `(--dry-run | --out DIR)` stay whole), up to a `#` comment."""
    out, current, depth, quote = [], "", 0, None
    for i, c in enumerate(code):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "[(":
            depth += 1
        elif c in "])":
            depth = max(0, depth - 1)
        elif depth == 0 and c == "#" and (i == 0 or code[i - 1] == " "):
            break
        elif depth == 0 and (c in "|;" or code[i:i + 2] == "&&"):
            out.append(current)
            current = ""
            continue
        current += c
    return [s for s in out + [current] if s.strip()]


def sift_invocations(code):
    """(command words, the code after them) for each `sift ...` in one logical line; a message
    `sift batch: ...` counts as its command's."""
    found = []
    for segment in segments(code):
        m = re.search(r"(?:^|[\s/(])sift(?=\s|$)((?:\s+\S+)*)", segment)
        if not m:
            continue
        words = m.group(1).split()
        command, i = [], 0
        while i < len(words) and words[i].startswith("-"):
            i += 2 if words[i] == "--threads" else 1
        while i < len(words) and re.fullmatch(r"[a-z][a-z-]*:?", words[i]):
            command.append(words[i].rstrip(":"))
            if words[i].endswith(":"):
                break
            i += 1
        found.append((command, segment[m.start(1):]))
    return found


def resolve(command_words, tree):
    """The longest command path of the tree that the words begin with ("" if none)."""
    for n in range(len(command_words), 0, -1):
        path = " ".join(command_words[:n])
        if path in tree or any(p.startswith(path + " ") for p in tree):
            return path
    return ""


def logical_lines(block):
    """A fenced block's lines, `\\` continuations and indented synopsis lines joined."""
    out = []
    for n, line in enumerate(block.text.split("\n")):
        if out and (out[-1][1].endswith("\\") or (block.kind == "text" and line.startswith(" ") and line.strip())):
            out[-1] = (out[-1][0], out[-1][1].rstrip("\\") + " " + line.strip())
        else:
            out.append((block.line + n, line))
    return out


def named_in_code(page):
    """(line, command path or None for a bare option, option) for every option named in code."""
    found = []
    spans = []  # (line, text) of code: fenced lines and inline code spans
    for block in page.blocks:
        if block.kind != "setup":
            spans += logical_lines(block)
    fenced = {n for b in page.blocks for n in range(b.line - 1, b.line + b.text.count("\n") + 1)}
    for n, line in enumerate(page.lines, 1):
        if n not in fenced:
            spans += [(n, m) for m in re.findall(r"`([^`]+)`", line)]
    for n, code in spans:
        invocations = sift_invocations(code)
        if invocations:
            for command, rest in invocations:
                found += [(n, command, o) for o in OPTION.findall(rest)]
        elif re.match(r"\s*\[?--", code):  # an option alone: `--weights auto|f32`, a synopsis line
            found += [(n, None, o) for o in OPTION.findall(code)]
    return found


def main():
    sift, repo = sys.argv[1], sys.argv[2]
    tree, missing = command_tree(sift)
    failures = [f"`sift {p} --help` failed (is sift-train built?); its options are not checked" for p in missing]
    pages = [read_page(os.path.join(repo, "README.md"))] + [
        read_page(os.path.join(repo, "docs", f)) for f in sorted(os.listdir(os.path.join(repo, "docs")))
        if f.endswith(".md")]
    name = {p.path: os.path.relpath(p.path, repo) for p in pages}
    all_options = set().union(*tree.values())

    # 1. one home page per command
    home = {}
    for page in pages:
        for command in page.commands:
            path = "" if command == GLOBAL else command
            if path not in tree:
                failures.append(f"{name[page.path]}: its commands header names `{command}`, which `sift --help` does not list")
            elif path in home:
                failures.append(f"`sift {path}` has two home pages: {name[home[path].path]} and {name[page.path]}")
            else:
                home[path] = page
    for path in sorted(tree):
        if path not in home:
            failures.append(f"`{f'sift {path}'.strip()}` has no page: add it to a page's "
                            "`<!-- commands: ... -->` header and document it there")

    # 2. every option of --help is named on the command's page
    for path, options in sorted(tree.items()):
        page = home.get(path)
        if not page:
            continue
        text = "\n".join(page.lines)
        for option in sorted(options):
            if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text):
                command = f"sift {path}".strip()
                failures.append(f"{name[page.path]} does not name `{option}`, an option of `{command}` "
                                f"(`{command} --help`): document it on that page")

    # 3. every option a page names exists
    for page in pages:
        own = [("" if c == GLOBAL else c) for c in page.commands if ("" if c == GLOBAL else c) in tree]
        bare_allowed = set().union(tree[""], *(tree[c] for c in own)) if any(own) else all_options
        for line, command_words, option in named_in_code(page):
            where = f"{name[page.path]}:{line}"
            if command_words is None:
                if option not in bare_allowed | {"--help"}:
                    owners = sorted(p for p, o in tree.items() if option in o)
                    hint = (f"it is an option of `sift {owners[0]}`: write `sift {owners[0]} {option}`"
                            if owners else "no sift command has it")
                    failures.append(f"{where}: `{option}` is not an option of this page's commands "
                                    f"({', '.join('sift ' + c for c in own if c)}); {hint}")
                continue
            path = resolve(command_words, tree)
            if option not in tree.get(path, set()) | tree[""] | {"--help"}:
                command = f"sift {path}".strip()
                failures.append(f"{where}: `{command}` has no option `{option}` (`{command} --help`)")

    # 4. the README's table names every command
    readme = "\n".join(pages[0].lines)
    for path in sorted(p for p in tree if p):
        if f"`sift {path}`" not in readme:
            failures.append(f"README.md: the table of commands does not name `sift {path}`")

    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(tree)} commands, {sum(len(o) for o in tree.values())} options, {len(pages)} pages: "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
